// bench:history: the historian's store side. (1) Sustained ingest into the store through the writer (bounded
// buffer, one transaction per flush every 100 ms) while the same process serves live streams: a gateway over a
// simulated PLC whose 50 recorded LREAL symbols change every 100 ms scan, watched by 50 SSE clients (in a client
// process of their own, so their CPU is not counted): samples/s, events delivered/s against those due (the
// simulated PLC runs in the same process, so a busy event loop also scans it less often) and the gateway process's
// CPU share. (2) One day of 10 Hz data of one symbol (864,000 samples) downsampled to 1,000 buckets: query latency
// min/p50/p99/max (target p99 < 100 ms), on SQLite and on a PostgreSQL started for the run. (3) Bytes per stored
// sample on both. The machine may be shared: read the figures as of this run.
// Run: npm run bench:history
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { SqliteHistoryStore } from '../src/features/history/store/sqlite-store.ts';
import { PostgresHistoryStore } from '../src/features/history/store/postgres-store.ts';
import type { HistoryStore, StoredSample } from '../src/features/history/store/types.ts';
import { HistoryWriter } from '../src/features/history/writer.ts';
import { HistoryQueries } from '../src/features/history/query.ts';
import type { OpenCommand, Report } from './fanout-clients.ts';
import { PostgresServer } from './servers/postgres-server.ts';
import { startStreamGateway } from './servers/stream-gateway.ts';

const ingestSeconds = 5;
const ingestSymbols = 1000;
/** Symbols the PLC changes every scan and every SSE client watches; the first of the recorded ones. */
const streamedSymbols = 50;
const sseClients = 50;
const scanMs = 100;
const symbolPath = (i: number): string => `MAIN.rValue${i}`;
const daySamples = 864_000;
const queries = 50;
const silent = { warn: () => undefined, info: () => undefined };

interface Streams {
  /** Events the SSE clients received since the last call. */
  events(): Promise<number>;
  close(): Promise<void>;
}

/** A gateway in this process serving a simulated PLC's changing symbols to SSE clients in a client process. */
async function serveStreams(): Promise<Streams> {
  const paths = Array.from({ length: streamedSymbols }, (_, i) => symbolPath(i));
  const gateway = await startStreamGateway(paths, scanMs, { Logging: { Level: 'warn' } });
  const { url, token } = gateway;
  const clients: ChildProcess = fork(new URL('./fanout-clients.ts', import.meta.url).pathname, [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const ask = async <T>(message: unknown): Promise<T> => {
    const answer = once(clients, 'message') as Promise<[T]>;
    clients.send(message as string);
    const [reply] = await answer;
    if (typeof reply === 'object' && reply !== null && 'failed' in reply) {
      throw new Error(`SSE clients: ${String((reply as { failed: unknown }).failed)}`);
    }
    return reply;
  };
  const open: OpenCommand = {
    url,
    token,
    symbols: paths,
    mode: 'gateway',
    from: 0,
    count: sseClients,
    sseOnly: true,
  };
  await ask({ open });
  await ask('reset');
  return {
    events: async () => {
      const report = await ask<Report>('report');
      await ask('reset');
      return report.events;
    },
    close: async () => {
      clients.send('close');
      await once(clients, 'exit');
      await gateway.close();
    },
  };
}

async function ingest(
  store: HistoryStore,
  rate: number,
): Promise<{
  perSecond: number;
  cpu: number;
  dropped: number;
  events: number;
  loopMax: number;
  loopP99: number;
}> {
  const streams = await serveStreams();
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
    series.push(await store.series('bench', symbolPath(i), 'number', 'LREAL', '{}'));
  const cpu0 = process.cpuUsage();
  // How long the event loop (which also serves the streams) is held at a time: store writes run on it.
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
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
  loop.disable();
  const elapsed = (performance.now() - start) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const events = await streams.events();
  await streams.close();
  const dropped = Number(
    (await metrics.getSingleMetricAsString('history_samples_dropped_total')).split(' ').at(-1),
  );
  return {
    perSecond: (produced - dropped) / elapsed,
    cpu: (cpu.user + cpu.system) / 1e6 / elapsed,
    dropped,
    events: events / elapsed,
    loopP99: loop.percentile(99) / 1e6,
    loopMax: loop.max / 1e6,
  };
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
): Promise<{ min: number; p50: number; p99: number; max: number; buckets: number }> {
  const to = from + 86_400_000;
  // As a query of the day at maxPoints 1000 asks (buckets of whole minutes, from the per-minute rollups).
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
  return { min: times[0]!, p50: at(0.5), p99: at(0.99), max: times.at(-1)!, buckets };
}

async function run(name: string, store: HistoryStore, rate: number): Promise<void> {
  await store.open();
  const ingested = await ingest(store, rate);
  console.log(
    `${name}: ingest ${Math.round(ingested.perSecond).toLocaleString('en')} samples/s offered ${rate.toLocaleString('en')}/s, ` +
      `dropped ${ingested.dropped}, while serving ${sseClients} SSE clients ` +
      `${Math.round(ingested.events).toLocaleString('en')} events/s of ${((sseClients * streamedSymbols * 1000) / scanMs).toLocaleString('en')} due; gateway process CPU ` +
      `${(ingested.cpu * 100).toFixed(0)}% of one core; event loop delay p99 ${ingested.loopP99.toFixed(0)} ms, max ${ingested.loopMax.toFixed(0)} ms`,
  );
  const { from } = await fillDay(store, 'MAIN.fDay');
  const q = await queryLatency(store, from);
  console.log(
    `${name}: 864,000 samples -> ${q.buckets} buckets (${queries} queries): min ${q.min.toFixed(1)} ms, ` +
      `p50 ${q.p50.toFixed(1)} ms, p99 ${q.p99.toFixed(1)} ms, max ${q.max.toFixed(1)} ms (target p99 < 100 ms)`,
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
