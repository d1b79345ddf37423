// The nine stRev change counters: kept in the runtime (the source of truth) and mirrored to PLC memory.
// They only advance (modulo 2^32), across resets too, so a subscriber never sees a value twice.
import { revisionMembers } from './hmi-layout.ts';

export class RevisionCounters {
  readonly #values: Uint32Array;
  #offsets: readonly number[];

  /** `offsets`: absolute memory offsets of the UDINT members, in `revisionMembers` order. */
  constructor(offsets: readonly number[], initial = 1) {
    this.#offsets = offsets;
    this.#values = new Uint32Array(revisionMembers.length).fill(initial);
  }

  /** After a program download moved stRev: later writes go to the new offsets. */
  rebind(offsets: readonly number[]): void {
    this.#offsets = offsets;
  }

  /** Advances every counter whose bit is set in `mask` (see `Rev`) and writes it to memory. */
  bump(mask: number, view: DataView): void {
    const values = this.#values;
    for (let i = 0; i < values.length; i++) {
      if ((mask & (1 << i)) !== 0) {
        values[i] = (values[i] ?? 0) + 1;
        view.setUint32(this.#offsets[i] ?? 0, values[i] ?? 0, true);
      }
    }
  }

  /** Writes every counter back, undoing a write to stRev from outside. */
  restore(view: DataView): void {
    for (let i = 0; i < this.#values.length; i++)
      view.setUint32(this.#offsets[i] ?? 0, this.#values[i] ?? 0, true);
  }
}
