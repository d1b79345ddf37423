// Where audit records are kept: the store contract (append assigns the sequence number, list pages oldest
// first) and the in-process rings. A shared store (Redis) implements the same contract for several replicas.
// Changes and refusals are kept apart, each bounded on its own: a flood of refused requests (a viewer token
// hammering write routes) can push out older refusals, never a change that was made.

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
  | 'alarm.shelve'
  | 'alarm.unshelve'
  | 'alarm.out-of-service'
  | 'alarm.return-to-service'
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
  /** The PLC as configured (whatever case the caller typed); null for operations that name no PLC. */
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

/**
 * Which ring a record is kept in: `changes` (operations carried out or attempted on a PLC, whatever their outcome)
 * or `refusals` (requests the gateway refused without acting: 4xx and 501).
 */
export type AuditRing = 'changes' | 'refusals';

export const auditRings: readonly AuditRing[] = ['changes', 'refusals'];

export interface AuditQuery {
  /** Only records with a larger seq (0: from the oldest kept). */
  after: number;
  limit: number;
  /** Only records of this PLC (matched ignoring case). */
  plcId?: string;
  /** Only records whose plcId is in this set (lower case); PLC-less records are left out. Absent: every record. */
  plcs?: ReadonlySet<string>;
  /** Only one ring; absent: both, merged by seq. */
  ring?: AuditRing;
}

export interface AuditPage {
  /** Oldest first. */
  items: AuditRecord[];
  /** The cursor for the next page: the last seq examined (never less than `after`). */
  nextAfter: number;
}

export interface AuditStore {
  append(entry: AuditEntry, ring: AuditRing): Promise<AuditRecord>;
  list(query: AuditQuery): Promise<AuditPage>;
}

/** Ring capacities: `Audit.Length` and `Audit.RefusalLength`. */
export type AuditCapacities = Readonly<Record<AuditRing, number>>;

/** Whether `record` passes the query's PLC filters. */
export function matchesAuditQuery(record: AuditRecord, query: AuditQuery): boolean {
  const plcId = record.plcId?.toLowerCase() ?? null;
  if (query.plcId !== undefined && plcId !== query.plcId.toLowerCase()) return false;
  if (query.plcs !== undefined && (plcId === null || !query.plcs.has(plcId))) return false;
  return true;
}

/** A place in a ring whose content was not an audit record (a shared store's entry that failed its check). */
export interface DroppedAuditRecord {
  readonly seq: number;
  readonly dropped: true;
}

/** The records after a cursor, oldest first, in batches: one ring, or two merged by seq. */
export interface AuditSource {
  /** Up to `count` records with a larger seq than `after`, ascending; fewer only when there are no more. */
  read(after: number, count: number): Promise<Array<AuditRecord | DroppedAuditRecord>>;
}

/**
 * Pages through the sources merged by seq, filtering: a source's batch that came back full bounds what may be
 * taken from the others (it may hold more below their records), so every record is seen once, in order.
 */
export async function pageAudit(
  sources: readonly AuditSource[],
  query: AuditQuery,
  batch: number,
): Promise<AuditPage> {
  const items: AuditRecord[] = [];
  let cursor = query.after;
  for (;;) {
    const filtered = query.plcId !== undefined || query.plcs !== undefined;
    const count = filtered ? batch : query.limit - items.length;
    const batches = await Promise.all(sources.map((s) => s.read(cursor, count)));
    let bound = Infinity;
    for (const b of batches) if (b.length === count) bound = Math.min(bound, b.at(-1)?.seq ?? Infinity);
    const merged = batches
      .flat()
      .filter((r) => r.seq <= bound)
      .sort((a, b) => a.seq - b.seq);
    for (const record of merged) {
      cursor = record.seq;
      if ('dropped' in record) continue;
      if (matchesAuditQuery(record, query)) items.push(record);
      if (items.length === query.limit) return { items, nextAfter: cursor };
    }
    if (bound === Infinity) return { items, nextAfter: Math.max(query.after, cursor) };
  }
}

/** The newest `capacity` records in memory, in seq order; older ones are overwritten. */
class MemoryRing implements AuditSource {
  readonly #capacity: number;
  readonly #ring: AuditRecord[] = [];
  /** Index of the oldest record once the ring is full. */
  #head = 0;

  constructor(capacity: number) {
    if (!Number.isSafeInteger(capacity) || capacity < 1) throw new RangeError('capacity must be >= 1');
    this.#capacity = capacity;
  }

  push(record: AuditRecord): void {
    if (this.#ring.length < this.#capacity) this.#ring.push(record);
    else {
      this.#ring[this.#head] = record;
      this.#head = (this.#head + 1) % this.#capacity;
    }
  }

  read(after: number, count: number): Promise<AuditRecord[]> {
    // Sequence numbers increase along the ring (with gaps where the other ring took one): a binary search.
    let low = 0;
    let high = this.#ring.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (this.#at(mid).seq <= after) low = mid + 1;
      else high = mid;
    }
    const records: AuditRecord[] = [];
    for (let i = low; i < this.#ring.length && records.length < count; i++) records.push(this.#at(i));
    return Promise.resolve(records);
  }

  #at(i: number): AuditRecord {
    return this.#ring[(this.#head + i) % this.#capacity] as AuditRecord;
  }
}

/** Both rings in memory, one sequence over both. */
export class MemoryAuditStore implements AuditStore {
  readonly #rings: Readonly<Record<AuditRing, MemoryRing>>;
  #seq = 0;

  /** A number: both rings that long. */
  constructor(capacity: number | AuditCapacities) {
    const sizes = typeof capacity === 'number' ? { changes: capacity, refusals: capacity } : capacity;
    this.#rings = { changes: new MemoryRing(sizes.changes), refusals: new MemoryRing(sizes.refusals) };
  }

  append(entry: AuditEntry, ring: AuditRing): Promise<AuditRecord> {
    const record: AuditRecord = { seq: ++this.#seq, ...entry };
    this.#rings[ring].push(record);
    return Promise.resolve(record);
  }

  list(query: AuditQuery): Promise<AuditPage> {
    const sources =
      query.ring === undefined ? auditRings.map((r) => this.#rings[r]) : [this.#rings[query.ring]];
    // In memory a batch costs nothing to read: one pass over what is kept.
    return pageAudit(sources, query, 1000);
  }
}
