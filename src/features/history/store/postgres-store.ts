// The historian on PostgreSQL, the store replicas share: each flush is one transaction of array inserts; samples
// are keyed by (series, PLC time) and alarm transitions by (plc, seq), so what two replicas both saw is stored once.
import pg from 'pg';
import type {
  AlarmRecord,
  BucketRow,
  GapRecord,
  HistoryStore,
  RawRow,
  SeriesInfo,
  StoredSample,
  ValueKind,
  WriteBatch,
} from './types.ts';
import { rollupMs, rollupsOf, type RollupRow } from './rollups.ts';

const schema = `
CREATE TABLE IF NOT EXISTS history_series (
  id SERIAL PRIMARY KEY,
  plc_id TEXT NOT NULL,
  symbol TEXT NOT NULL,
  kind TEXT NOT NULL,
  type_name TEXT NOT NULL,
  settings TEXT NOT NULL,
  UNIQUE (plc_id, symbol)
);
CREATE TABLE IF NOT EXISTS history_samples (
  id BIGSERIAL PRIMARY KEY,
  series INTEGER NOT NULL,
  t BIGINT NOT NULL,
  num DOUBLE PRECISION,
  int BIGINT,
  txt TEXT
);
-- Replicas recording the same PLC see the same change with the same PLC time: it is stored once.
CREATE UNIQUE INDEX IF NOT EXISTS history_samples_series_t ON history_samples (series, t);
CREATE INDEX IF NOT EXISTS history_samples_t ON history_samples (t);
CREATE TABLE IF NOT EXISTS history_rollups (
  series INTEGER NOT NULL,
  t BIGINT NOT NULL,
  mn DOUBLE PRECISION NOT NULL,
  mx DOUBLE PRECISION NOT NULL,
  c BIGINT NOT NULL,
  tf BIGINT NOT NULL,
  f DOUBLE PRECISION NOT NULL,
  tl BIGINT NOT NULL,
  l DOUBLE PRECISION NOT NULL,
  PRIMARY KEY (series, t)
);
CREATE TABLE IF NOT EXISTS history_gaps (
  id BIGSERIAL PRIMARY KEY,
  plc_id TEXT NOT NULL,
  t_from BIGINT NOT NULL,
  t_to BIGINT,
  reason TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS history_gaps_plc ON history_gaps (plc_id, t_from);
CREATE TABLE IF NOT EXISTS history_alarm_events (
  plc_id TEXT NOT NULL,
  seq BIGINT NOT NULL,
  at BIGINT NOT NULL,
  entry TEXT NOT NULL,
  PRIMARY KEY (plc_id, seq)
);
CREATE INDEX IF NOT EXISTS history_alarm_events_at ON history_alarm_events (plc_id, at);
`;

const column = (kind: ValueKind): 'num' | 'int' | 'txt' =>
  kind === 'number' ? 'num' : kind === 'string' ? 'txt' : 'int';

/** The samples of a batch the store took (another replica may have stored the same ones already). */
function inserted(samples: readonly StoredSample[], keys: ReadonlySet<string>): StoredSample[] {
  return samples.filter((s) => keys.has(`${s.series}:${s.t}`));
}

/** BIGINT answers as text; numbers, or exact BigInts for the integer column. */
const big = (v: string | null): bigint | null => (v === null ? null : BigInt(v));
const ms = (v: string | number | null): number | null => (v === null ? null : Number(v));

export class PostgresHistoryStore implements HistoryStore {
  readonly kind = 'postgres';
  readonly #pool: pg.Pool;

  constructor(connectionString: string) {
    this.#pool = new pg.Pool({ connectionString, max: 4 });
    // An idle client losing its server is reported here; the next query fails and is retried by the writer.
    this.#pool.on('error', () => undefined);
  }

  async open(): Promise<void> {
    // Replicas starting together race to create the tables; the lock makes them take turns.
    const client = await this.#pool.connect();
    try {
      await client.query('SELECT pg_advisory_lock(7419001)');
      await client.query(schema);
    } finally {
      await client.query('SELECT pg_advisory_unlock(7419001)').catch(() => undefined);
      client.release();
    }
  }

  async close(): Promise<void> {
    await this.#pool.end();
  }

  async series(
    plcId: string,
    symbol: string,
    kind: ValueKind,
    typeName: string,
    settings: string,
  ): Promise<number> {
    const { rows } = await this.#pool.query<{ id: number }>(
      `INSERT INTO history_series (plc_id, symbol, kind, type_name, settings) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (plc_id, symbol) DO UPDATE SET kind = EXCLUDED.kind, type_name = EXCLUDED.type_name,
         settings = EXCLUDED.settings
       RETURNING id`,
      [plcId, symbol, kind, typeName, settings],
    );
    const row = rows[0];
    if (!row) throw new Error('history series not created');
    return row.id;
  }

  async listSeries(plcId: string): Promise<SeriesInfo[]> {
    const { rows } = await this.#pool.query<{
      id: number;
      symbol: string;
      kind: ValueKind;
      type_name: string;
      settings: string;
      first: string | null;
      last: string | null;
    }>(
      `SELECT id, symbol, kind, type_name, settings,
         (SELECT MIN(t) FROM history_samples WHERE series = s.id) AS first,
         (SELECT MAX(t) FROM history_samples WHERE series = s.id) AS last
       FROM history_series s WHERE plc_id = $1 ORDER BY symbol`,
      [plcId],
    );
    return rows.map((r) => ({
      id: r.id,
      plcId,
      symbol: r.symbol,
      kind: r.kind,
      typeName: r.type_name,
      settings: r.settings,
      first: ms(r.first),
      last: ms(r.last),
    }));
  }

  async write(batch: WriteBatch): Promise<void> {
    const client = await this.#pool.connect();
    try {
      await client.query('BEGIN');
      let inserts: ReadonlySet<string> = new Set();
      if (batch.samples.length > 0) {
        const s = batch.samples;
        const { rows } = await client.query<{ series: number; t: string }>(
          `INSERT INTO history_samples (series, t, num, int, txt)
           SELECT * FROM unnest($1::int[], $2::bigint[], $3::float8[], $4::bigint[], $5::text[])
           ON CONFLICT DO NOTHING RETURNING series, t`,
          [
            s.map((x) => x.series),
            s.map((x) => x.t),
            s.map((x) => x.num),
            s.map((x) => (x.int === null ? null : x.int.toString())),
            s.map((x) => x.txt),
          ],
        );
        inserts = new Set(rows.map((r) => `${r.series}:${r.t}`));
      }
      const rollups = rollupsOf(inserted(batch.samples, inserts));
      if (rollups.length > 0) {
        const col = <K extends keyof RollupRow>(k: K) => rollups.map((r) => r[k]);
        await client.query(
          `INSERT INTO history_rollups AS r (series, t, mn, mx, c, tf, f, tl, l)
           SELECT * FROM unnest($1::int[], $2::bigint[], $3::float8[], $4::float8[], $5::bigint[], $6::bigint[],
             $7::float8[], $8::bigint[], $9::float8[])
           ON CONFLICT (series, t) DO UPDATE SET mn = LEAST(r.mn, EXCLUDED.mn), mx = GREATEST(r.mx, EXCLUDED.mx),
             c = r.c + EXCLUDED.c,
             f = CASE WHEN EXCLUDED.tf < r.tf THEN EXCLUDED.f ELSE r.f END, tf = LEAST(r.tf, EXCLUDED.tf),
             l = CASE WHEN EXCLUDED.tl >= r.tl THEN EXCLUDED.l ELSE r.l END, tl = GREATEST(r.tl, EXCLUDED.tl)`,
          [col('series'), col('t'), col('mn'), col('mx'), col('c'), col('tf'), col('f'), col('tl'), col('l')],
        );
      }
      for (const c of batch.closeGaps) {
        await client.query('UPDATE history_gaps SET t_to = $1 WHERE plc_id = $2 AND t_to IS NULL', [
          c.at,
          c.plcId,
        ]);
      }
      for (const g of batch.gaps) {
        await client.query(
          'INSERT INTO history_gaps (plc_id, t_from, t_to, reason) VALUES ($1, $2, $3, $4)',
          [g.plcId, g.from, g.to, g.reason],
        );
      }
      for (const a of batch.alarms) {
        await client.query(
          `INSERT INTO history_alarm_events (plc_id, seq, at, entry) VALUES ($1, $2, $3, $4)
           ON CONFLICT DO NOTHING`,
          [a.plcId, a.seq, a.at, a.entry],
        );
      }
      await client.query('COMMIT');
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }

  async buckets(
    series: number,
    kind: ValueKind,
    origin: number,
    from: number,
    to: number,
    width: number,
  ): Promise<BucketRow[]> {
    const x = column(kind);
    const { rows } = await this.#pool.query<{
      b: string;
      mn: number | string;
      mx: number | string;
      c: string;
      f: number | string;
      l: number | string;
    }>(
      `WITH g AS (
         SELECT (t - $5) / $4 AS b, MIN(${x}) AS mn, MAX(${x}) AS mx, COUNT(*) AS c, MIN(t) AS t0, MAX(t) AS t1
         FROM history_samples WHERE series = $1 AND t >= $2 AND t < $3 GROUP BY 1
       )
       SELECT b, mn, mx, c,
         (SELECT ${x} FROM history_samples WHERE series = $1 AND t = g.t0 ORDER BY id LIMIT 1) AS f,
         (SELECT ${x} FROM history_samples WHERE series = $1 AND t = g.t1 ORDER BY id DESC LIMIT 1) AS l
       FROM g ORDER BY b`,
      [series, from, to, width, origin],
    );
    const value = (v: number | string): number | bigint => (kind === 'number' ? Number(v) : BigInt(v));
    return rows.map((r) => ({
      t: origin + Number(r.b) * width,
      min: value(r.mn),
      max: value(r.mx),
      first: value(r.f),
      last: value(r.l),
      count: Number(r.c),
    }));
  }

  async rollupBuckets(
    series: number,
    origin: number,
    from: number,
    to: number,
    width: number,
  ): Promise<BucketRow[]> {
    const { rows } = await this.#pool.query<{
      b: string;
      mn: number;
      mx: number;
      c: string;
      f: number;
      l: number;
    }>(
      `WITH g AS (
         SELECT (t - $5) / $4 AS b, MIN(mn) AS mn, MAX(mx) AS mx, SUM(c) AS c, MIN(t) AS t0, MAX(t) AS t1
         FROM history_rollups WHERE series = $1 AND t >= $2 AND t < $3 GROUP BY 1
       )
       SELECT b, mn, mx, c,
         (SELECT f FROM history_rollups WHERE series = $1 AND t = g.t0) AS f,
         (SELECT l FROM history_rollups WHERE series = $1 AND t = g.t1) AS l
       FROM g ORDER BY b`,
      [series, from, to, width, origin],
    );
    return rows.map((r) => ({
      t: origin + Number(r.b) * width,
      min: r.mn,
      max: r.mx,
      first: r.f,
      last: r.l,
      count: Number(r.c),
    }));
  }

  async raw(
    series: number,
    from: number,
    to: number,
    after: { t: number; id: number } | undefined,
    limit: number,
  ): Promise<RawRow[]> {
    const { rows } = await this.#pool.query<{
      id: string;
      t: string;
      num: number | null;
      int: string | null;
      txt: string | null;
    }>(
      `SELECT id, t, num, int, txt FROM history_samples
       WHERE series = $1 AND t >= $2 AND t < $3 AND (t, id) > ($4, $5)
       ORDER BY t, id LIMIT $6`,
      [series, from, to, after?.t ?? from - 1, after?.id ?? 0, limit],
    );
    return rows.map((r) => ({ id: Number(r.id), t: Number(r.t), num: r.num, int: big(r.int), txt: r.txt }));
  }

  async gaps(plcId: string, from: number, to: number): Promise<GapRecord[]> {
    const { rows } = await this.#pool.query<{
      t_from: string;
      t_to: string | null;
      reason: GapRecord['reason'];
    }>(
      `SELECT t_from, t_to, reason FROM history_gaps
       WHERE plc_id = $1 AND t_from < $2 AND (t_to IS NULL OR t_to >= $3) ORDER BY t_from`,
      [plcId, to, from],
    );
    return rows.map((r) => ({ plcId, from: Number(r.t_from), to: ms(r.t_to), reason: r.reason }));
  }

  async alarms(
    plcId: string,
    from: number,
    to: number,
    after: number,
    limit: number,
  ): Promise<AlarmRecord[]> {
    const { rows } = await this.#pool.query<{ seq: string; at: string; entry: string }>(
      `SELECT seq, at, entry FROM history_alarm_events
       WHERE plc_id = $1 AND at >= $2 AND at < $3 AND seq > $4 ORDER BY seq LIMIT $5`,
      [plcId, from, to, after, limit],
    );
    return rows.map((r) => ({ plcId, seq: Number(r.seq), at: Number(r.at), entry: r.entry }));
  }

  async deleteBefore(before: number, limit: number): Promise<number> {
    const { rowCount } = await this.#pool.query(
      `DELETE FROM history_samples WHERE id IN (SELECT id FROM history_samples WHERE t < $1 LIMIT $2)`,
      [before, limit],
    );
    const deleted = rowCount ?? 0;
    if (deleted < limit) {
      await this.#pool.query('DELETE FROM history_rollups WHERE t + $2 <= $1', [before, rollupMs]);
      await this.#pool.query('DELETE FROM history_gaps WHERE t_to IS NOT NULL AND t_to < $1', [before]);
      await this.#pool.query('DELETE FROM history_alarm_events WHERE at < $1', [before]);
    }
    return deleted;
  }

  async usage(): Promise<{ samples: number; bytes: number }> {
    const { rows } = await this.#pool.query<{ n: string; bytes: string }>(
      `SELECT (SELECT COUNT(*) FROM history_samples) AS n,
         pg_total_relation_size('history_samples') AS bytes`,
    );
    const row = rows[0];
    return { samples: Number(row?.n ?? 0), bytes: Number(row?.bytes ?? 0) };
  }
}
