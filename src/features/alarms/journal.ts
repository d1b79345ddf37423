// The bounded per-PLC alarm journal (ISA-18.2 keeps one): every transition with a sequence number that only
// grows, also across restarts, because it starts from the start time in microseconds.
import type { AlarmReading } from './reading.ts';
import type { TransitionKind } from './transitions.ts';

export interface JournalEntry {
  readonly seq: number;
  /** Gateway time of the transition, ISO 8601 UTC. */
  readonly at: string;
  readonly kind: TransitionKind;
  readonly reading: AlarmReading;
  /** For `acknowledged`: the `sub` whose acknowledge request preceded it. */
  readonly user?: string;
}

export interface JournalPage {
  readonly entries: readonly JournalEntry[];
  /** Pass as `after` to continue. */
  readonly nextAfter: number;
}

export class AlarmJournal {
  readonly #capacity: number;
  readonly #ring: JournalEntry[] = [];
  /** Index in #ring of the oldest entry once the ring is full. */
  #head = 0;
  #lastSeq: number;

  /** `startMs`: the gateway's start time; sequence numbers begin just above it, in microseconds. */
  constructor(capacity: number, startMs: number) {
    this.#capacity = capacity;
    this.#lastSeq = Math.floor(startMs) * 1000;
  }

  /** The newest sequence number handed out (the start value while empty). */
  get lastSeq(): number {
    return this.#lastSeq;
  }

  get size(): number {
    return this.#ring.length;
  }

  append(entry: Omit<JournalEntry, 'seq'>): JournalEntry {
    const full: JournalEntry = { seq: ++this.#lastSeq, ...entry };
    if (this.#ring.length < this.#capacity) this.#ring.push(full);
    else {
      this.#ring[this.#head] = full;
      this.#head = (this.#head + 1) % this.#capacity;
    }
    return full;
  }

  #at(i: number): JournalEntry {
    return this.#ring[(this.#head + i) % this.#ring.length] as JournalEntry;
  }

  /** The oldest sequence number still held, or undefined when empty. */
  oldestSeq(): number | undefined {
    return this.#ring.length === 0 ? undefined : this.#at(0).seq;
  }

  /** Whether every entry after `seq` is still held (nothing was lost to the bound in between). */
  holdsAfter(seq: number): boolean {
    const oldest = this.oldestSeq();
    return seq <= this.#lastSeq && (oldest === undefined ? true : seq >= oldest - 1);
  }

  /** Entries with seq > `after` (all held when undefined), oldest first, at most `limit`. */
  page(after: number | undefined, limit: number): JournalPage {
    const n = this.#ring.length;
    // Sequence numbers are consecutive, so the first wanted entry is found by arithmetic.
    const oldest = this.oldestSeq() ?? this.#lastSeq + 1;
    const start = after === undefined ? 0 : Math.max(0, Math.min(n, after + 1 - oldest));
    const entries: JournalEntry[] = [];
    for (let i = start; i < n && entries.length < limit; i++) entries.push(this.#at(i));
    const last = entries.at(-1);
    const nextAfter = last ? last.seq : Math.min(after ?? this.#lastSeq, this.#lastSeq);
    return { entries, nextAfter };
  }
}
