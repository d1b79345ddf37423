// bench:history: the historian's store side. (1) Sustained ingest into SQLite through the writer (bounded buffer,
// one transaction per flush every 100 ms): samples/s and the process's CPU share. (2) One day of 10 Hz data of
// one symbol (864,000 samples) downsampled to 1,000 buckets: query latency p50/p99 (target p99 < 100 ms), on
// SQLite and on a PostgreSQL started for the run. (3) Bytes per stored sample on both. The machine may be shared:
// read the figures as of this run.
// Run: npm run bench:history
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { SqliteHistoryStore } from '../src/features/history/store/sqlite-store.ts';
import { PostgresHistoryStore } from '../src/features/history/store/postgres-store.ts';
import type { HistoryStore, StoredSample } from '../src/features/history/store/types.ts';
import { HistoryWriter } from '../src/features/history/writer.ts';
import { HistoryQueries } from '../src/features/history/query.ts';
import { PostgresServer } from './servers/postgres-server.ts';

const ingestSeconds = 5;
const ingestSymbols = 1000;
const daySamples = 864_000;
const queries = 50;
const silent = { warn: () => undefined, info: () => undefined };

async function ingest(
  store: HistoryStore,
  rate: number,
): Promise<{ perSecond: number; cpu: number; dropped: number }> {
  const metrics = new Registry();
  const writer = new HistoryWriter({
    store,
    flushIntervalMs: 100,
    bufferLength: 500_000,
    log: silent,
    metrics,
  });
  const series: number[] = [];
  for (let i = 0; i < ingestSymbols; i++)
    series.push(await store.series('bench', `MAIN.a[${i}]`, 'number', 'LREAL', '{}'));
  const cpu0 = process.cpuUsage();
  const start = performance.now();
  let produced = 0;
  const t0 = Date.UTC(2026, 0, 1);
  // Samples arrive as notifications do: in bursts every 10 ms, at `rate` per second.
  while (performance.now() - start < ingestSeconds * 1000) {
    const elapsed = performance.now() - start;
    const due = Math.floor((elapsed / 1000) * rate);
    // Stamped as the PLC would: the burst's notification time.
    const t = t0 + Math.floor(elapsed);
    for (; produced < due; produced++) {
      const sample: StoredSample = {
        series: series[produced % ingestSymbols]!,
        t,
        num: produced * 0.5,
        int: null,
        txt: null,
      };
      writer.add('bench', sample);
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  await writer.close();
  const elapsed = (performance.now() - start) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const dropped = Number(
    (await metrics.getSingleMetricAsString('history_samples_dropped_total')).split(' ').at(-1),
  );
  return { perSecond: (produced - dropped) / elapsed, cpu: (cpu.user + cpu.system) / 1e6 / elapsed, dropped };
}

async function fillDay(store: HistoryStore, symbol: string): Promise<{ id: number; from: number }> {
  const id = await store.series('bench', symbol, 'number', 'LREAL', '{}');
  const from = Date.UTC(2026, 0, 2);
  const chunk = 50_000;
  for (let i = 0; i < daySamples; i += chunk) {
    const samples: StoredSample[] = [];
    for (let j = i; j < Math.min(daySamples, i + chunk); j++) {
      samples.push({
        series: id,
        t: from + j * 100,
        num: Math.sin(j / 1000) * 100 + (j === 400_000 ? 1e6 : 0),
        int: null,
        txt: null,
      });
    }
    await store.write({ samples, gaps: [], closeGaps: [], alarms: [] });
  }
  return { id, from };
}

async function queryLatency(
  store: HistoryStore,
  from: number,
): Promise<{ p50: number; p99: number; buckets: number }> {
  const to = from + 86_400_000;
  // As a query of the day at maxPoints 1000 asks (buckets on whole seconds, from the per-second rollups).
  const history = new HistoryQueries(store, { maxSymbols: 1, maxPoints: 1000 });
  const request = {
    symbols: ['MAIN.fDay'],
    from: new Date(from).toISOString(),
    to: new Date(to).toISOString(),
    maxPoints: 1000,
    aggregate: 'auto' as const,
  };
  const times: number[] = [];
  let buckets = 0;
  for (let i = 0; i < queries + 3; i++) {
    const t = performance.now();
    const result = await history.query('bench', request);
    if (i >= 3) times.push(performance.now() - t);
    buckets = result.series[0]?.buckets?.length ?? 0;
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.ceil(q * times.length) - 1)]!;
  return { p50: at(0.5), p99: at(0.99), buckets };
}

async function run(name: string, store: HistoryStore, rate: number): Promise<void> {
  await store.open();
  const ingested = await ingest(store, rate);
  console.log(
    `${name}: ingest ${Math.round(ingested.perSecond).toLocaleString('en')} samples/s offered ${rate.toLocaleString('en')}/s, ` +
      `CPU ${(ingested.cpu * 100).toFixed(0)}% of one core, dropped ${ingested.dropped}`,
  );
  const { from } = await fillDay(store, 'MAIN.fDay');
  const q = await queryLatency(store, from);
  console.log(
    `${name}: 864,000 samples -> ${q.buckets} buckets: p50 ${q.p50.toFixed(1)} ms, p99 ${q.p99.toFixed(1)} ms (target < 100 ms)`,
  );
  const usage = await store.usage();
  console.log(
    `${name}: ${(usage.bytes / usage.samples).toFixed(1)} bytes per stored sample (${usage.samples.toLocaleString('en')} samples)`,
  );
  await store.close();
}

const dir = mkdtempSync(join(tmpdir(), 'bench-history-'));
try {
  await run('sqlite', new SqliteHistoryStore(join(dir, 'history.db')), 150_000);
  const server = await PostgresServer.start();
  try {
    await run('postgres', new PostgresHistoryStore(server.url), 50_000);
  } finally {
    await server.close();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
