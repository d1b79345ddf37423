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
  ValueKind,
  WriteBatch,
} from './types.ts';
import { rollupMs, rollupsOf } from './rollups.ts';

const schema = `
CREATE TABLE IF NOT EXISTS series (
  id INTEGER PRIMARY KEY,
  plc_id TEXT NOT NULL,
  symbol TEXT NOT NULL,
  kind TEXT NOT NULL,
  type_name TEXT NOT NULL,
  settings TEXT NOT NULL,
  UNIQUE (plc_id, symbol)
);
CREATE TABLE IF NOT EXISTS samples (
  series INTEGER NOT NULL,
  t INTEGER NOT NULL,
  num REAL,
  int INTEGER,
  txt TEXT
);
CREATE INDEX IF NOT EXISTS samples_series_t ON samples (series, t);
CREATE INDEX IF NOT EXISTS samples_t ON samples (t);
CREATE TABLE IF NOT EXISTS rollups (
  series INTEGER NOT NULL,
  t INTEGER NOT NULL,
  mn REAL NOT NULL,
  mx REAL NOT NULL,
  c INTEGER NOT NULL,
  tf INTEGER NOT NULL,
  f REAL NOT NULL,
  tl INTEGER NOT NULL,
  l REAL NOT NULL,
  PRIMARY KEY (series, t)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS gaps (
  id INTEGER PRIMARY KEY,
  plc_id TEXT NOT NULL,
  t_from INTEGER NOT NULL,
  t_to INTEGER,
  reason TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS gaps_plc ON gaps (plc_id, t_from);
CREATE TABLE IF NOT EXISTS alarm_events (
  plc_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  at INTEGER NOT NULL,
  entry TEXT NOT NULL,
  PRIMARY KEY (plc_id, seq)
);
CREATE INDEX IF NOT EXISTS alarm_events_at ON alarm_events (plc_id, at);
`;

const column = (kind: ValueKind): 'num' | 'int' | 'txt' =>
  kind === 'number' ? 'num' : kind === 'string' ? 'txt' : 'int';

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
      db.exec(schema);
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
        .prepare(
          `INSERT INTO series (plc_id, symbol, kind, type_name, settings) VALUES (?, ?, ?, ?, ?)
           ON CONFLICT (plc_id, symbol) DO UPDATE SET kind = excluded.kind, type_name = excluded.type_name,
             settings = excluded.settings
           RETURNING id`,
        )
        .get(plcId, symbol, kind, typeName, settings) as { id: number };
      return row.id;
    });
  }

  listSeries(plcId: string): Promise<SeriesInfo[]> {
    return settle(() => {
      const rows = this.#open
        .prepare(
          `SELECT id, plc_id, symbol, kind, type_name, settings,
             (SELECT MIN(t) FROM samples WHERE series = s.id) AS first,
             (SELECT MAX(t) FROM samples WHERE series = s.id) AS last
           FROM series s WHERE plc_id = ? ORDER BY symbol`,
        )
        .all(plcId) as Array<{
        id: number;
        plc_id: string;
        symbol: string;
        kind: ValueKind;
        type_name: string;
        settings: string;
        first: number | null;
        last: number | null;
      }>;
      return rows.map((r) => ({
        id: r.id,
        plcId: r.plc_id,
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
      const gap = db.prepare('INSERT INTO gaps (plc_id, t_from, t_to, reason) VALUES (?, ?, ?, ?)');
      const close = db.prepare('UPDATE gaps SET t_to = ? WHERE plc_id = ? AND t_to IS NULL');
      const rollup = db.prepare(
        `INSERT INTO rollups (series, t, mn, mx, c, tf, f, tl, l)
         VALUES (@series, @t, @mn, @mx, @c, @tf, @f, @tl, @l)
         ON CONFLICT (series, t) DO UPDATE SET mn = MIN(mn, excluded.mn), mx = MAX(mx, excluded.mx),
           c = c + excluded.c,
           f = CASE WHEN excluded.tf < tf THEN excluded.f ELSE f END, tf = MIN(tf, excluded.tf),
           l = CASE WHEN excluded.tl >= tl THEN excluded.l ELSE l END, tl = MAX(tl, excluded.tl)`,
      );
      const alarm = db.prepare(
        'INSERT INTO alarm_events (plc_id, seq, at, entry) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING',
      );
      db.transaction(() => {
        for (const s of batch.samples) sample.run(s.series, s.t, s.num, s.int, s.txt);
        for (const r of rollupsOf(batch.samples)) rollup.run(r);
        for (const c of batch.closeGaps) close.run(c.at, c.plcId);
        for (const g of batch.gaps) gap.run(g.plcId, g.from, g.to, g.reason);
        for (const a of batch.alarms) alarm.run(a.plcId, a.seq, a.at, a.entry);
      })();
    });
  }

  buckets(
    series: number,
    kind: ValueKind,
    origin: number,
    from: number,
    to: number,
    width: number,
  ): Promise<BucketRow[]> {
    return settle(() => {
      const x = column(kind);
      const rows = this.#open
        .prepare(
          `WITH g AS (
             SELECT CAST((t - @origin) / @width AS INTEGER) AS b, MIN(${x}) AS mn, MAX(${x}) AS mx, COUNT(*) AS c,
               MIN(t) AS t0, MAX(t) AS t1
             FROM samples WHERE series = @series AND t >= @from AND t < @to GROUP BY b
           )
           SELECT b, mn, mx, c,
             (SELECT ${x} FROM samples WHERE series = @series AND t = g.t0 ORDER BY rowid LIMIT 1) AS f,
             (SELECT ${x} FROM samples WHERE series = @series AND t = g.t1 ORDER BY rowid DESC LIMIT 1) AS l
           FROM g ORDER BY b`,
        )
        .safeIntegers(kind !== 'number')
        .all({ series, origin, from, to, width }) as BucketSql[];
      return rows.map((r) => ({
        t: origin + Number(r.b) * width,
        min: r.mn,
        max: r.mx,
        first: r.f,
        last: r.l,
        count: Number(r.c),
      }));
    });
  }

  rollupBuckets(
    series: number,
    origin: number,
    from: number,
    to: number,
    width: number,
  ): Promise<BucketRow[]> {
    return settle(() => {
      const rows = this.#open
        .prepare(
          `WITH g AS (
             SELECT CAST((t - @origin) / @width AS INTEGER) AS b, MIN(mn) AS mn, MAX(mx) AS mx, SUM(c) AS c,
               MIN(t) AS t0, MAX(t) AS t1
             FROM rollups WHERE series = @series AND t >= @from AND t < @to GROUP BY b
           )
           SELECT b, mn, mx, c,
             (SELECT f FROM rollups WHERE series = @series AND t = g.t0) AS f,
             (SELECT l FROM rollups WHERE series = @series AND t = g.t1) AS l
           FROM g ORDER BY b`,
        )
        .all({ series, origin, from, to, width }) as BucketSql[];
      return rows.map((r) => ({
        t: origin + Number(r.b) * width,
        min: r.mn,
        max: r.mx,
        first: r.f,
        last: r.l,
        count: Number(r.c),
      }));
    });
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
        .prepare(
          `SELECT rowid AS id, t, num, int, txt FROM samples
           WHERE series = @series AND t >= @from AND t < @to AND (t > @at OR (t = @at AND rowid > @id))
           ORDER BY t, rowid LIMIT @limit`,
        )
        .safeIntegers(true)
        .all({ series, from, to, at: after?.t ?? from - 1, id: after?.id ?? 0, limit }) as Array<{
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
      const rows = this.#open
        .prepare(
          `SELECT t_from, t_to, reason FROM gaps
           WHERE plc_id = ? AND t_from < ? AND (t_to IS NULL OR t_to >= ?) ORDER BY t_from`,
        )
        .all(plcId, to, from) as Array<{ t_from: number; t_to: number | null; reason: GapRecord['reason'] }>;
      return rows.map((r) => ({ plcId, from: r.t_from, to: r.t_to, reason: r.reason }));
    });
  }

  alarms(plcId: string, from: number, to: number, after: number, limit: number): Promise<AlarmRecord[]> {
    return settle(() => {
      const rows = this.#open
        .prepare(
          `SELECT seq, at, entry FROM alarm_events
           WHERE plc_id = ? AND at >= ? AND at < ? AND seq > ? ORDER BY seq LIMIT ?`,
        )
        .all(plcId, from, to, after, limit) as Array<{ seq: number; at: number; entry: string }>;
      return rows.map((r) => ({ plcId, seq: r.seq, at: r.at, entry: r.entry }));
    });
  }

  deleteBefore(before: number, limit: number): Promise<number> {
    return settle(() => {
      const db = this.#open;
      const deleted = db
        .prepare('DELETE FROM samples WHERE rowid IN (SELECT rowid FROM samples WHERE t < ? LIMIT ?)')
        .run(before, limit).changes;
      if (deleted < limit) {
        db.prepare('DELETE FROM rollups WHERE t + ? <= ?').run(rollupMs, before);
        db.prepare('DELETE FROM gaps WHERE t_to IS NOT NULL AND t_to < ?').run(before);
        db.prepare('DELETE FROM alarm_events WHERE at < ?').run(before);
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
