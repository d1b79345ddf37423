// Shelving and out of service (ISA-18.2) of one PLC's alarms: who shelved which alarm until when and why, which
// alarms maintenance took out of service, the journal of those changes, and the expiry of shelves on the
// gateway's clock. The in-process book is here; replicas sharing a Redis use cluster/shared-shelving.ts.
import type { DeadlineClock } from '../../http/streams/token-deadlines.ts';

export interface Shelve {
  /** The sub of the caller who shelved it. */
  readonly by: string;
  /** ISO 8601 UTC. */
  readonly at: string;
  /** ISO 8601 UTC: when the shelve runs out. */
  readonly until: string;
  readonly reason: string;
}

export interface OutOfService {
  readonly by: string;
  readonly at: string;
  readonly reason: string;
}

export type ShelvingAction = 'shelved' | 'unshelved' | 'outOfService' | 'returnedToService';
/** Why a shelve ended: by hand (unshelve), its time ran out, or the alarm's occurrence ended (one-shot). */
export type UnshelveCause = 'byHand' | 'expired' | 'ended';

/** One change of shelving or service state, as journaled and announced. */
export interface ShelvingEntry {
  readonly seq: number;
  /** Gateway time, ISO 8601 UTC. */
  readonly at: string;
  readonly action: ShelvingAction;
  /** The alarm key. */
  readonly code: string;
  /** The caller; absent when the gateway ended a shelve itself (expired, ended). */
  readonly by?: string;
  readonly reason?: string;
  /** shelved: when it runs out. */
  readonly until?: string;
  /** unshelved: why. */
  readonly cause?: UnshelveCause;
}

export type ShelvingChange = Omit<ShelvingEntry, 'seq'>;

export interface ShelvingPage {
  readonly items: readonly ShelvingEntry[];
  readonly nextAfter: number;
}

/** What the alarm service needs of one PLC's shelving state, in one process or shared by replicas. */
export interface ShelvingStore {
  start(): Promise<void>;
  stop(): Promise<void>;
  /** The alarm's shelve while it runs (one whose time ran out is never answered). */
  shelve(key: string): Shelve | undefined;
  outOfService(key: string): OutOfService | undefined;
  /** Whether anything is shelved or out of service. */
  readonly empty: boolean;
  /** Changes whenever what shelve() or outOfService() answer may have changed. */
  version(): number;
  /** Shelves (or shelves again, replacing the shelve) the alarm. */
  putShelve(key: string, shelve: Shelve): Promise<ShelvingEntry>;
  /** Ends the alarm's shelve; undefined when it was not shelved. */
  endShelve(key: string, cause: UnshelveCause, by?: string): Promise<ShelvingEntry | undefined>;
  putOutOfService(key: string, record: OutOfService): Promise<ShelvingEntry>;
  /** Returns the alarm to service; undefined when it was not out of service. */
  returnToService(key: string, by: string): Promise<ShelvingEntry | undefined>;
  /** Every change, once, as it happens (from any replica). */
  onChange(listener: (entry: ShelvingEntry) => void): () => void;
  /** The journal of changes with seq > `after`, oldest first, at most `limit`. */
  journal(after: number | undefined, limit: number): Promise<ShelvingPage>;
}

/** The state and clock work both stores share: maps, expiry timers, the version, listeners. */
export abstract class ShelvingBook {
  protected readonly shelves = new Map<string, Shelve & { readonly untilMs: number }>();
  protected readonly outs = new Map<string, OutOfService>();
  protected readonly clock: DeadlineClock;
  readonly #listeners = new Set<(entry: ShelvingEntry) => void>();
  readonly #timers = new Map<string, () => void>();
  #version = 0;

  constructor(clock: DeadlineClock) {
    this.clock = clock;
  }

  get empty(): boolean {
    return this.shelves.size === 0 && this.outs.size === 0;
  }

  version(): number {
    this.#sweep();
    return this.#version;
  }

  shelve(key: string): Shelve | undefined {
    const s = this.shelves.get(key);
    if (s === undefined) return undefined;
    if (s.untilMs > this.clock.now()) {
      const { by, at, until, reason } = s;
      return { by, at, until, reason };
    }
    this.#sweep();
    return undefined;
  }

  outOfService(key: string): OutOfService | undefined {
    return this.outs.get(key);
  }

  onChange(listener: (entry: ShelvingEntry) => void): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }

  /** Stops every expiry timer. */
  protected stopTimers(): void {
    for (const cancel of this.#timers.values()) cancel();
    this.#timers.clear();
  }

  /** Applies a change to the maps and tells the listeners. */
  protected apply(entry: ShelvingEntry): void {
    const { action, code } = entry;
    if (action === 'shelved' && entry.until !== undefined) {
      const untilMs = Date.parse(entry.until);
      this.shelves.set(code, {
        by: entry.by ?? '',
        at: entry.at,
        until: entry.until,
        reason: entry.reason ?? '',
        untilMs,
      });
      this.#timers.get(code)?.();
      this.#timers.set(
        code,
        this.clock.at(untilMs, () => this.#sweep()),
      );
    } else if (action === 'unshelved') {
      this.#forget(code);
    } else if (action === 'outOfService') {
      this.outs.set(code, { by: entry.by ?? '', at: entry.at, reason: entry.reason ?? '' });
    } else if (action === 'returnedToService') {
      this.outs.delete(code);
    }
    this.#version += 1;
    for (const listener of [...this.#listeners]) listener(entry);
  }

  /** Sets the maps to a whole state read back (a replica's copy reloaded), telling listeners of nothing. */
  protected replace(shelves: ReadonlyMap<string, Shelve>, outs: ReadonlyMap<string, OutOfService>): void {
    this.stopTimers();
    this.shelves.clear();
    this.outs.clear();
    for (const [code, s] of shelves) {
      const untilMs = Date.parse(s.until);
      this.shelves.set(code, { ...s, untilMs });
      this.#timers.set(
        code,
        this.clock.at(untilMs, () => this.#sweep()),
      );
    }
    for (const [code, o] of outs) this.outs.set(code, o);
    this.#version += 1;
  }

  #forget(code: string): void {
    this.shelves.delete(code);
    this.#timers.get(code)?.();
    this.#timers.delete(code);
  }

  /** Shelves whose time ran out leave the maps at once and are handed to expire(), which announces them. */
  #sweep(): void {
    const now = this.clock.now();
    for (const [code, s] of this.shelves) {
      if (s.untilMs > now) continue;
      this.#forget(code);
      this.#version += 1;
      this.expire(code, s);
    }
  }

  /** A shelve ran out (it has left the maps already). */
  protected abstract expire(code: string, shelve: Shelve): void;
}

export interface SavedBook {
  readonly shelved: ReadonlyMap<string, Shelve>;
  readonly outOfService: ReadonlyMap<string, OutOfService>;
}

/** One PLC's part of a state file: what it held at start-up, and how to write what it holds now. */
export interface BookFile {
  readonly saved: SavedBook;
  save(book: SavedBook): void;
}

/** Where a book in one process reports a state it could not write to its file. */
export interface ShelvingLog {
  error(fields: object, message: string): void;
}

/** The shelving book of one PLC in one process, with its journal in a ring, and its state in a file if set. */
export class LocalShelving extends ShelvingBook implements ShelvingStore {
  readonly #ring: ShelvingEntry[] = [];
  readonly #capacity: number;
  readonly #file: BookFile | undefined;
  readonly #log: ShelvingLog | undefined;
  #seq: number;

  constructor(clock: DeadlineClock, capacity: number, file?: { book: BookFile; log: ShelvingLog }) {
    super(clock);
    this.#capacity = capacity;
    this.#file = file?.book;
    this.#log = file?.log;
    // Numbers only grow, also across restarts: they start from the start time in microseconds.
    this.#seq = Math.floor(clock.now()) * 1000;
  }

  /** Takes up the state the file kept; a shelve that ran out meanwhile ends (expired, at its until) at once. */
  start(): Promise<void> {
    if (this.#file !== undefined) {
      this.replace(this.#file.saved.shelved, this.#file.saved.outOfService);
      this.version();
    }
    return Promise.resolve();
  }

  stop(): Promise<void> {
    this.stopTimers();
    return Promise.resolve();
  }

  putShelve(code: string, shelve: Shelve): Promise<ShelvingEntry> {
    return Promise.resolve(this.#record({ action: 'shelved', code, ...shelve }));
  }

  endShelve(code: string, cause: UnshelveCause, by?: string): Promise<ShelvingEntry | undefined> {
    if (!this.shelves.has(code)) return Promise.resolve(undefined);
    return Promise.resolve(this.#record(unshelved(this.clock.now(), code, cause, by)));
  }

  putOutOfService(code: string, record: OutOfService): Promise<ShelvingEntry> {
    return Promise.resolve(this.#record({ action: 'outOfService', code, ...record }));
  }

  returnToService(code: string, by: string): Promise<ShelvingEntry | undefined> {
    if (!this.outs.has(code)) return Promise.resolve(undefined);
    const at = new Date(this.clock.now()).toISOString();
    return Promise.resolve(this.#record({ at, action: 'returnedToService', code, by }));
  }

  journal(after: number | undefined, limit: number): Promise<ShelvingPage> {
    const items = this.#ring.filter((e) => after === undefined || e.seq > after).slice(0, limit);
    return Promise.resolve({
      items,
      nextAfter: items.at(-1)?.seq ?? Math.min(after ?? this.#seq, this.#seq),
    });
  }

  protected expire(code: string, shelve: Shelve): void {
    // Journaled at the instant it ran out, not when the clock was next looked at.
    this.#record({ ...unshelved(Date.parse(shelve.until), code, 'expired'), code });
  }

  #record(change: ShelvingChange): ShelvingEntry {
    this.#seq += 1;
    const entry: ShelvingEntry = { seq: this.#seq, ...change };
    this.#ring.push(entry);
    if (this.#ring.length > this.#capacity) this.#ring.shift();
    this.apply(entry);
    this.#save();
    return entry;
  }

  #save(): void {
    if (this.#file === undefined) return;
    const shelved = new Map<string, Shelve>();
    for (const [code, { by, at, until, reason }] of this.shelves)
      shelved.set(code, { by, at, until, reason });
    try {
      this.#file.save({ shelved, outOfService: this.outs });
    } catch (err) {
      // Kept in memory: it holds until a restart, and the next change tries the file again.
      this.#log?.error({ err: (err as Error).message }, 'alarm shelving state not written to its file');
    }
  }
}

/** The `unshelved` change of `code` at `atMs`. */
export function unshelved(atMs: number, code: string, cause: UnshelveCause, by?: string): ShelvingChange {
  return {
    at: new Date(atMs).toISOString(),
    action: 'unshelved',
    code,
    ...(by === undefined ? {} : { by }),
    cause,
  };
}
