// Transitions per key between two snapshots, in the documented order raised, acknowledged, cleared,
// reoccurred, ended. Pure: the monitor owns the snapshots.
import { isOutstanding, timestampAdvanced, type AlarmReading } from './reading.ts';

export const transitionKinds = ['raised', 'acknowledged', 'cleared', 'reoccurred', 'ended'] as const;
export type TransitionKind = (typeof transitionKinds)[number];

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

/**
 * Transitions from `before` to `after`, keys in slot order (keys that left the array last).
 * `fresh`: the first snapshot of a (re)connection, which raises everything outstanding; an alarm of the
 * previous snapshot that is no longer outstanding ends.
 */
export function diffSnapshots(before: Snapshot, after: Snapshot, fresh: boolean): Transition[] {
  const out: Transition[] = [];
  if (fresh) {
    for (const [key, previous] of before) {
      const now = after.get(key);
      if (isOutstanding(previous) && (now === undefined || !isOutstanding(now))) {
        out.push({ kind: 'ended', reading: now ?? previous });
      }
    }
    for (const reading of after.values()) if (isOutstanding(reading)) out.push({ kind: 'raised', reading });
    return out;
  }
  for (const [key, reading] of after) {
    const previous = before.get(key);
    // The decoder keeps an unchanged slot's reading object: nothing to compare.
    if (previous !== reading) out.push(...keyTransitions(previous, reading));
  }
  for (const [key, previous] of before) {
    if (!after.has(key)) out.push(...keyTransitions(previous, undefined));
  }
  return out;
}
