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
  BucketSpan,
  StoredSample,
  ValueKind,
  WriteBatch,
} from './types.ts';
import { rollupLevels, rollupsOf, type RollupRow } from './rollups.ts';
import * as sql from './sql.ts';

const d = sql.postgresDialect;

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
      await client.query(sql.schemaSql(d));
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
    const { rows } = await this.#pool.query<{ id: number }>(sql.upsertSeriesSql(d), [
      plcId,
      symbol,
      kind,
      typeName,
      settings,
    ]);
    const row = rows[0];
    if (!row) throw new Error('history series not created');
    return row.id;
  }

  async listSeries(plcId: string, times = true): Promise<SeriesInfo[]> {
    const { rows } = await this.#pool.query<{
      id: number;
      symbol: string;
      kind: ValueKind;
      type_name: string;
      settings: string;
      first: string | null;
      last: string | null;
    }>(sql.listSeriesSql(d, times), [plcId]);
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
      const stored = inserted(batch.samples, inserts);
      for (const level of rollupLevels) {
        const rollups = rollupsOf(stored, level);
        if (rollups.length === 0) continue;
        const col = <K extends keyof RollupRow>(k: K) => rollups.map((r) => r[k]);
        await client.query(
          `INSERT INTO ${sql.rollupTable(d, level)} AS r (series, t, mn, mx, c, tf, f, tl, l)
           SELECT * FROM unnest($1::int[], $2::bigint[], $3::float8[], $4::float8[], $5::bigint[], $6::bigint[],
             $7::float8[], $8::bigint[], $9::float8[]) ${sql.rollupConflictSql(d)}`,
          [col('series'), col('t'), col('mn'), col('mx'), col('c'), col('tf'), col('f'), col('tl'), col('l')],
        );
      }
      for (const c of batch.closeGaps) await client.query(sql.closeGapSql(d), [c.at, c.plcId]);
      for (const g of batch.gaps) await client.query(sql.insertGapSql(d), [g.plcId, g.from, g.to, g.reason]);
      for (const a of batch.alarms)
        await client.query(sql.insertAlarmSql(d), [a.plcId, a.seq, a.at, a.entry]);
      await client.query('COMMIT');
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }

  async buckets(kind: ValueKind, span: BucketSpan): Promise<BucketRow[]> {
    return this.#buckets(sql.sampleBucketsSql(d, kind), kind, span);
  }

  async rollupBuckets(level: number, span: BucketSpan): Promise<BucketRow[]> {
    return this.#buckets(sql.rollupBucketsSql(d, level), 'number', span);
  }

  async #buckets(
    statement: string,
    kind: ValueKind,
    { series, origin, from, to, width }: BucketSpan,
  ): Promise<BucketRow[]> {
    const { rows } = await this.#pool.query<{
      b: string;
      mn: number | string;
      mx: number | string;
      c: string;
      f: number | string;
      l: number | string;
    }>(statement, [series, from, to, width, origin]);
    // BIGINT answers as text: exact BigInts for 64-bit series.
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
    }>(sql.rawSql(d), [series, from, to, after?.t ?? from - 1, after?.id ?? 0, limit]);
    return rows.map((r) => ({ id: Number(r.id), t: Number(r.t), num: r.num, int: big(r.int), txt: r.txt }));
  }

  async gaps(plcId: string, from: number, to: number): Promise<GapRecord[]> {
    const { rows } = await this.#pool.query<{
      t_from: string;
      t_to: string | null;
      reason: GapRecord['reason'];
    }>(sql.gapsSql(d), [plcId, to, from]);
    return rows.map((r) => ({ plcId, from: Number(r.t_from), to: ms(r.t_to), reason: r.reason }));
  }

  async alarms(
    plcId: string,
    from: number,
    to: number,
    after: number,
    limit: number,
  ): Promise<AlarmRecord[]> {
    const { rows } = await this.#pool.query<{ seq: string; at: string; entry: string }>(sql.alarmsSql(d), [
      plcId,
      from,
      to,
      after,
      limit,
    ]);
    return rows.map((r) => ({ plcId, seq: Number(r.seq), at: Number(r.at), entry: r.entry }));
  }

  async deleteBefore(before: number, limit: number): Promise<number> {
    const { rowCount } = await this.#pool.query(sql.deleteSamplesSql(d), [before, limit]);
    const deleted = rowCount ?? 0;
    if (deleted < limit) {
      for (const statement of sql.deleteRestSql(d)) await this.#pool.query(statement, [before]);
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
