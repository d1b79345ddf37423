// One reading of the alarm array -> alarm readings by key. The bound shape is ST_ErrorEntry's members; a slot
// that does not match it makes the whole snapshot unusable (the monitor keeps its last good one), while an
// unknown ErrorType or an impossible timestamp stays confined to its slot.
import type { PlcValue } from '../../targets/target.ts';
import { severityLabelOf, type AlarmReading, type PlcClock } from './reading.ts';
import { timeStructMembers } from '../../plc/index.ts';
import { SlotKeys } from './slot-keys.ts';
import { bindTime, type TimeStruct } from './timestamps.ts';
import type { AlarmState } from './transitions.ts';

export interface SnapshotAnomalies {
  /** Raw ErrorType values E_ErrorType has no member for. */
  readonly unknownTypes: number[];
  /** Slots whose PLCTimeStamp is not a real date. */
  readonly invalidTimes: Array<{ slotIndex: number; key: string }>;
  /** Keys held by more than one slot (the most outstanding slot, then the lowest index, is used). */
  readonly duplicateKeys: string[];
}

export type DecodedSnapshot =
  { ok: true; state: AlarmState; anomalies: SnapshotAnomalies } | { ok: false; problem: string };

type Struct = { readonly [member: string]: PlcValue };

const isStruct = (v: PlcValue | undefined): v is Struct =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** A member by its declared name; TwinCAT identifiers are case-insensitive, so any casing binds. */
function member(s: Struct, name: string): PlcValue | undefined {
  const exact = s[name];
  if (exact !== undefined) return exact;
  const lower = name.toLowerCase();
  for (const [k, v] of Object.entries(s)) if (k.toLowerCase() === lower) return v;
  return undefined;
}

class ShapeError extends Error {}

function shape(slot: number, what: string): never {
  throw new ShapeError(`slot ${slot}: ${what}`);
}

function str(s: Struct, name: string, slot: number): string {
  const v = member(s, name);
  return typeof v === 'string' ? v : shape(slot, `member ${name} is missing or not a STRING`);
}

function int(s: Struct, name: string, slot: number): number {
  const v = member(s, name);
  return typeof v === 'number' && Number.isInteger(v)
    ? v
    : shape(slot, `member ${name} is missing or not an integer`);
}

function bool(s: Struct, name: string, slot: number): boolean {
  const v = member(s, name);
  return typeof v === 'boolean' ? v : shape(slot, `member ${name} is missing or not a BOOL`);
}

/** ErrorType reads as its integer, as every enum value does. */
function errorType(s: Struct, slot: number): number {
  const v = member(s, 'ErrorType');
  if (typeof v === 'number' && Number.isInteger(v)) return v;
  return shape(slot, 'member ErrorType is missing or not an E_ErrorType');
}

function timeStruct(s: Struct, slot: number): TimeStruct {
  const v = member(s, 'PLCTimeStamp');
  if (!isStruct(v)) return shape(slot, 'member PLCTimeStamp is missing or not a TIMESTRUCT');
  const out: Record<string, number> = {};
  for (const w of timeStructMembers) out[w] = int(v, w, slot);
  return out as unknown as TimeStruct;
}

/** The array's first index, from a type name such as `ARRAY [1..100] OF ST_ErrorEntry`. */
function lowerBoundOf(typeName: string): number | undefined {
  const m = /^ARRAY\s*\[\s*(-?\d+)\s*\.\./i.exec(typeName);
  return m ? Number(m[1]) : undefined;
}

interface SlotMemo {
  readonly reading: AlarmReading;
  readonly stamp: TimeStruct;
}

const sameStamp = (a: TimeStruct, b: TimeStruct): boolean => timeStructMembers.every((w) => a[w] === b[w]);

/**
 * Decodes snapshots of one array into an up-to-date state. A slot the driver passes as the same object as last
 * time (its bytes did not change) is not looked at again; a slot whose members all read as before keeps its
 * reading object, so it costs no new objects and compares as identical in the transition diff.
 */
export class SnapshotDecoder {
  readonly #clock: PlcClock;
  readonly #keys = new SlotKeys();
  #memo: Array<SlotMemo | undefined> = [];
  #raws: readonly PlcValue[] = [];

  constructor(clock: PlcClock) {
    this.#clock = clock;
  }

  decode(value: PlcValue, typeName: string): DecodedSnapshot {
    const first = lowerBoundOf(typeName);
    if (!Array.isArray(value) || first === undefined) {
      return { ok: false, problem: `the alarm symbol is a ${typeName}, not an ARRAY OF ST_ErrorEntry` };
    }
    const anomalies: SnapshotAnomalies = { unknownTypes: [], invalidTimes: [], duplicateKeys: [] };
    const checked: Array<[number, SlotMemo | undefined]> = [];
    const raws = this.#raws;
    try {
      for (let i = 0; i < value.length; i++) {
        const raw = value[i];
        if (raw === raws[i]) continue;
        const slotIndex = first + i;
        if (!isStruct(raw)) shape(slotIndex, 'not an ST_ErrorEntry structure');
        checked.push([i, this.#slot(raw, slotIndex, this.#memo[i], anomalies)]);
      }
    } catch (err) {
      if (err instanceof ShapeError) return { ok: false, problem: err.message };
      throw err;
    }
    // Only a good snapshot is taken in: a bad one leaves the last good state as it was.
    for (let i = value.length; i < this.#memo.length; i++) checked.push([i, undefined]);
    const changes: Array<[number, AlarmReading | undefined]> = [];
    for (const [i, slot] of checked) {
      if (slot !== this.#memo[i]) changes.push([i, slot?.reading]);
      this.#memo[i] = slot;
    }
    this.#memo.length = value.length;
    this.#raws = value;
    if (changes.length > 0) anomalies.duplicateKeys.push(...this.#keys.update(changes));
    return { ok: true, state: this.#keys.state(), anomalies };
  }

  /** Every member is checked, used slot or not, so a renamed member is noticed on a quiet PLC too. */
  #slot(
    raw: Struct,
    slotIndex: number,
    last: SlotMemo | undefined,
    anomalies: SnapshotAnomalies,
  ): SlotMemo | undefined {
    const key = str(raw, 'sKey', slotIndex);
    const equipmentId = str(raw, 'Id', slotIndex);
    const errorCode = int(raw, 'ErrorCode', slotIndex);
    const severity = errorType(raw, slotIndex);
    const isActive = bool(raw, 'IsActive', slotIndex);
    const needsAck = bool(raw, 'NeedsAck', slotIndex);
    const isAcked = bool(raw, 'IsAcked', slotIndex);
    const stamp = timeStruct(raw, slotIndex);
    if (key === '') return undefined;
    const r = last?.reading;
    if (
      r !== undefined &&
      r.slotIndex === slotIndex &&
      r.key === key &&
      r.equipmentId === equipmentId &&
      r.errorCode === errorCode &&
      r.severity === severity &&
      r.isActive === isActive &&
      r.needsAck === needsAck &&
      r.isAcked === isAcked &&
      last !== undefined &&
      sameStamp(last.stamp, stamp)
    ) {
      return last;
    }
    let severityLabel = severityLabelOf(severity);
    if (severityLabel === undefined) {
      severityLabel = 'UNKNOWN';
      anomalies.unknownTypes.push(severity);
    }
    const time = bindTime(stamp, this.#clock);
    if (time === 'invalid') anomalies.invalidTimes.push({ slotIndex, key });
    const reading: AlarmReading = {
      key,
      equipmentId,
      errorCode,
      severity,
      severityLabel,
      isActive,
      needsAck,
      isAcked,
      slotIndex,
      time: typeof time === 'string' ? undefined : time,
    };
    return { reading, stamp };
  }
}
