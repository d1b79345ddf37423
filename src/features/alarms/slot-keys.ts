// The keyed view of the alarm array: the reading that stands for each key (a key held by several slots is
// listed once: the most outstanding slot, then the lowest index) and the outstanding readings in slot order.
// Updated slot by slot, so a cycle that changed two slots costs two updates, not a pass over the array.
import { isOutstanding, type AlarmReading } from './reading.ts';
import type { AlarmState } from './transitions.ts';

const rank = (r: AlarmReading): number => (isOutstanding(r) ? 2 : 0) + (r.isActive ? 1 : 0);
const bySlot = (a: AlarmReading, b: AlarmReading): number => a.slotIndex - b.slotIndex;

export class SlotKeys {
  /** By position in the array. */
  readonly #slots: Array<AlarmReading | undefined> = [];
  /** Key -> the positions holding it, ascending. */
  readonly #holders = new Map<string, number[]>();
  readonly #byKey = new Map<string, AlarmReading>();
  #outstanding: readonly AlarmReading[] = [];

  /**
   * The current state. Its map is updated in place by later updates; its outstanding array is replaced, and
   * stays the same array while no outstanding reading changes.
   */
  state(): AlarmState {
    return { readings: this.#byKey, outstanding: this.#outstanding };
  }

  /** Sets the reading (or none) at array positions; answers the keys now held by more than one slot. */
  update(changes: ReadonlyArray<readonly [position: number, reading: AlarmReading | undefined]>): string[] {
    const touched = new Set<string>();
    for (const [position, reading] of changes) {
      const old = this.#slots[position];
      if (old !== undefined) {
        this.#release(old.key, position);
        touched.add(old.key);
      }
      this.#slots[position] = reading;
      if (reading !== undefined) {
        this.#hold(reading.key, position);
        touched.add(reading.key);
      }
    }
    const duplicates: string[] = [];
    /** The outstanding reading standing for each touched key. */
    const listed: AlarmReading[] = [];
    let listChanged = false;
    for (const key of touched) {
      const positions = this.#holders.get(key) ?? [];
      if (positions.length > 1) duplicates.push(key);
      const before = this.#byKey.get(key);
      const after = this.#standing(positions);
      const outstanding = after !== undefined && isOutstanding(after);
      if (outstanding) listed.push(after);
      if (after === before) continue;
      if (after === undefined) this.#byKey.delete(key);
      else this.#byKey.set(key, after);
      listChanged ||= outstanding || (before !== undefined && isOutstanding(before));
    }
    if (listChanged) {
      this.#outstanding = [...this.#outstanding.filter((r) => !touched.has(r.key)), ...listed].sort(bySlot);
    }
    return duplicates;
  }

  #hold(key: string, position: number): void {
    const positions = this.#holders.get(key);
    if (positions === undefined) {
      this.#holders.set(key, [position]);
      return;
    }
    const at = positions.findIndex((p) => p > position);
    positions.splice(at < 0 ? positions.length : at, 0, position);
  }

  #release(key: string, position: number): void {
    const positions = this.#holders.get(key);
    if (positions === undefined) return;
    const rest = positions.filter((p) => p !== position);
    if (rest.length === 0) this.#holders.delete(key);
    else this.#holders.set(key, rest);
  }

  #standing(positions: readonly number[]): AlarmReading | undefined {
    let best: AlarmReading | undefined;
    for (const p of positions) {
      const r = this.#slots[p];
      if (r !== undefined && (best === undefined || rank(r) > rank(best))) best = r;
    }
    return best;
  }
}
