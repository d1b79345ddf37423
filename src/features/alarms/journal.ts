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

/** What the history route and streams read: entries since a cursor, the newest cursor, and whether a cursor resumes. */
export interface JournalReader {
  /** Entries with seq > `after` (all held when undefined), oldest first, at most `limit`. */
  readSince(after: number | undefined, limit: number): JournalPage;
  /** The newest sequence number handed out (the start value while empty). */
  newest(): number;
  /** Whether every entry after `seq` is still held, so a client at `seq` can be brought up to date. */
  holdsAfter(seq: number): boolean;
}

/** What the monitor appends to; held in memory here (one per PLC). */
export interface TransitionJournal extends JournalReader {
  /** Appends with the next sequence number. */
  append(entry: Omit<JournalEntry, 'seq'>): JournalEntry;
}

export class AlarmJournal implements TransitionJournal {
  readonly #capacity: number;
  /** The sequence number before the first one this journal hands out. */
  readonly #firstSeq: number;
  readonly #ring: JournalEntry[] = [];
  /** Index in #ring of the oldest entry once the ring is full. */
  #head = 0;
  #lastSeq: number;

  /** `startMs`: the gateway's start time; sequence numbers begin just above it, in microseconds. */
  constructor(capacity: number, startMs: number) {
    this.#capacity = capacity;
    this.#lastSeq = Math.floor(startMs) * 1000;
    this.#firstSeq = this.#lastSeq;
  }

  newest(): number {
    return this.#lastSeq;
  }

  append(entry: Omit<JournalEntry, 'seq'>): JournalEntry {
    const full: JournalEntry = { seq: ++this.#lastSeq, ...entry };
    this.#keep(full);
    return full;
  }

  /**
   * Keeps an entry whose seq was handed out elsewhere (a mirror of a shared journal). An entry at or below the
   * newest is already held; one past a gap (entries trimmed before they were seen) restarts the ring after it.
   */
  follow(entry: JournalEntry): boolean {
    if (entry.seq <= this.#lastSeq) return false;
    if (entry.seq !== this.#lastSeq + 1) {
      this.#ring.length = 0;
      this.#head = 0;
    }
    this.#lastSeq = entry.seq;
    this.#keep(entry);
    return true;
  }

  #keep(full: JournalEntry): void {
    if (this.#ring.length < this.#capacity) this.#ring.push(full);
    else {
      this.#ring[this.#head] = full;
      this.#head = (this.#head + 1) % this.#capacity;
    }
  }

  #at(i: number): JournalEntry {
    return this.#ring[(this.#head + i) % this.#ring.length] as JournalEntry;
  }

  /** The oldest sequence number still held (the next one to hand out while empty). */
  #oldest(): number {
    return this.#ring.length === 0 ? this.#lastSeq + 1 : this.#at(0).seq;
  }

  /** `seq` was handed out by this journal (not before a restart, not in the future) and nothing after it dropped. */
  holdsAfter(seq: number): boolean {
    const oldest = this.#oldest();
    return seq >= this.#firstSeq && seq <= this.#lastSeq && seq >= oldest - 1;
  }

  readSince(after: number | undefined, limit: number): JournalPage {
    const n = this.#ring.length;
    // Sequence numbers are consecutive, so the first wanted entry is found by arithmetic.
    const oldest = this.#oldest();
    const start = after === undefined ? 0 : Math.max(0, Math.min(n, after + 1 - oldest));
    const entries: JournalEntry[] = [];
    for (let i = start; i < n && entries.length < limit; i++) entries.push(this.#at(i));
    const last = entries.at(-1);
    const nextAfter = last ? last.seq : Math.min(after ?? this.#lastSeq, this.#lastSeq);
    return { entries, nextAfter };
  }
}
