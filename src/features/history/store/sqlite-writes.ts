// What changes the SQLite history file: opening it (WAL, schema), the series upsert, a flush's batch in one
// transaction and a bounded retention chunk. Run by the writer thread (sqlite-worker.ts), so a large flush never
// holds the event loop that serves the gateway's streams and routes.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { rollupLevels, rollupsOf } from './rollups.ts';
import * as sql from './sql.ts';
import type { ValueKind, WriteBatch } from './types.ts';

const d = sql.sqliteDialect;
const { forSqlite, sqliteParams: params } = sql;

/** Opens (and on first use creates) the file: WAL, so the reading connection never waits for the writer. */
export function openSqlite(path: string): Database.Database {
  mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec(sql.schemaSql(d));
  return db;
}

export function upsertSeries(
  db: Database.Database,
  plcId: string,
  symbol: string,
  kind: ValueKind,
  typeName: string,
  settings: string,
): number {
  const row = db
    .prepare(forSqlite(sql.upsertSeriesSql(d)))
    .get(params(plcId, symbol, kind, typeName, settings)) as { id: number };
  return row.id;
}

export function writeBatch(db: Database.Database, batch: WriteBatch): void {
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
}

/** At most `limit` samples older than `before`; then rollups, gaps and alarms once the samples are done. */
export function deleteOld(db: Database.Database, before: number, limit: number): number {
  const deleted = db.prepare(forSqlite(sql.deleteSamplesSql(d))).run(params(before, limit)).changes;
  if (deleted < limit) {
    for (const statement of sql.deleteRestSql(d)) db.prepare(forSqlite(statement)).run(params(before));
  }
  return deleted;
}
