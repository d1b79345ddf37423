// The historian on SQLite (better-sqlite3, a file under the content root, WAL): queries read on the event loop
// through their own connection; everything that writes (series, each flush as one transaction, retention chunks)
// runs on a writer thread, so a large flush or a slow disk never holds the loop that serves streams and routes.
import type Database from 'better-sqlite3';
import type {
  AlarmRecord,
  BucketRow,
  GapRecord,
  HistoryStore,
  RawRow,
  SeriesInfo,
  BucketSpan,
  ValueKind,
  WriteBatch,
} from './types.ts';
import { openSqlite } from './sqlite-writes.ts';
import { SqliteWriterThread } from './sqlite-writer.ts';
import * as sql from './sql.ts';

const d = sql.sqliteDialect;
const { forSqlite, sqliteParams: params } = sql;

/** Runs a synchronous store call as the port's promise: a throw becomes a rejection. */
function settle<T>(work: () => T): Promise<T> {
  try {
    return Promise.resolve(work());
  } catch (err) {
    return Promise.reject(err instanceof Error ? err : new Error(String(err)));
  }
}

interface BucketSql {
  b: bigint;
  mn: number | bigint;
  mx: number | bigint;
  c: bigint;
  f: number | bigint;
  l: number | bigint;
}

export class SqliteHistoryStore implements HistoryStore {
  readonly kind = 'sqlite';
  readonly #path: string;
  #db: Database.Database | undefined;
  #writer: SqliteWriterThread | undefined;

  constructor(path: string) {
    this.#path = path;
  }

  get #open(): Database.Database {
    if (!this.#db) throw new Error('The history store is closed.');
    return this.#db;
  }

  async open(): Promise<void> {
    // The schema first (here), then the writer thread's own connection.
    this.#db = openSqlite(this.#path);
    this.#writer = new SqliteWriterThread(this.#path);
    await this.#writer.start();
  }

  async close(): Promise<void> {
    await this.#writer?.stop();
    this.#writer = undefined;
    this.#db?.close();
    this.#db = undefined;
  }

  get #writes(): SqliteWriterThread {
    if (!this.#writer) throw new Error('The history store is closed.');
    return this.#writer;
  }

  series(
    plcId: string,
    symbol: string,
    kind: ValueKind,
    typeName: string,
    settings: string,
  ): Promise<number> {
    return this.#writes.call({ op: 'series', args: [plcId, symbol, kind, typeName, settings] });
  }

  listSeries(plcId: string, times = true): Promise<SeriesInfo[]> {
    return settle(() => {
      const rows = this.#open.prepare(forSqlite(sql.listSeriesSql(d, times))).all(params(plcId)) as Array<{
        id: number;
        symbol: string;
        kind: ValueKind;
        type_name: string;
        settings: string;
        first: number | null;
        last: number | null;
      }>;
      return rows.map((r) => ({
        id: r.id,
        plcId,
        symbol: r.symbol,
        kind: r.kind,
        typeName: r.type_name,
        settings: r.settings,
        first: r.first,
        last: r.last,
      }));
    });
  }

  async write(batch: WriteBatch): Promise<void> {
    await this.#writes.call({ op: 'write', batch });
  }

  buckets(kind: ValueKind, span: BucketSpan): Promise<BucketRow[]> {
    return settle(() => this.#buckets(sql.sampleBucketsSql(d, kind), kind !== 'number', span));
  }

  rollupBuckets(level: number, span: BucketSpan): Promise<BucketRow[]> {
    return settle(() => this.#buckets(sql.rollupBucketsSql(d, level), false, span));
  }

  /** Bucket numbers in integer math: origin and width are bound as 64-bit integers, not doubles. */
  #buckets(statement: string, exact: boolean, { series, origin, from, to, width }: BucketSpan): BucketRow[] {
    const rows = this.#open
      .prepare(forSqlite(statement))
      .safeIntegers(exact)
      .all(params(series, from, to, BigInt(width), BigInt(origin))) as BucketSql[];
    return rows.map((r) => ({
      t: origin + Number(r.b) * width,
      min: r.mn,
      max: r.mx,
      first: r.f,
      last: r.l,
      count: Number(r.c),
    }));
  }

  raw(
    series: number,
    from: number,
    to: number,
    after: { t: number; id: number } | undefined,
    limit: number,
  ): Promise<RawRow[]> {
    return settle(() => {
      const rows = this.#open
        .prepare(forSqlite(sql.rawSql(d)))
        .safeIntegers(true)
        .all(params(series, from, to, after?.t ?? from - 1, after?.id ?? 0, limit)) as Array<{
        id: bigint;
        t: bigint;
        num: number | null;
        int: bigint | null;
        txt: string | null;
      }>;
      return rows.map((r) => ({ id: Number(r.id), t: Number(r.t), num: r.num, int: r.int, txt: r.txt }));
    });
  }

  gaps(plcId: string, from: number, to: number): Promise<GapRecord[]> {
    return settle(() => {
      const rows = this.#open.prepare(forSqlite(sql.gapsSql(d))).all(params(plcId, to, from)) as Array<{
        t_from: number;
        t_to: number | null;
        reason: GapRecord['reason'];
      }>;
      return rows.map((r) => ({ plcId, from: r.t_from, to: r.t_to, reason: r.reason }));
    });
  }

  alarms(plcId: string, from: number, to: number, after: number, limit: number): Promise<AlarmRecord[]> {
    return settle(() => {
      const rows = this.#open
        .prepare(forSqlite(sql.alarmsSql(d)))
        .all(params(plcId, from, to, after, limit)) as Array<{ seq: number; at: number; entry: string }>;
      return rows.map((r) => ({ plcId, seq: r.seq, at: r.at, entry: r.entry }));
    });
  }

  deleteBefore(before: number, limit: number): Promise<number> {
    return this.#writes.call({ op: 'deleteBefore', before, limit });
  }

  usage(): Promise<{ samples: number; bytes: number }> {
    return settle(() => {
      const db = this.#open;
      const { n } = db.prepare('SELECT COUNT(*) AS n FROM samples').get() as { n: number };
      const pages = db.pragma('page_count', { simple: true }) as number;
      const size = db.pragma('page_size', { simple: true }) as number;
      const free = db.pragma('freelist_count', { simple: true }) as number;
      return { samples: n, bytes: (pages - free) * size };
    });
  }
}
