// The fbAlarms.aAlarms slots: each defined alarm owns the slot of its definition order; raise, clear and
// acknowledge edit memory the way a PLC alarm function block does (an alarm ends by IsActive := FALSE).
import { decode, encode, stringType } from '../engine/index.ts';
import type { HmiBindings } from './bindings.ts';
import { errorTypeMembers } from './hmi-layout.ts';
import type { AlarmDefinition } from './schema.ts';

const keyType = stringType(80);

interface SlotTemplate {
  base: number;
  key: Buffer;
  id: Buffer;
  errorCode: number;
  errorType: number;
  needsAck: boolean;
}

export class AlarmSlots {
  readonly #bindings: HmiBindings['alarms'];
  readonly #byKey = new Map<string, SlotTemplate>();
  readonly #f: Record<string, number>;

  constructor(bindings: HmiBindings['alarms'], definitions: readonly AlarmDefinition[]) {
    this.#bindings = bindings;
    this.#f = Object.fromEntries(Object.entries(bindings.fields).map(([k, v]) => [k, v.offset]));
    definitions.forEach((d, i) => {
      this.#byKey.set(d.key, {
        base: bindings.start + i * bindings.stride,
        key: encode(keyType, d.key, 'sKey'),
        id: encode(keyType, d.equipment, 'Id'),
        errorCode: d.errorCode,
        errorType: errorTypeMembers.find((m) => m.name === d.errorType)?.value ?? 0,
        needsAck: d.needsAck,
      });
    });
  }

  #field(name: string): number {
    return this.#f[name] ?? 0;
  }

  /**
   * Makes the alarm active with the PLC time `timeMs`. Raising an active alarm only advances its
   * timestamp (a re-trigger); raising an inactive one also clears IsAcked. Returns whether memory changed.
   */
  raise(mem: Buffer, view: DataView, key: string, timeMs: number): boolean {
    const t = this.#byKey.get(key);
    if (!t) return false;
    const b = t.base;
    const before = Buffer.from(mem.subarray(b, b + this.#bindings.stride));
    const active =
      mem[b + this.#field('IsActive')] !== 0 &&
      mem.compare(t.key, 0, t.key.length, b, b + t.key.length) === 0;
    t.key.copy(mem, b + this.#field('sKey'));
    t.id.copy(mem, b + this.#field('Id'));
    view.setInt32(b + this.#field('ErrorCode'), t.errorCode, true);
    view.setInt16(b + this.#field('ErrorType'), t.errorType, true);
    mem[b + this.#field('NeedsAck')] = t.needsAck ? 1 : 0;
    if (!active) mem[b + this.#field('IsAcked')] = 0;
    mem[b + this.#field('IsActive')] = 1;
    writeTimestamp(view, b + this.#field('PLCTimeStamp'), timeMs);
    return mem.compare(before, 0, before.length, b, b + before.length) !== 0;
  }

  /** Ends the fault; the entry stays outstanding while it still awaits acknowledgement. */
  clear(mem: Buffer, key: string): boolean {
    const t = this.#byKey.get(key);
    if (!t) return false;
    const at = t.base + this.#field('IsActive');
    if (mem[at] === 0) return false;
    mem[at] = 0;
    return true;
  }

  /** Sets IsAcked on the outstanding entry with this key that needs it; false when there is none. */
  acknowledge(mem: Buffer, sKey: string): boolean {
    const { start, stride, slots } = this.#bindings;
    for (let i = 0; i < slots; i++) {
      const b = start + i * stride;
      const needs = mem[b + this.#field('NeedsAck')] !== 0 && mem[b + this.#field('IsAcked')] === 0;
      if (!needs || decode(keyType, mem, b + this.#field('sKey')) !== sKey) continue;
      mem[b + this.#field('IsAcked')] = 1;
      return true;
    }
    return false;
  }
}

/** TIMESTRUCT (8 WORDs, SYSTEMTIME order) of a UTC time; wDayOfWeek 0 is Sunday. */
function writeTimestamp(view: DataView, offset: number, timeMs: number): void {
  const d = new Date(timeMs);
  const words = [
    d.getUTCFullYear(),
    d.getUTCMonth() + 1,
    d.getUTCDay(),
    d.getUTCDate(),
    d.getUTCHours(),
    d.getUTCMinutes(),
    d.getUTCSeconds(),
    d.getUTCMilliseconds(),
  ];
  words.forEach((w, i) => view.setUint16(offset + i * 2, w, true));
}
