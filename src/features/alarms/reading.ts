// One alarm slot as the monitor keeps it (a decoded ST_ErrorEntry) and the pure rules over it: status,
// outstanding, acknowledgeable, and the E_ErrorType severity table.
import { errorTypeMembers } from '../../plc/index.ts';

export type PlcClock = 'Unspecified' | 'Utc' | 'Local';
export type AlarmStatus = 'active' | 'passive' | 'cleared';

/** The three time fields of an alarm, all present or all absent. */
export interface AlarmTime {
  /** ISO 8601 wall time of the PLC, without offset. */
  readonly lastOccurred: string;
  /** The same instant with the offset the declared clock implies (none for Unspecified). */
  readonly plcTimestamp: string;
  readonly plcClock: PlcClock;
}

export interface AlarmReading {
  /** sKey: the alarm's identity, opaque. */
  readonly key: string;
  /** Id: the equipment. */
  readonly equipmentId: string;
  readonly errorCode: number;
  /** Raw ErrorType value. */
  readonly severity: number;
  /** E_ErrorType member name, or UNKNOWN. */
  readonly severityLabel: string;
  readonly isActive: boolean;
  readonly needsAck: boolean;
  readonly isAcked: boolean;
  /** The PLC array index. */
  readonly slotIndex: number;
  readonly time: AlarmTime | undefined;
}

const severityLabels: ReadonlyMap<number, string> = new Map(errorTypeMembers.map((m) => [m.value, m.name]));

/** The member name of a raw ErrorType, or undefined when E_ErrorType has no such member. */
export function severityLabelOf(value: number): string | undefined {
  return severityLabels.get(value);
}

/** Outstanding: the fault is present, or it still awaits acknowledgement. */
export function isOutstanding(r: AlarmReading): boolean {
  return r.isActive || (r.needsAck && !r.isAcked);
}

export function awaitsAcknowledgement(r: AlarmReading): boolean {
  return r.needsAck && !r.isAcked;
}

export function statusOf(r: AlarmReading): AlarmStatus {
  if (r.isActive) return 'active';
  return awaitsAcknowledgement(r) ? 'passive' : 'cleared';
}

/** True when both readings carry a readable time and the second is later. */
export function timestampAdvanced(before: AlarmReading, after: AlarmReading): boolean {
  // Same fixed-width ISO format on both sides, so the strings order like the instants.
  return (
    before.time !== undefined &&
    after.time !== undefined &&
    after.time.lastOccurred > before.time.lastOccurred
  );
}
