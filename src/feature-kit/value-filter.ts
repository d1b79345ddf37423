// The deadband and longest-interval rule every publisher of live values applies (stream clients, history
// recording, MQTT): a numeric change smaller than the deadband from the last value sent is not sent, and the
// current value is sent again once the longest interval passed without a send.
import type { PlcValue } from '../plc/index.ts';

/** PLC types whose values are decimal text (64-bit integers), yet numbers to a deadband. */
const decimalText = new Set(['LINT', 'ULINT', 'LWORD', 'LTIME']);

/** The number a deadband compares, or undefined when the value is not numeric (BOOL, STRING, struct, array). */
export function deadbandNumber(typeName: string, value: PlcValue): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && decimalText.has(typeName.trim().toUpperCase()) && /^-?\d+$/.test(value)) {
    return Number(value);
  }
  return undefined;
}

export interface ValueFilterRule {
  /** Absolute; 0: every change passes. Applies to numeric values only. */
  readonly deadband: number;
  /** Send the current value again after this long without a send; 0: never. */
  readonly maxIntervalMs: number;
  /** A value equal to the last one sent does not pass (recorders that see every sample, not only changes). */
  readonly skipEqual?: boolean;
}

export class ValueFilter {
  readonly rule: ValueFilterRule;
  #sent: PlcValue | undefined;
  #sentNumber: number | undefined;
  #sentAt = -Infinity;

  constructor(rule: ValueFilterRule) {
    this.rule = rule;
  }

  /** When the last value was sent (-Infinity before the first). */
  get sentAt(): number {
    return this.#sentAt;
  }

  /** The last value sent, undefined before the first (or after a reset). */
  get sent(): PlcValue | undefined {
    return this.#sent;
  }

  /** Whether `value` goes out: the first does; a numeric one only outside the deadband of the last sent. */
  passes(typeName: string, value: PlcValue): boolean {
    if (this.#sent === undefined) return true;
    const band = this.rule.deadband;
    const n = band > 0 ? deadbandNumber(typeName, value) : undefined;
    if (n !== undefined && this.#sentNumber !== undefined) return Math.abs(n - this.#sentNumber) >= band;
    return this.rule.skipEqual === true ? value !== this.#sent : true;
  }

  /** Records that `value` went out at `at`. */
  mark(typeName: string, value: PlcValue, at: number): void {
    this.#sent = value;
    this.#sentNumber = deadbandNumber(typeName, value);
    this.#sentAt = at;
  }

  /** Whether the longest interval passed since the last send (never before the first one). */
  due(now: number): boolean {
    const max = this.rule.maxIntervalMs;
    return max > 0 && this.#sent !== undefined && now - this.#sentAt >= max;
  }

  /** Milliseconds until `due` (0 when due; Infinity without a longest interval or before the first send). */
  dueIn(now: number): number {
    const max = this.rule.maxIntervalMs;
    if (max <= 0 || this.#sent === undefined) return Infinity;
    return Math.max(0, this.#sentAt + max - now);
  }

  /** Forgets the last value sent: the next one passes (after a reconnect, a vanished symbol's return). */
  reset(): void {
    this.#sent = undefined;
    this.#sentNumber = undefined;
  }
}
