// The historian on SQLite (better-sqlite3, a file under the content root): synchronous, so every flush is one
// transaction and every delete a bounded chunk, keeping each call on the event loop short.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
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
import { rollupLevels, rollupsOf } from './rollups.ts';
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

  constructor(path: string) {
    this.#path = path;
  }

  get #open(): Database.Database {
    if (!this.#db) throw new Error('The history store is closed.');
    return this.#db;
  }

  open(): Promise<void> {
    return settle(() => {
      mkdirSync(dirname(this.#path), { recursive: true });
      const db = new Database(this.#path);
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      db.exec(sql.schemaSql(d));
      this.#db = db;
    });
  }

  close(): Promise<void> {
    return settle(() => {
      this.#db?.close();
      this.#db = undefined;
    });
  }

  series(
    plcId: string,
    symbol: string,
    kind: ValueKind,
    typeName: string,
    settings: string,
  ): Promise<number> {
    return settle(() => {
      const row = this.#open
        .prepare(forSqlite(sql.upsertSeriesSql(d)))
        .get(params(plcId, symbol, kind, typeName, settings)) as { id: number };
      return row.id;
    });
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

  write(batch: WriteBatch): Promise<void> {
    return settle(() => {
      const db = this.#open;
      const sample = db.prepare('INSERT INTO samples (series, t, num, int, txt) VALUES (?, ?, ?, ?, ?)');
      const gap = db.prepare(forSqlite(sql.insertGapSql(d)));
      const close = db.prepare(forSqlite(sql.closeGapSql(d)));
      const rollups = rollupLevels.map((level) => ({
        level,
        upsert: db.prepare(
          `INSERT INTO ${sql.rollupTable(d, level)} AS r (series, t, mn, mx, c, tf, f, tl, l)
           VALUES (@series, @t, @mn, @mx, @c, @tf, @f, @tl, @l) ${sql.rollupConflictSql(d)}`,
        ),
      }));
      const alarm = db.prepare(forSqlite(sql.insertAlarmSql(d)));
      db.transaction(() => {
        for (const s of batch.samples) sample.run(s.series, s.t, s.num, s.int, s.txt);
        for (const { level, upsert } of rollups) {
          for (const r of rollupsOf(batch.samples, level)) upsert.run(r);
        }
        for (const c of batch.closeGaps) close.run(params(c.at, c.plcId));
        for (const g of batch.gaps) gap.run(params(g.plcId, g.from, g.to, g.reason));
        for (const a of batch.alarms) alarm.run(params(a.plcId, a.seq, a.at, a.entry));
      })();
    });
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
    return settle(() => {
      const db = this.#open;
      const deleted = db.prepare(forSqlite(sql.deleteSamplesSql(d))).run(params(before, limit)).changes;
      if (deleted < limit) {
        for (const statement of sql.deleteRestSql(d)) db.prepare(forSqlite(statement)).run(params(before));
      }
      return deleted;
    });
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
