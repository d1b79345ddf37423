// The SQL both history stores run, written once: the tables, the series upsert and listing, buckets over samples or
// rollups, raw pages, gaps, alarm windows and retention. The dialects differ only in table names, column types,
// the row key and placeholder style; every statement is written with PostgreSQL's `$n`, SQLite's form is derived.
import { rollupLevels } from './rollups.ts';
import type { ValueKind } from './types.ts';

export interface Dialect {
  /** Prefix of every table (PostgreSQL: the database may be shared with other applications). */
  readonly prefix: '' | 'history_';
  /** The key that orders two samples of one series at the same time (insertion order). */
  readonly rowKey: 'rowid' | 'id';
  readonly bigint: 'INTEGER' | 'BIGINT';
  readonly double: 'REAL' | 'DOUBLE PRECISION';
  readonly serial: 'INTEGER PRIMARY KEY' | 'SERIAL PRIMARY KEY';
  readonly bigSerial: 'INTEGER PRIMARY KEY' | 'BIGSERIAL PRIMARY KEY';
  /** The samples' own key column, when the dialect needs one (SQLite has its rowid). */
  readonly sampleKey: '' | 'id BIGSERIAL PRIMARY KEY,';
  /** PostgreSQL keys samples by (series, PLC time): what two replicas both saw is stored once. */
  readonly samplesIndex: 'INDEX' | 'UNIQUE INDEX';
  readonly least: 'MIN' | 'LEAST';
  readonly greatest: 'MAX' | 'GREATEST';
  /** Clustered tables where the dialect has them. */
  readonly keyedTable: '' | ' WITHOUT ROWID';
}

export const sqliteDialect: Dialect = {
  prefix: '',
  rowKey: 'rowid',
  bigint: 'INTEGER',
  double: 'REAL',
  serial: 'INTEGER PRIMARY KEY',
  bigSerial: 'INTEGER PRIMARY KEY',
  sampleKey: '',
  samplesIndex: 'INDEX',
  least: 'MIN',
  greatest: 'MAX',
  keyedTable: ' WITHOUT ROWID',
};

export const postgresDialect: Dialect = {
  prefix: 'history_',
  rowKey: 'id',
  bigint: 'BIGINT',
  double: 'DOUBLE PRECISION',
  serial: 'SERIAL PRIMARY KEY',
  bigSerial: 'BIGSERIAL PRIMARY KEY',
  sampleKey: 'id BIGSERIAL PRIMARY KEY,',
  samplesIndex: 'UNIQUE INDEX',
  least: 'LEAST',
  greatest: 'GREATEST',
  keyedTable: '',
};

/** The table of one rollup level. */
export const rollupTable = (d: Dialect, level: number): string => `${d.prefix}rollups_${level / 1000}s`;

/** The stored column of a kind: doubles, 64-bit integers and BOOL, or text. */
export const valueColumn = (kind: ValueKind): 'num' | 'int' | 'txt' =>
  kind === 'number' ? 'num' : kind === 'string' ? 'txt' : 'int';

export function schemaSql(d: Dialect): string {
  const p = d.prefix;
  const rollups = rollupLevels.map(
    (level) => `
CREATE TABLE IF NOT EXISTS ${rollupTable(d, level)} (
  series INTEGER NOT NULL,
  t ${d.bigint} NOT NULL,
  mn ${d.double} NOT NULL,
  mx ${d.double} NOT NULL,
  c ${d.bigint} NOT NULL,
  tf ${d.bigint} NOT NULL,
  f ${d.double} NOT NULL,
  tl ${d.bigint} NOT NULL,
  l ${d.double} NOT NULL,
  PRIMARY KEY (series, t)
)${d.keyedTable};`,
  );
  return `
CREATE TABLE IF NOT EXISTS ${p}series (
  id ${d.serial},
  plc_id TEXT NOT NULL,
  symbol TEXT NOT NULL,
  kind TEXT NOT NULL,
  type_name TEXT NOT NULL,
  settings TEXT NOT NULL,
  UNIQUE (plc_id, symbol)
);
CREATE TABLE IF NOT EXISTS ${p}samples (
  ${d.sampleKey}
  series INTEGER NOT NULL,
  t ${d.bigint} NOT NULL,
  num ${d.double},
  int ${d.bigint},
  txt TEXT
);
CREATE ${d.samplesIndex} IF NOT EXISTS ${p}samples_series_t ON ${p}samples (series, t);
CREATE INDEX IF NOT EXISTS ${p}samples_t ON ${p}samples (t);
${rollups.join('\n')}
CREATE TABLE IF NOT EXISTS ${p}gaps (
  id ${d.bigSerial},
  plc_id TEXT NOT NULL,
  t_from ${d.bigint} NOT NULL,
  t_to ${d.bigint},
  reason TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS ${p}gaps_plc ON ${p}gaps (plc_id, t_from);
CREATE TABLE IF NOT EXISTS ${p}alarm_events (
  plc_id TEXT NOT NULL,
  seq ${d.bigint} NOT NULL,
  at ${d.bigint} NOT NULL,
  entry TEXT NOT NULL,
  PRIMARY KEY (plc_id, seq)
);
CREATE INDEX IF NOT EXISTS ${p}alarm_events_at ON ${p}alarm_events (plc_id, at);
`;
}

/** $1 plc, $2 symbol, $3 kind, $4 type name, $5 settings → id. */
export const upsertSeriesSql = (d: Dialect): string =>
  `INSERT INTO ${d.prefix}series (plc_id, symbol, kind, type_name, settings) VALUES ($1, $2, $3, $4, $5)
   ON CONFLICT (plc_id, symbol) DO UPDATE SET kind = excluded.kind, type_name = excluded.type_name,
     settings = excluded.settings
   RETURNING id`;

/**
 * $1 plc → id, symbol, kind, type_name, settings, first, last. Without `times` first and last are null: a query
 * that only resolves names need not look up two index ends per series of the PLC.
 */
export const listSeriesSql = (d: Dialect, times: boolean): string =>
  `SELECT id, symbol, kind, type_name, settings,
     ${times ? `(SELECT MIN(t) FROM ${d.prefix}samples WHERE series = s.id)` : 'NULL'} AS first,
     ${times ? `(SELECT MAX(t) FROM ${d.prefix}samples WHERE series = s.id)` : 'NULL'} AS last
   FROM ${d.prefix}series s WHERE plc_id = $1 ORDER BY symbol`;

/** Adds a rollup row of one level to the stored one: the values of `INSERT INTO <table> AS r ... SELECT|VALUES`. */
export const rollupConflictSql = (d: Dialect): string =>
  `ON CONFLICT (series, t) DO UPDATE SET mn = ${d.least}(r.mn, excluded.mn), mx = ${d.greatest}(r.mx, excluded.mx),
     c = r.c + excluded.c,
     f = CASE WHEN excluded.tf < r.tf THEN excluded.f ELSE r.f END, tf = ${d.least}(r.tf, excluded.tf),
     l = CASE WHEN excluded.tl >= r.tl THEN excluded.l ELSE r.l END, tl = ${d.greatest}(r.tl, excluded.tl)`;

/**
 * Buckets of the raw samples: $1 series, $2 from, $3 to, $4 width, $5 origin → b, mn, mx, c, f, l. Integer
 * bucket numbers; first and last are the values at the bucket's first and last time (the earliest row there).
 */
export function sampleBucketsSql(d: Dialect, kind: ValueKind): string {
  const x = valueColumn(kind);
  const samples = `${d.prefix}samples`;
  return `WITH g AS (
     SELECT (t - $5) / $4 AS b, MIN(${x}) AS mn, MAX(${x}) AS mx, COUNT(*) AS c, MIN(t) AS t0, MAX(t) AS t1
     FROM ${samples} WHERE series = $1 AND t >= $2 AND t < $3 GROUP BY 1
   )
   SELECT b, mn, mx, c,
     (SELECT ${x} FROM ${samples} WHERE series = $1 AND t = g.t0 ORDER BY ${d.rowKey} LIMIT 1) AS f,
     (SELECT ${x} FROM ${samples} WHERE series = $1 AND t = g.t1 ORDER BY ${d.rowKey} DESC LIMIT 1) AS l
   FROM g ORDER BY b`;
}

/** The same over one rollup level ($2..$3 on its grid): one row per minute or second instead of every sample. */
export function rollupBucketsSql(d: Dialect, level: number): string {
  const table = rollupTable(d, level);
  return `WITH g AS (
     SELECT (t - $5) / $4 AS b, MIN(mn) AS mn, MAX(mx) AS mx, SUM(c) AS c, MIN(t) AS t0, MAX(t) AS t1
     FROM ${table} WHERE series = $1 AND t >= $2 AND t < $3 GROUP BY 1
   )
   SELECT b, mn, mx, c,
     (SELECT f FROM ${table} WHERE series = $1 AND t = g.t0) AS f,
     (SELECT l FROM ${table} WHERE series = $1 AND t = g.t1) AS l
   FROM g ORDER BY b`;
}

/** $1 series, $2 from, $3 to, $4/$5 the cursor (time, key), $6 limit → id, t, num, int, txt. */
export const rawSql = (d: Dialect): string =>
  `SELECT ${d.rowKey} AS id, t, num, int, txt FROM ${d.prefix}samples
   WHERE series = $1 AND t >= $2 AND t < $3 AND (t, ${d.rowKey}) > ($4, $5)
   ORDER BY t, ${d.rowKey} LIMIT $6`;

/** $1 plc, $2 to, $3 from → the gaps overlapping [from, to). */
export const gapsSql = (d: Dialect): string =>
  `SELECT t_from, t_to, reason FROM ${d.prefix}gaps
   WHERE plc_id = $1 AND t_from < $2 AND (t_to IS NULL OR t_to >= $3) ORDER BY t_from`;

export const insertGapSql = (d: Dialect): string =>
  `INSERT INTO ${d.prefix}gaps (plc_id, t_from, t_to, reason) VALUES ($1, $2, $3, $4)`;

/** $1 end time, $2 plc. */
export const closeGapSql = (d: Dialect): string =>
  `UPDATE ${d.prefix}gaps SET t_to = $1 WHERE plc_id = $2 AND t_to IS NULL`;

export const insertAlarmSql = (d: Dialect): string =>
  `INSERT INTO ${d.prefix}alarm_events (plc_id, seq, at, entry) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`;

/** $1 plc, $2 from, $3 to, $4 after seq, $5 limit. */
export const alarmsSql = (d: Dialect): string =>
  `SELECT seq, at, entry FROM ${d.prefix}alarm_events
   WHERE plc_id = $1 AND at >= $2 AND at < $3 AND seq > $4 ORDER BY seq LIMIT $5`;

/** $1 before, $2 limit: one bounded chunk of old samples. */
export const deleteSamplesSql = (d: Dialect): string =>
  `DELETE FROM ${d.prefix}samples WHERE ${d.rowKey} IN
     (SELECT ${d.rowKey} FROM ${d.prefix}samples WHERE t < $1 LIMIT $2)`;

/** After the samples: rollups wholly before $1, closed gaps and alarm transitions older than $1. */
export const deleteRestSql = (d: Dialect): string[] => [
  ...rollupLevels.map((level) => `DELETE FROM ${rollupTable(d, level)} WHERE t + ${level} <= $1`),
  `DELETE FROM ${d.prefix}gaps WHERE t_to IS NOT NULL AND t_to < $1`,
  `DELETE FROM ${d.prefix}alarm_events WHERE at < $1`,
];

/** SQLite's form of a `$n` statement (better-sqlite3 binds named parameters: `@p1`...). */
export const forSqlite = (sql: string): string => sql.replace(/\$(\d+)/g, '@p$1');

/** The named parameters of forSqlite's statement. */
export function sqliteParams(...values: unknown[]): Record<string, unknown> {
  return Object.fromEntries(values.map((v, i) => [`p${i + 1}`, v]));
}
