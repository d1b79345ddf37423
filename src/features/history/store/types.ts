// The historian's store port: what the recorder writes and the queries read, implemented on SQLite and PostgreSQL.

/** How a series' values are kept: doubles, exact 64-bit integers (signed or not), BOOL, or text. */
export type ValueKind = 'number' | 'int64' | 'uint64' | 'bool' | 'string';

/** One sample as stored: `num` for numbers, `int` for 64-bit integers and BOOL, `txt` for strings. */
export interface StoredSample {
  readonly series: number;
  /** PLC notification time, Unix milliseconds. */
  readonly t: number;
  readonly num: number | null;
  /** Exact; for uint64 offset by -2^63 so the stored order is the numeric order. */
  readonly int: bigint | null;
  readonly txt: string | null;
}

/** An interval without samples of a PLC: it was unreachable, or samples were dropped. */
export interface GapRecord {
  readonly plcId: string;
  readonly from: number;
  /** null while the gap is still open (the PLC is still down). */
  readonly to: number | null;
  readonly reason: 'unreachable' | 'overflow';
}

/** One alarm transition as stored; `entry` is the journal entry's JSON. */
export interface AlarmRecord {
  readonly plcId: string;
  readonly seq: number;
  readonly at: number;
  readonly entry: string;
}

/** What one flush writes, in one transaction. */
export interface WriteBatch {
  readonly samples: readonly StoredSample[];
  /** Gaps to add; `open` ones are closed later by closeGaps. */
  readonly gaps: readonly GapRecord[];
  /** plcIds whose open gap ends, with the time it ended. */
  readonly closeGaps: ReadonlyArray<{ readonly plcId: string; readonly at: number }>;
  readonly alarms: readonly AlarmRecord[];
}

export interface SeriesInfo {
  readonly id: number;
  readonly plcId: string;
  readonly symbol: string;
  readonly kind: ValueKind;
  readonly typeName: string;
  /** The settings entry that recorded it, as JSON. */
  readonly settings: string;
  readonly first: number | null;
  readonly last: number | null;
}

/** One bucket of a number series; values are numbers, or decimal strings for 64-bit integers. */
export interface BucketRow {
  readonly t: number;
  readonly min: number | bigint;
  readonly max: number | bigint;
  readonly first: number | bigint;
  readonly last: number | bigint;
  readonly count: number;
}

/** Buckets of `width` ms counted from `origin` (<= from) over the samples in [from, to) of `series`. */
export interface BucketSpan {
  readonly series: number;
  readonly origin: number;
  readonly from: number;
  readonly to: number;
  readonly width: number;
}

export interface RawRow {
  readonly id: number;
  readonly t: number;
  readonly num: number | null;
  readonly int: bigint | null;
  readonly txt: string | null;
}

export interface HistoryStore {
  readonly kind: 'sqlite' | 'postgres';
  /** Creates the tables when missing. */
  open(): Promise<void>;
  close(): Promise<void>;
  /** The series of a symbol, made on first use; its kind and settings are updated to the current ones. */
  series(plcId: string, symbol: string, kind: ValueKind, typeName: string, settings: string): Promise<number>;
  /** The series of a PLC; first and last sample times only with `times` (else null). */
  listSeries(plcId: string, times?: boolean): Promise<SeriesInfo[]>;
  write(batch: WriteBatch): Promise<void>;
  /** Buckets of the raw samples of a series of `kind`: only buckets holding samples. */
  buckets(kind: ValueKind, span: BucketSpan): Promise<BucketRow[]>;
  /** The same from the rollups of `level` ms of a number series; [from, to) and the buckets on that grid. */
  rollupBuckets(level: number, span: BucketSpan): Promise<BucketRow[]>;
  /** Samples in [from, to) after the cursor (time, then id), oldest first, at most `limit`. */
  raw(
    series: number,
    from: number,
    to: number,
    after: { t: number; id: number } | undefined,
    limit: number,
  ): Promise<RawRow[]>;
  /** Gaps of `plcId` overlapping [from, to). */
  gaps(plcId: string, from: number, to: number): Promise<GapRecord[]>;
  /** Alarm transitions of `plcId` at [from, to) with seq > after, oldest first, at most `limit`. */
  alarms(plcId: string, from: number, to: number, after: number, limit: number): Promise<AlarmRecord[]>;
  /** Deletes at most `limit` samples (then gaps and alarms) older than `before`; answers how many went. */
  deleteBefore(before: number, limit: number): Promise<number>;
  /** Samples held and the bytes the store uses for them (approximate for PostgreSQL). */
  usage(): Promise<{ samples: number; bytes: number }>;
}
