// Transitions per key between two snapshots, in the documented order raised, acknowledged, cleared,
// reoccurred, ended. Pure: the monitor owns the snapshots.
import { isOutstanding, timestampAdvanced, type AlarmReading } from './reading.ts';

export type TransitionKind = 'raised' | 'acknowledged' | 'cleared' | 'reoccurred' | 'ended';

export interface Transition {
  readonly kind: TransitionKind;
  /** The reading the frame carries; for `ended`, the last reading of the alarm. */
  readonly reading: AlarmReading;
}

export type Snapshot = ReadonlyMap<string, AlarmReading>;

/** Transitions of one key; `before`/`after` undefined when the key held no slot. */
export function keyTransitions(
  before: AlarmReading | undefined,
  after: AlarmReading | undefined,
): Transition[] {
  const was = before !== undefined && isOutstanding(before);
  const is = after !== undefined && isOutstanding(after);
  if (!was) return is && after ? [{ kind: 'raised', reading: after }] : [];
  const out: Transition[] = [];
  if (after !== undefined && !before.isAcked && after.isAcked)
    out.push({ kind: 'acknowledged', reading: after });
  if (!is || !after) {
    out.push({ kind: 'ended', reading: after ?? before });
    return out;
  }
  if (before.isActive && !after.isActive) out.push({ kind: 'cleared', reading: after });
  // Without a readable timestamp only the active flag dropping and returning can show a re-trigger.
  if (after.isActive && (!before.isActive || timestampAdvanced(before, after))) {
    out.push({ kind: 'reoccurred', reading: after });
  }
  return out;
}

/** The alarm array by key, and its outstanding readings in slot order. */
export interface AlarmState {
  readonly readings: Snapshot;
  readonly outstanding: readonly AlarmReading[];
}

/** The state of a snapshot built whole (the decoder keeps its state up to date slot by slot instead). */
export function stateOf(readings: Snapshot): AlarmState {
  const outstanding = [...readings.values()].filter(isOutstanding);
  return { readings, outstanding: outstanding.sort((a, b) => a.slotIndex - b.slotIndex) };
}

/**
 * Transitions from the outstanding readings `before` to the state `after`, keys in slot order (keys that left
 * the array last). Only outstanding readings can make a transition, so nothing else of the old state is
 * needed and the cost follows the outstanding alarms, not the array. `fresh`: the first snapshot of a
 * (re)connection, which raises everything outstanding; an alarm of `before` no longer outstanding ends.
 */
export function diffStates(before: readonly AlarmReading[], after: AlarmState, fresh: boolean): Transition[] {
  const out: Transition[] = [];
  if (fresh) {
    for (const previous of before) {
      const now = after.readings.get(previous.key);
      if (now === undefined || !isOutstanding(now)) out.push({ kind: 'ended', reading: now ?? previous });
    }
    for (const reading of after.outstanding) out.push({ kind: 'raised', reading });
    return out;
  }
  // Any change to an outstanding reading replaces the outstanding array.
  if (before === after.outstanding) return out;
  const was = new Map(before.map((r) => [r.key, r]));
  const present: AlarmReading[] = [];
  const gone: AlarmReading[] = [];
  for (const previous of before) {
    const now = after.readings.get(previous.key);
    if (now === undefined) gone.push(previous);
    else if (now !== previous) present.push(now);
  }
  for (const now of after.outstanding) if (!was.has(now.key)) present.push(now);
  present.sort((a, b) => a.slotIndex - b.slotIndex);
  for (const now of present) out.push(...keyTransitions(was.get(now.key), now));
  for (const previous of gone) out.push(...keyTransitions(previous, undefined));
  return out;
}
