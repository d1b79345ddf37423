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

/** Where a SeqRing keeps its items: the newest `capacity` of those pushed, oldest first. */
export interface RingStore<T> {
  readonly length: number;
  /** Keeps `item` as the newest, dropping the oldest when `capacity` are kept. */
  push(item: T): void;
  /** The `i`th item kept, oldest first (0 <= i < length). */
  at(i: number): T;
  clear(): void;
}

/** Items in an array used as a ring. */
export class ArrayStore<T> implements RingStore<T> {
  readonly #capacity: number;
  readonly #ring: T[] = [];
  /** Index of the oldest item once the ring is full. */
  #head = 0;

  constructor(capacity: number) {
    this.#capacity = capacity;
  }

  get length(): number {
    return this.#ring.length;
  }

  push(item: T): void {
    if (this.#ring.length < this.#capacity) this.#ring.push(item);
    else {
      this.#ring[this.#head] = item;
      this.#head = (this.#head + 1) % this.#capacity;
    }
  }

  at(i: number): T {
    return this.#ring[(this.#head + i) % this.#ring.length] as T;
  }

  clear(): void {
    this.#ring.length = 0;
    this.#head = 0;
  }
}

/**
 * Consecutively numbered items, the newest of them (as many as its store keeps): the ring under a journal. Numbers
 * are consecutive, so an item's is found from its place. The store is the caller's, so that a journal's copy can
 * keep its entries in a compact form.
 */
export class SeqRing<T> {
  /** The sequence number before the first one this ring holds. */
  readonly #firstSeq: number;
  readonly #store: RingStore<T>;
  #lastSeq: number;

  constructor(store: RingStore<T>, firstSeq: number) {
    this.#store = store;
    this.#lastSeq = firstSeq;
    this.#firstSeq = firstSeq;
  }

  newest(): number {
    return this.#lastSeq;
  }

  /**
   * Keeps the item numbered `seq`: the next one, or one handed out elsewhere (a copy of a shared journal). An item
   * at or below the newest is already held; one past a gap (items trimmed before they were seen) restarts the ring
   * after it.
   */
  follow(seq: number, item: T): boolean {
    if (seq <= this.#lastSeq) return false;
    if (seq !== this.#lastSeq + 1) this.#store.clear();
    this.#lastSeq = seq;
    this.#store.push(item);
    return true;
  }

  /** `seq` was handed out by this ring (not before a restart, not in the future) and nothing after it dropped. */
  holdsAfter(seq: number): boolean {
    const oldest = this.#lastSeq - this.#store.length + 1;
    return seq >= this.#firstSeq && seq <= this.#lastSeq && seq >= oldest - 1;
  }

  /** Items with seq > `after` (all held when undefined), oldest first, at most `limit`, each with its seq. */
  since(after: number | undefined, limit: number): Array<[seq: number, item: T]> {
    const n = this.#store.length;
    const oldest = this.#lastSeq - n + 1;
    const start = after === undefined ? 0 : Math.max(0, Math.min(n, after + 1 - oldest));
    const items: Array<[number, T]> = [];
    for (let i = start; i < n && items.length < limit; i++) items.push([oldest + i, this.#store.at(i)]);
    return items;
  }
}

/** A page of a ring's entries after `after`, and the cursor to continue from. */
export function pageOf(
  after: number | undefined,
  newest: number,
  entries: readonly JournalEntry[],
): JournalPage {
  const last = entries.at(-1);
  return { entries, nextAfter: last ? last.seq : Math.min(after ?? newest, newest) };
}

export class AlarmJournal implements TransitionJournal {
  readonly #ring: SeqRing<JournalEntry>;

  /** `startMs`: the gateway's start time; sequence numbers begin just above it, in microseconds. */
  constructor(capacity: number, startMs: number) {
    this.#ring = new SeqRing(new ArrayStore(capacity), Math.floor(startMs) * 1000);
  }

  newest(): number {
    return this.#ring.newest();
  }

  append(entry: Omit<JournalEntry, 'seq'>): JournalEntry {
    const full: JournalEntry = { seq: this.#ring.newest() + 1, ...entry };
    this.#ring.follow(full.seq, full);
    return full;
  }

  holdsAfter(seq: number): boolean {
    return this.#ring.holdsAfter(seq);
  }

  readSince(after: number | undefined, limit: number): JournalPage {
    const entries = this.#ring.since(after, limit).map(([, entry]) => entry);
    return pageOf(after, this.#ring.newest(), entries);
  }
}
