// The bounded per-PLC alarm journal (ISA-18.2 keeps one): every transition with a sequence number that only
// grows, also across restarts, because it starts from the start time in microseconds.
import type { AlarmReading } from './reading.ts';
import { TextStore } from './text-store.ts';
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
  /**
   * Since when (Unix ms) every transition is held: the journal's start while nothing was dropped, else the
   * oldest held entry's time; undefined while nothing is known to be held (a copy before the journal starts).
   */
  heldSince(): number | undefined;
}

/** What the monitor appends to; held in memory here (one per PLC). */
export interface TransitionJournal extends JournalReader {
  /** Appends with the next sequence number. */
  append(entry: Omit<JournalEntry, 'seq'>): JournalEntry;
}

/**
 * An entry as a ring keeps it: the JSON of its time, kind and reading, led by the acknowledging user when there is
 * one, as NUL, the user's length, NUL, the user (JSON text never starts with NUL).
 */
export function entryText(json: string, user: string | undefined): string {
  return user === undefined ? json : `\0${user.length}\0${user}${json}`;
}

/** An entry's text (see entryText) split into its JSON and its acknowledging user. */
export function entryParts(text: string): [json: string, user: string | undefined] {
  if (!text.startsWith('\0')) return [text, undefined];
  const at = text.indexOf('\0', 1) + 1;
  const end = at + Number(text.slice(1, at - 1));
  return [text.slice(end), text.slice(at, end)];
}

/**
 * What a ring keeps in place of an entry a copy rejected (see JournalMirror): its number stays taken, so the copy
 * moves past it, but it is never handed out. No entry's text is empty.
 */
export const rejectedText = '';

/** The entry numbered `seq` from its text. */
export function entryFromText(seq: number, text: string): JournalEntry {
  const [json, user] = entryParts(text);
  const body = JSON.parse(json) as Omit<JournalEntry, 'seq' | 'user'>;
  return user === undefined
    ? { seq, at: body.at, kind: body.kind, reading: body.reading }
    : { seq, at: body.at, kind: body.kind, reading: body.reading, user };
}

/**
 * Consecutively numbered entries, the newest `capacity` of them: the ring under a journal. Numbers are consecutive,
 * so an entry's is found from its place. Entries are kept as text in a TextStore: a journal holds thousands per PLC
 * for minutes, and as objects they would be what the collector walks most.
 */
export class EntryRing {
  /** The sequence number before the first one this ring holds. */
  readonly #firstSeq: number;
  readonly #texts: TextStore;
  #lastSeq: number;

  constructor(capacity: number, firstSeq: number) {
    this.#texts = new TextStore(capacity);
    this.#lastSeq = firstSeq;
    this.#firstSeq = firstSeq;
  }

  newest(): number {
    return this.#lastSeq;
  }

  /** The oldest entry's number (one past the newest while empty). */
  #oldest(): number {
    return this.#lastSeq - this.#texts.length + 1;
  }

  /** The oldest entry's number once `seq` is followed. */
  oldestAfter(seq: number): number {
    if (seq <= this.#lastSeq) return this.#oldest();
    if (seq > this.#lastSeq + 1) return seq;
    return this.#oldest() + (this.#texts.full ? 1 : 0);
  }

  /** The entry numbered `seq`, while it is held. */
  entry(seq: number): JournalEntry | undefined {
    const i = seq - this.#oldest();
    if (i < 0 || i >= this.#texts.length) return undefined;
    const text = this.#texts.at(i);
    return text === rejectedText ? undefined : entryFromText(seq, text);
  }

  /**
   * Keeps the entry numbered `seq` (see entryText): the next one, or one handed out elsewhere (a copy of a shared
   * journal). An entry at or below the newest is already held; one past a gap (entries trimmed before they were
   * seen) restarts the ring after it.
   */
  follow(seq: number, text: string): boolean {
    if (seq <= this.#lastSeq) return false;
    if (seq !== this.#lastSeq + 1) this.#texts.clear();
    this.#lastSeq = seq;
    this.#texts.push(text);
    return true;
  }

  /** `seq` was handed out by this ring (not before a restart, not in the future) and nothing after it dropped. */
  holdsAfter(seq: number): boolean {
    return seq >= this.#firstSeq && seq <= this.#lastSeq && seq >= this.#oldest() - 1;
  }

  /**
   * Since when every entry is held (see JournalReader): numbers begin at the start time in microseconds, so
   * while nothing was dropped that is the start; else the oldest held entry's time.
   */
  heldSince(): number | undefined {
    if (this.holdsAfter(this.#firstSeq)) return Math.floor(this.#firstSeq / 1000);
    for (let seq = this.#oldest(); seq <= this.#lastSeq; seq++) {
      const held = this.entry(seq);
      if (held !== undefined) return Date.parse(held.at);
    }
    return undefined;
  }

  /** Entries with seq > `after` (all held when undefined), oldest first, at most `limit`; rejected ones left out. */
  since(after: number | undefined, limit: number): JournalEntry[] {
    const n = this.#texts.length;
    const oldest = this.#oldest();
    const start = after === undefined ? 0 : Math.max(0, Math.min(n, after + 1 - oldest));
    const entries: JournalEntry[] = [];
    for (let i = start; i < n && entries.length < limit; i++) {
      const text = this.#texts.at(i);
      if (text !== rejectedText) entries.push(entryFromText(oldest + i, text));
    }
    return entries;
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
  readonly #ring: EntryRing;

  /** `startMs`: the gateway's start time; sequence numbers begin just above it, in microseconds. */
  constructor(capacity: number, startMs: number) {
    this.#ring = new EntryRing(capacity, Math.floor(startMs) * 1000);
  }

  newest(): number {
    return this.#ring.newest();
  }

  append(entry: Omit<JournalEntry, 'seq'>): JournalEntry {
    const full: JournalEntry = { seq: this.#ring.newest() + 1, ...entry };
    const { at, kind, reading, user } = full;
    this.#ring.follow(full.seq, entryText(JSON.stringify({ at, kind, reading }), user));
    return full;
  }

  holdsAfter(seq: number): boolean {
    return this.#ring.holdsAfter(seq);
  }

  heldSince(): number | undefined {
    return this.#ring.heldSince();
  }

  readSince(after: number | undefined, limit: number): JournalPage {
    return pageOf(after, this.#ring.newest(), this.#ring.since(after, limit));
  }
}
