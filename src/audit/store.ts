// Where audit records are kept: the store contract (append assigns the sequence number, list pages oldest
// first) and the in-process ring. A shared store (Redis) implements the same contract for several replicas.

/** The state-changing operations the gateway audits. */
export type AuditAction =
  | 'variable.write'
  | 'method.invoke'
  | 'file.write'
  | 'lifecycle.start'
  | 'lifecycle.stop'
  | 'lifecycle.reset'
  | 'sim.step'
  | 'sim.run'
  | 'sim.pause'
  | 'sim.reset'
  | 'alarm.acknowledge'
  | 'connection.terminate'
  | 'ethercat.reset-error-counters';

export interface AuditError {
  code: string;
  message: string;
}

/** One audited request: who did what to which PLC, and how it ended. */
export interface AuditRecord {
  /** Increasing, never reused; the paging cursor. */
  seq: number;
  /** ISO 8601 UTC. */
  at: string;
  /** The caller's JWT `sub`. */
  sub: string;
  /** null for operations that name no PLC. */
  plcId: string | null;
  action: AuditAction;
  /** The variable path, method, file, state or connection acted on. */
  target: string;
  result: 'ok' | 'error';
  error?: AuditError;
  oldValue?: unknown;
  newValue?: unknown;
}

export type AuditEntry = Omit<AuditRecord, 'seq'>;

export interface AuditQuery {
  /** Only records with a larger seq (0: from the oldest kept). */
  after: number;
  limit: number;
  plcId?: string;
}

export interface AuditPage {
  /** Oldest first. */
  items: AuditRecord[];
  /** The cursor for the next page: the last seq examined (never less than `after`). */
  nextAfter: number;
}

export interface AuditStore {
  append(entry: AuditEntry): Promise<AuditRecord>;
  list(query: AuditQuery): Promise<AuditPage>;
}

/** The newest `capacity` records in memory; older ones are overwritten. */
export class MemoryAuditStore implements AuditStore {
  readonly #capacity: number;
  readonly #ring: AuditRecord[] = [];
  /** Index of the oldest record once the ring is full. */
  #head = 0;
  #seq = 0;

  constructor(capacity: number) {
    if (!Number.isSafeInteger(capacity) || capacity < 1) throw new RangeError('capacity must be >= 1');
    this.#capacity = capacity;
  }

  append(entry: AuditEntry): Promise<AuditRecord> {
    const record: AuditRecord = { seq: ++this.#seq, ...entry };
    if (this.#ring.length < this.#capacity) this.#ring.push(record);
    else {
      this.#ring[this.#head] = record;
      this.#head = (this.#head + 1) % this.#capacity;
    }
    return Promise.resolve(record);
  }

  list(query: AuditQuery): Promise<AuditPage> {
    const items: AuditRecord[] = [];
    const count = this.#ring.length;
    // Sequence numbers are consecutive in the ring, so the first record after the cursor is found by arithmetic.
    const oldestSeq = count === 0 ? this.#seq + 1 : this.#at(0).seq;
    let i = Math.max(0, query.after - oldestSeq + 1);
    for (; i < count && items.length < query.limit; i++) {
      const record = this.#at(i);
      if (query.plcId === undefined || record.plcId === query.plcId) items.push(record);
    }
    // Past the last match, records the filter skipped need not be scanned again by the next page.
    const scanned = i > 0 && i <= count ? this.#at(i - 1).seq : query.after;
    return Promise.resolve({ items, nextAfter: Math.max(query.after, scanned) });
  }

  #at(i: number): AuditRecord {
    return this.#ring[(this.#head + i) % this.#capacity] as AuditRecord;
  }
}
