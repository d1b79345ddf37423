// Per-subscription options of the notification streams (SSE query parameters, the hub's Subscribe options
// object): sampling cycle, mode, deadband and longest interval, checked against the Notifications bounds.
import { Type, type Static } from '@sinclair/typebox';
import { AppError } from '../../errors.ts';
import type { SubscriptionMode } from '../../targets/target.ts';

/** The options a subscription runs with, as `subscribed` and SubscriptionConfirmed echo them. */
export interface SubscriptionOptions {
  /** How often the PLC samples (on-change) or sends (cyclic), in milliseconds. */
  readonly cycleMs: number;
  readonly mode: SubscriptionMode;
  /** Absolute, numeric symbols only; 0: every change is sent. */
  readonly deadband: number;
  /** The current value is sent again after this long without a send; 0: never. */
  readonly maxIntervalMs: number;
}

/** The Notifications settings the options are held to. */
export interface OptionBounds {
  readonly defaultCycleMs: number;
  readonly minCycleMs: number;
  readonly maxCycleMs: number;
  readonly maxResendIntervalMs: number;
  /** Notifications.MinResendIntervalMs: the shortest maxIntervalMs (besides the cycle). */
  readonly minResendIntervalMs: number;
  /**
   * The cycles a subscription runs at (ascending, the first MinCycleTimeMs): a requested cycle is revised down to
   * the largest of them not above it, so one symbol has at most this many cycles per mode on the PLC.
   */
  readonly cycleLadder: readonly number[];
}

/**
 * Notifications.CycleLadderMs when given, else the 1-2-5 series from MinCycleTimeMs to MaxCycleTimeMs with both
 * ends and DefaultCycleTimeMs on it (10, 20, 50, 100, ..., 50000, 60000 by default).
 */
export function cycleLadder(n: {
  readonly MinCycleTimeMs: number;
  readonly MaxCycleTimeMs: number;
  readonly DefaultCycleTimeMs: number;
  readonly CycleLadderMs?: readonly number[] | undefined;
}): number[] {
  if (n.CycleLadderMs !== undefined) return [...n.CycleLadderMs];
  const steps = new Set([n.MinCycleTimeMs, n.DefaultCycleTimeMs, n.MaxCycleTimeMs]);
  for (let decade = 1; decade <= n.MaxCycleTimeMs; decade *= 10) {
    for (const f of [1, 2, 5]) {
      const v = f * decade;
      if (v > n.MinCycleTimeMs && v < n.MaxCycleTimeMs) steps.add(v);
    }
  }
  return [...steps].sort((a, b) => a - b);
}

/** The largest step of `ladder` not above `cycleMs` (the first step when all are). */
export function revisedCycle(cycleMs: number, ladder: readonly number[]): number {
  let revised = ladder[0] ?? cycleMs;
  for (const step of ladder) if (step <= cycleMs) revised = step;
  return revised;
}

export const optionNames = ['cycleMs', 'mode', 'deadband', 'maxIntervalMs'] as const;

/** The options as a client may send them (every one optional). */
export const RequestedOptions = Type.Object({
  cycleMs: Type.Optional(Type.Number()),
  mode: Type.Optional(Type.String()),
  deadband: Type.Optional(Type.Number()),
  maxIntervalMs: Type.Optional(Type.Number()),
});
export type RequestedOptions = Static<typeof RequestedOptions>;

export function defaultOptions(bounds: OptionBounds): SubscriptionOptions {
  return { cycleMs: bounds.defaultCycleMs, mode: 'on-change', deadband: 0, maxIntervalMs: 0 };
}

function invalid(message: string): AppError {
  return new AppError('SUBSCRIPTION_OPTIONS_INVALID', message);
}

/**
 * The effective options of a request: what it left out takes the defaults (the Notifications cycle, on-change, no
 * deadband, no longest interval); the cycle is revised down onto the cycle ladder (as an OPC UA server revises a
 * sampling interval), so distinct cycles on one symbol stay few however many are asked for. 400 CYCLE_TIME_OUT_OF_RANGE or SUBSCRIPTION_OPTIONS_INVALID naming the bound.
 */
export function effectiveOptions(requested: unknown, bounds: OptionBounds): SubscriptionOptions {
  if (typeof requested !== 'object' || requested === null || Array.isArray(requested)) {
    throw invalid('The options must be an object { cycleMs, mode, deadband, maxIntervalMs }.');
  }
  const r = requested as Record<string, unknown>;
  const unknown = Object.keys(r).filter((k) => !(optionNames as readonly string[]).includes(k));
  if (unknown.length > 0) {
    throw invalid(`Unknown option ${unknown.join(', ')}: the options are ${optionNames.join(', ')}.`);
  }
  const { cycleMs: asked = bounds.defaultCycleMs, mode = 'on-change', deadband = 0, maxIntervalMs = 0 } = r;
  if (typeof asked !== 'number' || !Number.isInteger(asked)) {
    throw invalid('cycleMs must be a whole number of milliseconds.');
  }
  if (asked < bounds.minCycleMs || asked > bounds.maxCycleMs) {
    throw new AppError(
      'CYCLE_TIME_OUT_OF_RANGE',
      `cycleMs must be ${bounds.minCycleMs}-${bounds.maxCycleMs} ` +
        `(Notifications:MinCycleTimeMs and MaxCycleTimeMs); got ${asked}.`,
    );
  }
  const cycleMs = revisedCycle(asked, bounds.cycleLadder);
  if (mode !== 'on-change' && mode !== 'cyclic') throw invalid('mode must be on-change or cyclic.');
  if (typeof deadband !== 'number' || !Number.isFinite(deadband) || deadband < 0) {
    throw invalid('deadband must be a number >= 0 (0: every change).');
  }
  if (typeof maxIntervalMs !== 'number' || !Number.isInteger(maxIntervalMs) || maxIntervalMs < 0) {
    throw invalid('maxIntervalMs must be a whole number of milliseconds >= 0 (0: never).');
  }
  // Each filtered client and symbol holds a resend timer: the floor bounds how often they fire.
  const shortest = Math.max(cycleMs, bounds.minResendIntervalMs);
  if (maxIntervalMs > 0 && (maxIntervalMs < shortest || maxIntervalMs > bounds.maxResendIntervalMs)) {
    throw invalid(
      `maxIntervalMs must be 0 or ${shortest} (the cycle, at least Notifications:MinResendIntervalMs) to ` +
        `${bounds.maxResendIntervalMs} (Notifications:MaxResendIntervalMs); got ${maxIntervalMs}.`,
    );
  }
  if (mode === 'cyclic' && (deadband > 0 || maxIntervalMs > 0)) {
    // A cyclic subscription sends every cycle already: a deadband or a longest interval would contradict it.
    throw invalid('deadband and maxIntervalMs apply to on-change subscriptions, not to cyclic ones.');
  }
  return { cycleMs, mode, deadband, maxIntervalMs };
}

/** Subscriptions with the same sharing key share one PLC notification. */
export function sharingKey(o: Pick<SubscriptionOptions, 'cycleMs' | 'mode'>): string {
  return `${o.cycleMs}|${o.mode}`;
}

export function sameOptions(a: SubscriptionOptions, b: SubscriptionOptions): boolean {
  return (
    a.cycleMs === b.cycleMs &&
    a.mode === b.mode &&
    a.deadband === b.deadband &&
    a.maxIntervalMs === b.maxIntervalMs
  );
}
