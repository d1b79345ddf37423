// A replica's copy of one PLC's shared alarm journal: the entries (a ring as long as the stream) and the
// outstanding alarms, loaded from Redis and then fed entry by entry from the stream, whoever appended them.
// The history route, the list and the streams read it synchronously, as they read the in-process journal.
import {
  entryParts,
  EntryRing,
  entryText,
  rejectedText,
  pageOf,
  type JournalEntry,
  type JournalPage,
  type JournalReader,
} from '../journal.ts';
import { isOutstanding, type AlarmReading } from '../reading.ts';
import { checkedEntry, type Rejection } from './journal-wire.ts';

/** A stream entry as XRANGE/XREAD answer it: id `<seq>-0` and fields p (epoch), e (entry JSON), u (user). */
export type StreamEntry = [id: string, fields: string[]];

/** An entry of a shared journal as a copy takes it, read from the stream or pushed: its epoch, seq and text (see entryText). */
export interface SharedEntry {
  readonly epoch: number;
  readonly seq: number;
  readonly text: string;
  /** Set when the stream entry's fields are not the append script's (the entry is rejected). */
  readonly fault?: string;
}

/** Told of each entry a copy rejects: its number, why, and its text. */
export type RejectedEntry = (seq: number, reason: string, text: string) => void;

/** What is stored in Redis as the state of a journal: its epoch, the outstanding alarms as of its newest entry, the entries. */
export interface StoredJournal {
  /** The seq before the journal's first entry (a start time in microseconds); undefined: none yet. */
  readonly epoch: number | undefined;
  readonly outstanding: readonly AlarmReading[];
  readonly entries: readonly SharedEntry[];
  /** The stored snapshot was not of the shape the holder writes: `outstanding` is only what the entries tell. */
  readonly snapshotRejected?: boolean;
}

// The append script writes p, e and (an acknowledgement's user) u in this order: looked up there first.
function field(fields: readonly string[], name: string, at: number): string | undefined {
  if (fields[at] === name) return fields[at + 1];
  const i = fields.indexOf(name);
  return i >= 0 && i % 2 === 0 ? fields[i + 1] : undefined;
}

/** A stream entry as a copy takes it; fields other than the append script writes make it a faulty one. */
export function sharedEntry([id, fields]: StreamEntry): SharedEntry {
  const p = field(fields, 'p', 0);
  const e = field(fields, 'e', 2);
  const entry = {
    epoch: Number(p),
    seq: Number(id.slice(0, id.indexOf('-'))),
    text: entryText(e ?? '', field(fields, 'u', 4)),
  };
  let fault: string | undefined;
  if (!id.endsWith('-0')) fault = `stream id ${id} is not <seq>-0`;
  else if (p === undefined || !/^\d+$/.test(p) || !Number.isSafeInteger(entry.epoch))
    fault = 'field p (epoch) is not a number';
  else if (e === undefined) fault = 'field e (entry) is missing';
  return fault === undefined ? entry : { ...entry, fault };
}

/** The entry as the holder wrote it in journal `epoch`, or why it is rejected. */
function checked(
  { epoch: its, seq, text, fault }: SharedEntry,
  epoch: number | undefined,
): JournalEntry | Rejection {
  if (fault !== undefined) return { rejected: fault };
  if (its !== epoch) return { rejected: `epoch ${its} is not the journal's (${String(epoch)})` };
  return checkedEntry(seq, ...entryParts(text));
}

/** An ended or no longer outstanding alarm leaves the outstanding alarms. */
function leavesOutstanding({ kind, reading }: JournalEntry): boolean {
  return kind === 'ended' || !isOutstanding(reading);
}

/** The outstanding alarms after `entry`. */
function applyEntry(readings: Map<string, AlarmReading>, entry: JournalEntry): void {
  const { key } = entry.reading;
  if (leavesOutstanding(entry)) readings.delete(key);
  else readings.set(key, entry.reading);
}

/**
 * The outstanding alarms as of the journal's newest entry: the stored snapshot (as of `snapshotSeq`) with the
 * later entries of journal `epoch` applied, in slot order.
 */
export function outstandingAfter(
  snapshot: readonly AlarmReading[],
  snapshotSeq: number,
  entries: readonly SharedEntry[],
  epoch: number,
): AlarmReading[] {
  const readings = new Map(snapshot.map((r) => [r.key, r]));
  for (const shared of entries) {
    // A rejected entry changes nothing (the copy that follows the stream reports it).
    const entry = shared.seq > snapshotSeq ? checked(shared, epoch) : undefined;
    if (entry !== undefined && !('rejected' in entry)) applyEntry(readings, entry);
  }
  return [...readings.values()].sort((a, b) => a.slotIndex - b.slotIndex);
}

export class JournalMirror implements JournalReader {
  readonly #capacity: number;
  readonly #onRejected: RejectedEntry;
  #epoch: number | undefined;
  #journal: EntryRing;
  /**
   * The outstanding alarms, each by the number of the entry that holds its reading while the ring holds it, else
   * (loaded from the stored snapshot, or its entry left the ring) as the reading. A copy takes every transition of
   * its PLC; readings kept as objects until their alarm's next transition lived just long enough to be promoted,
   * and filled the collector's old generation. They are parsed again when asked for (lists, acknowledgements).
   */
  #bySeq = new Map<string, number>();
  #byValue = new Map<string, AlarmReading>();
  /** At most the smallest number in #bySeq (deleted ones leave it behind until the next look). */
  #oldestRef = Infinity;
  #outstanding: AlarmReading[] | undefined = [];

  /** `onRejected`: each entry that is not one the holder writes; it is left out, and the copy moves past it. */
  constructor(capacity: number, now: number, onRejected: RejectedEntry = () => undefined) {
    this.#capacity = capacity;
    this.#onRejected = onRejected;
    this.#journal = new EntryRing(capacity, Math.floor(now) * 1000);
  }

  get epoch(): number | undefined {
    return this.#epoch;
  }

  /** Replaces everything with the stored journal (its entries of another epoch than its own are rejected). */
  load(stored: StoredJournal, now: number): void {
    this.#epoch = stored.epoch;
    this.#journal = new EntryRing(this.#capacity, stored.epoch ?? Math.floor(now) * 1000);
    for (const shared of stored.entries)
      if (shared.seq > this.#journal.newest()) this.#journal.follow(shared.seq, this.#checkedText(shared));
    this.#bySeq = new Map();
    this.#byValue = new Map(stored.outstanding.map((r) => [r.key, r]));
    this.#oldestRef = Infinity;
    this.#outstanding = undefined;
  }

  /**
   * Takes the stream's new entries; answers those not held yet (in order), or undefined when an entry belongs
   * to another epoch (the journal restarted: load it again). `foreign` 'reject': Redis still holds this copy's
   * epoch, so an entry of another one is not the holder's and is rejected.
   */
  take(shared: readonly SharedEntry[], foreign: 'reload' | 'reject' = 'reload'): JournalEntry[] | undefined {
    // Looked for first, so that nothing is taken (and never announced) when the answer is undefined. An entry
    // without a readable epoch is rejected in this one rather than reloading for it forever.
    if (foreign === 'reload' && shared.some((e) => e.fault === undefined && e.epoch !== this.#epoch))
      return undefined;
    const taken: JournalEntry[] = [];
    for (const item of shared) {
      const { seq, text } = item;
      if (seq <= this.#journal.newest()) continue;
      this.#keepReadingsBefore(this.#journal.oldestAfter(seq));
      const entry = checked(item, this.#epoch);
      if ('rejected' in entry) {
        this.#journal.follow(seq, rejectedText);
        this.#onRejected(seq, entry.rejected, text);
        continue;
      }
      this.#journal.follow(seq, text);
      taken.push(entry);
      this.#apply(entry);
      this.#outstanding = undefined;
    }
    return taken;
  }

  /** The text a ring keeps of `shared`: its own, or (reported) the rejected mark. */
  #checkedText(shared: SharedEntry): string {
    const entry = checked(shared, this.#epoch);
    if (!('rejected' in entry)) return shared.text;
    this.#onRejected(shared.seq, entry.rejected, shared.text);
    return rejectedText;
  }

  #apply(entry: JournalEntry): void {
    const { seq, reading } = entry;
    this.#byValue.delete(reading.key);
    if (leavesOutstanding(entry)) {
      this.#bySeq.delete(reading.key);
      return;
    }
    this.#bySeq.set(reading.key, seq);
    this.#oldestRef = Math.min(this.#oldestRef, seq);
  }

  /** Readings whose entries are about to leave the ring (the oldest one, or all past a gap) are kept as readings. */
  #keepReadingsBefore(oldest: number): void {
    if (this.#oldestRef >= oldest) return;
    let min = Infinity;
    for (const [key, seq] of this.#bySeq) {
      const entry = seq < oldest ? this.#journal.entry(seq) : undefined;
      if (entry === undefined) min = Math.min(min, seq);
      else {
        this.#byValue.set(key, entry.reading);
        this.#bySeq.delete(key);
      }
    }
    this.#oldestRef = min;
  }

  /** Whether `entry` belongs to this copy's epoch and entries between this copy's newest and it are missing. */
  missesBefore({ epoch, seq }: SharedEntry): boolean {
    return epoch === this.#epoch && seq > this.#journal.newest() + 1;
  }

  /** Outstanding alarms in slot order, as the holder's snapshot lists them. */
  outstanding(): readonly AlarmReading[] {
    this.#outstanding ??= [...this.#bySeq.keys(), ...this.#byValue.keys()]
      .map((key) => this.reading(key))
      .filter((r) => r !== undefined)
      .sort((a, b) => a.slotIndex - b.slotIndex);
    return this.#outstanding;
  }

  reading(key: string): AlarmReading | undefined {
    const seq = this.#bySeq.get(key);
    return seq === undefined ? this.#byValue.get(key) : this.#journal.entry(seq)?.reading;
  }

  readSince(after: number | undefined, limit: number): JournalPage {
    return pageOf(after, this.#journal.newest(), this.#journal.since(after, limit));
  }

  /** 0 until the journal starts: below every seq it hands out, so clients here are sent its first entries. */
  newest(): number {
    return this.#epoch === undefined ? 0 : this.#journal.newest();
  }

  /** Every entry since the journal started, when this copy holds all of them and they explain the whole list. */
  sinceStart(): JournalEntry[] | undefined {
    if (this.#epoch === undefined || !this.#journal.holdsAfter(this.#epoch)) return undefined;
    const { entries } = this.readSince(undefined, this.#capacity);
    return entries.length > 0 || this.#bySeq.size + this.#byValue.size === 0 ? [...entries] : undefined;
  }

  /** Undefined until the journal starts (nothing happened on the PLC yet, or this copy has not loaded it). */
  heldSince(): number | undefined {
    return this.#epoch === undefined ? undefined : this.#journal.heldSince();
  }

  /**
   * Also true for a cursor a little ahead of this copy within the epoch: a client resuming here may have seen,
   * on the replica it came from, entries this copy has not taken yet; it is sent only what follows its cursor.
   */
  holdsAfter(seq: number): boolean {
    if (this.#journal.holdsAfter(seq)) return true;
    const newest = this.#journal.newest();
    return this.#epoch !== undefined && seq > newest && seq <= newest + this.#capacity;
  }
}
