// Buckets read from the per-minute and per-second rollups equal a scan of every sample, on SQLite and on a real
// PostgreSQL: windows whose edges fall inside minutes and seconds, samples written in several flushes, a spike.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { PostgresServer } from '../../../bench/servers/postgres-server.ts';
import { HistoryQueries } from '../../../src/features/history/query.ts';
import { PostgresHistoryStore } from '../../../src/features/history/store/postgres-store.ts';
import { SqliteHistoryStore } from '../../../src/features/history/store/sqlite-store.ts';
import type { HistoryStore, StoredSample } from '../../../src/features/history/store/types.ts';

const t0 = Date.UTC(2026, 10, 28, 0, 0, 0);
const hour = 3_600_000;

/** Three hours of one sample every 0.7 s (so seconds and minutes hold uneven counts), with one spike. */
function samplesOf(series: number): StoredSample[] {
  const out: StoredSample[] = [];
  for (let t = t0 + 123, i = 0; t < t0 + 3 * hour; t += 700, i++) {
    out.push({ series, t, num: i === 7000 ? 1e9 : Math.sin(i / 50) * 100 + (i % 7), int: null, txt: null });
  }
  return out;
}

/** The buckets a scan of every sample gives on the answer's grid. */
function scan(samples: readonly StoredSample[], origin: number, width: number, from: number, to: number) {
  const buckets = new Map<
    number,
    { t: string; min: number; max: number; first: number; last: number; count: number }
  >();
  for (const s of samples) {
    if (s.t < from || s.t >= to || s.num === null) continue;
    const start = origin + Math.floor((s.t - origin) / width) * width;
    const b = buckets.get(start);
    if (b === undefined) {
      buckets.set(start, {
        t: new Date(start).toISOString(),
        min: s.num,
        max: s.num,
        first: s.num,
        last: s.num,
        count: 1,
      });
      continue;
    }
    b.min = Math.min(b.min, s.num);
    b.max = Math.max(b.max, s.num);
    b.last = s.num;
    b.count++;
  }
  return [...buckets.values()];
}

async function check(store: HistoryStore): Promise<void> {
  await store.open();
  try {
    const id = await store.series('line1', 'MAIN.fWave', 'number', 'LREAL', '{}');
    const samples = samplesOf(id);
    // Written as flushes are: in batches whose edges cut seconds and minutes.
    for (let i = 0; i < samples.length; i += 997) {
      await store.write({ samples: samples.slice(i, i + 997), gaps: [], closeGaps: [], alarms: [] });
    }
    const queries = new HistoryQueries(store, { maxSymbols: 1, maxPoints: 10_000 });
    const cases = [
      // One day at 1000 points: 86.4 s rounds up to whole minutes (120 s), read from the minute rollups.
      { from: t0 - 21 * hour, to: t0 + 3 * hour, maxPoints: 1000, bucketMs: 120_000 },
      // Edges inside a minute and inside a second: minutes, then seconds, then raw samples at the edges.
      { from: t0 + 61_234, to: t0 + 2 * hour + 59_567, maxPoints: 100, bucketMs: 120_000 },
      // Exactly a minute per bucket (the level's edge), and 59 s (seconds only).
      { from: t0 + 60_000, to: t0 + hour + 59_000, maxPoints: 60, bucketMs: 60_000 },
      { from: t0 + 500, to: t0 + 59 * 60_000, maxPoints: 60, bucketMs: 59_000 },
      // Narrower than a second: raw samples only.
      { from: t0 + 1234, to: t0 + 60_000, maxPoints: 100, bucketMs: 588 },
    ];
    for (const c of cases) {
      const answer = await queries.query('line1', {
        symbols: ['MAIN.fWave'],
        from: new Date(c.from).toISOString(),
        to: new Date(c.to).toISOString(),
        maxPoints: c.maxPoints,
        aggregate: 'auto',
      });
      const [series] = answer.series;
      assert.equal(series?.bucketMs, c.bucketMs, `bucketMs of ${JSON.stringify(c)}`);
      // Buckets start on the window's whole minute (a minute or wider), whole second, or at `from`.
      const step = c.bucketMs >= 60_000 ? 60_000 : c.bucketMs >= 1000 ? 1000 : undefined;
      const origin = step === undefined ? c.from : Math.floor(c.from / step) * step;
      const expected = scan(samples, origin, c.bucketMs, c.from, c.to);
      assert.ok(expected.length <= c.maxPoints);
      assert.deepEqual(series?.buckets, expected, `buckets of ${JSON.stringify(c)}`);
    }
  } finally {
    await store.close();
  }
}

describe('history rollups', () => {
  let dir: string;
  let server: PostgresServer;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'history-rollups-'));
    server = await PostgresServer.start();
  });
  after(async () => {
    rmSync(dir, { recursive: true, force: true });
    await server?.close();
  });

  it('SQLite: buckets from minute and second rollups equal a scan of every sample', async () => {
    await check(new SqliteHistoryStore(join(dir, 'history.db')));
  });

  it('PostgreSQL: buckets from minute and second rollups equal a scan of every sample', async () => {
    await check(new PostgresHistoryStore(server.url));
  });
});
