// bench:cluster: what coordination through Redis costs. 20 PLCs over ADS (a plant process), 50 symbols each changing
// every 100 ms scan and a 10-slot alarm array with one transition per scan; 1,500 SSE clients spread evenly over
// three replicas sharing one redis-server (500 each), against the same 1,500 clients on one process without Redis,
// and on three gateways that share nothing (no Redis; the PLCs split between them, each PLC's clients on its
// gateway), which shows what three processes cost on the machine apart from what coordinating them adds. Two
// parts: notification clients (each subscribed to one symbol), then alarm clients (each on one PLC's alarm stream:
// the lease holder appends to the Redis journal, every replica follows it). Rounds interleave so machine load hits
// all alike. Prints change-to-client latency p50/p99 (every 10th client sampled), events per second,
// drops, gateway CPU per delivered event (all replicas summed, and with redis-server's own CPU) and Redis operations
// per second (and per alarm transition); then the cluster at a fifth of the clients, to show that Redis traffic does
// not grow with clients.
// Needs redis-server on the PATH.
// Run: npm run bench:cluster [-- --seconds 20 --pairs 2 --warmup 150 --clients 1500 --part notifications|alarms|both]
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import { SignJWT } from 'jose';
import { alarmArray, plcCount, scanMs, symbolCount, symbolPaths } from './cluster-plant.ts';

const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const seconds = Number(arg('seconds') ?? 20);
const pairs = Number(arg('pairs') ?? 2);
/**
 * Seconds between the last client's start and the measurement: JIT, heaps grown to size, timers spread out, so the
 * rounds measure a gateway as it runs for weeks. Code called a few times a second per process (Redis replies, lease
 * rounds, appends, ADS requests) is optimised only after minutes, and each replica optimises its own: with no
 * clients, the three replicas still compiled 12 ms/s between them after 60 s, 7 after 150 s (V8's --trace-opt).
 */
const warmupSeconds = Number(arg('warmup') ?? 150);
const clientCount = Number(arg('clients') ?? 1500);
const part = arg('part') ?? 'both';
type Kind = 'notifications' | 'alarms';
/** Alarm transitions the plant makes per second, over all PLCs. */
const transitionsPerSecond = (plcCount * 1000) / scanMs;
const sampleEvery = 10;
const signingKey = 'bench-signing-key-0123456789-0123456789';
const now = (): number => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  return typeof address === 'object' && address !== null ? address.port : 0;
}

async function startRedis(): Promise<{ url: string; proc: ChildProcess }> {
  const port = await freePort();
  const proc = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let out = '';
  await new Promise<void>((resolve, reject) => {
    proc.stdout?.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.includes('Ready to accept connections')) resolve();
    });
    proc.once('exit', () => reject(new Error(`redis-server exited: ${out}`)));
  });
  return { url: `redis://127.0.0.1:${port}`, proc };
}

function child(script: string, args: string[]): ChildProcess {
  return fork(new URL(script, import.meta.url).pathname, args, {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', process.env.BENCH_LOG ? 'inherit' : 'ignore', 'inherit', 'ipc'],
  });
}

async function startPlant(): Promise<{ proc: ChildProcess; ports: number[] }> {
  const proc = child('./cluster-plant.ts', []);
  const [m] = (await once(proc, 'message')) as [{ ports: number[] }];
  return { proc, ports: m.ports };
}

/**
 * The reference that separates process count from coordination: three gateways without Redis, the PLCs split
 * between them (each watches the alarms of its third, and the clients of a PLC use its gateway), so each does a
 * third of the work as a replica does, and nothing is shared.
 */
const unshared = '3 gateways, split';
const clustered = '3 replicas + Redis';
const alone = '1 process';
/** Which of `count` gateways serves PLC number `plc` in the split reference. */
const gatewayOf = (plc: number, count: number): number => plc % count;

const plcIds = Array.from({ length: plcCount }, (_, i) => `plc${String(i + 1).padStart(2, '0')}`);

/** `watches`: which PLCs' alarms this gateway watches (all of them unless the PLCs are split). */
function settingsFile(
  ports: number[],
  index: number,
  redisUrl: string | undefined,
  kind: Kind,
  watches: (plc: number) => boolean,
): string {
  const file = join(mkdtempSync(join(tmpdir(), 'bench-cluster-')), 'appsettings.json');
  const settings = {
    Logging: { Level: process.env.BENCH_LOG ?? 'warn' },
    Auth: { SigningKey: signingKey },
    // Only coordination and fan-out are measured: per-user limits would refuse one bench user's 500 streams.
    RateLimiting: { Enabled: false },
    ConnectionLimits: { MaxPerUser: 10_000, MaxTotal: 10_000 },
    AmsRouter: { NetId: `127.0.0.1.1.${30 + index}` },
    PlcTargets: Object.fromEntries(
      plcIds.map((id, i) => [
        id,
        { Mode: 'Real', AmsNetId: '127.0.0.1.1.1', Address: '127.0.0.1', TcpPort: ports[i] },
      ]),
    ),
    ...(kind === 'alarms'
      ? {
          Features: { Alarms: true },
          PlcAlarms: {
            Targets: Object.fromEntries(
              plcIds
                .filter((_, plc) => watches(plc))
                .map((id) => [id, { SymbolPath: alarmArray, CycleTimeMs: scanMs }]),
            ),
          },
        }
      : {}),
    ...(redisUrl ? { Cluster: { Redis: redisUrl, ReplicaId: `replica-${index}` } } : {}),
  };
  writeFileSync(file, JSON.stringify(settings));
  return file;
}

interface Replica {
  proc: ChildProcess;
  url: string;
}

async function startReplica(file: string): Promise<Replica> {
  const proc = child('./cluster-replica.ts', [file]);
  const [m] = (await once(proc, 'message')) as [{ url: string }];
  // Listening comes before the ADS connections are up: clients are opened once every PLC is connected.
  for (;;) {
    const report = (await (await fetch(`${m.url}/health/ready`)).json()) as {
      checks: Array<{ name: string; status: string }>;
    };
    if (report.checks.find((c) => c.name === 'plc-connectivity')?.status === 'Healthy') break;
    await sleep(200);
  }
  return { proc, url: m.url };
}

async function cpuMs(proc: ChildProcess): Promise<number> {
  proc.send('cpu');
  const [m] = (await once(proc, 'message')) as [{ cpuMs: number }];
  return m.cpuMs;
}

async function stopAll(procs: ChildProcess[]): Promise<void> {
  await Promise.all(
    procs.map(async (p) => {
      if (p.exitCode !== null) return;
      const exited = once(p, 'exit');
      p.send('stop');
      await exited;
    }),
  );
}

async function droppedTotal(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  let sum = 0;
  for (const m of text.matchAll(/^stream_events_dropped_total\{[^}]*\} (\d+)/gm)) sum += Number(m[1]);
  return sum;
}

interface Counters {
  events: number;
  latencies: number[];
}

function sseClient(url: string, token: string, k: number, counters: Counters): Promise<() => void> {
  const plcId = plcIds[k % plcCount] ?? 'plc01';
  const symbol = symbolPaths[Math.floor(k / plcCount) % symbolCount] ?? 'MAIN.rValue0';
  const sampled = k % sampleEvery === 0;
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}/api/plcs/${plcId}/notifications/sse?symbols=${encodeURIComponent(symbol)}`,
      { headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' } },
      (res) => {
        res.setEncoding('utf8');
        if (res.statusCode !== 200) {
          let body = '';
          res.on('data', (text: string) => (body += text));
          res.on('end', () => reject(new Error(`SSE answered ${String(res.statusCode)}: ${body}`)));
          return;
        }
        res.on('data', (text: string) => {
          for (let i = text.indexOf('event: change'); i >= 0; i = text.indexOf('event: change', i + 13))
            counters.events++;
          if (!sampled) return;
          const t = now();
          for (const m of text.matchAll(/"value":([0-9.e+]+)/g)) counters.latencies.push(t - Number(m[1]));
        });
        resolve(() => req.destroy());
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** A client of one PLC's alarm stream; the frames' ErrorCode is the plant's millisecond of the change. */
function alarmClient(url: string, token: string, k: number, counters: Counters): Promise<() => void> {
  const plcId = plcIds[k % plcCount] ?? 'plc01';
  const sampled = k % sampleEvery === 0;
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}/api/plcs/${plcId}/alarms/stream`,
      { headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' } },
      (res) => {
        res.setEncoding('utf8');
        if (res.statusCode !== 200) {
          reject(new Error(`alarm SSE answered ${String(res.statusCode)}`));
          return;
        }
        res.on('data', (text: string) => {
          for (let i = text.indexOf('event: alarm'); i >= 0; i = text.indexOf('event: alarm', i + 12))
            counters.events++;
          if (!sampled) return;
          const t = Math.floor(now()) % 1_000_000_000;
          for (const m of text.matchAll(/"errorCode":(\d+)/g)) counters.latencies.push(t - Number(m[1]));
        });
        resolve(() => req.destroy());
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/**
 * Waits until every PLC's alarm lease is held, all by the senior replica (the cluster check lists the holders): the
 * leases moving at start-up are a one-off, not what coordination costs while the plant runs.
 */
async function leasesSettled(url: string): Promise<void> {
  for (;;) {
    const report = (await (await fetch(`${url}/health/ready`)).json()) as {
      checks: Array<{ name: string; data: { leases?: Record<string, string> } }>;
    };
    const holders = Object.values(report.checks.find((c) => c.name === 'cluster')?.data.leases ?? {});
    if (holders.length === plcCount && new Set(holders).size === 1) return;
    await sleep(200);
  }
}

interface Result {
  label: string;
  kind: Kind;
  clients: number;
  p50: number;
  p99: number;
  eventsPerSecond: number;
  expectedPerSecond: number;
  dropped: number;
  cpuMsPerKiloEvent: number;
  cpuMsPerSecond: number;
  /** The gateways' CPU and redis-server's own, per 1000 delivered events. */
  withRedisMsPerKiloEvent: number;
  redisCpuMsPerSecond: number;
  redisOpsPerSecond: number;
}

const percentile = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
};

/** Commands Redis has processed and the CPU it has used (ms), from one INFO. */
async function redisStats(redis: Redis | undefined): Promise<{ ops: number; cpuMs: number }> {
  if (!redis) return { ops: 0, cpuMs: 0 };
  const info = await redis.info();
  const field = (name: string) => Number(new RegExp(`^${name}:([0-9.]+)`, 'm').exec(info)?.[1] ?? 0);
  return {
    ops: field('total_commands_processed'),
    cpuMs: (field('used_cpu_user') + field('used_cpu_sys')) * 1000,
  };
}

async function round(
  kind: Kind,
  label: string,
  replicaCount: number,
  clients: number,
  plantPorts: number[],
  redisUrl: string | undefined,
  token: string,
): Promise<Result> {
  const split = label === unshared;
  const files = Array.from({ length: replicaCount }, (_, i) =>
    settingsFile(plantPorts, i + 1, redisUrl, kind, (plc) => !split || gatewayOf(plc, replicaCount) === i),
  );
  const replicas = await Promise.all(files.map(startReplica));
  if (kind === 'alarms' && redisUrl) await leasesSettled((replicas[0] as Replica).url);
  const open = kind === 'alarms' ? alarmClient : sseClient;
  const probe = redisUrl ? new Redis(redisUrl) : undefined;
  const counters: Counters = { events: 0, latencies: [] };
  const closers: Array<() => void> = [];
  try {
    for (let k = 0; k < clients; k++) {
      const replica = replicas[split ? gatewayOf(k % plcCount, replicaCount) : k % replicaCount] as Replica;
      closers.push(await open(replica.url, token, k, counters));
    }
    await sleep(warmupSeconds * 1000);
    counters.events = 0;
    counters.latencies = [];
    const droppedBefore = (await Promise.all(replicas.map((r) => droppedTotal(r.url)))).reduce(
      (a, b) => a + b,
      0,
    );
    const cpuBefore = await Promise.all(replicas.map((r) => cpuMs(r.proc)));
    const redisBefore = await redisStats(probe);
    const started = now();
    await sleep(seconds * 1000);
    const elapsed = (now() - started) / 1000;
    const events = counters.events;
    const redisAfter = await redisStats(probe);
    const cpuAfter = await Promise.all(replicas.map((r) => cpuMs(r.proc)));
    const droppedAfter = (await Promise.all(replicas.map((r) => droppedTotal(r.url)))).reduce(
      (a, b) => a + b,
      0,
    );
    const cpu = cpuAfter.reduce((a, b, i) => a + b - (cpuBefore[i] ?? 0), 0);
    const redisCpu = redisAfter.cpuMs - redisBefore.cpuMs;
    return {
      label,
      kind,
      clients,
      p50: percentile(counters.latencies, 50),
      p99: percentile(counters.latencies, 99),
      eventsPerSecond: events / elapsed,
      expectedPerSecond: (clients * 1000) / scanMs,
      dropped: droppedAfter - droppedBefore,
      cpuMsPerKiloEvent: (cpu / events) * 1000,
      cpuMsPerSecond: cpu / elapsed,
      withRedisMsPerKiloEvent: ((cpu + redisCpu) / events) * 1000,
      redisCpuMsPerSecond: redisCpu / elapsed,
      // The probe's INFO before counts in the one after (each is counted once it has run).
      redisOpsPerSecond: probe ? (redisAfter.ops - redisBefore.ops - 1) / elapsed : 0,
    };
  } finally {
    for (const close of closers) close();
    probe?.disconnect();
    await stopAll(replicas.map((r) => r.proc));
    for (const file of files) rmSync(dirname(file), { recursive: true, force: true });
  }
}

function print(r: Result): void {
  const perTransition =
    r.kind === 'alarms' && r.redisOpsPerSecond > 0
      ? ` (${(r.redisOpsPerSecond / transitionsPerSecond).toFixed(2)} per alarm transition)`
      : '';
  console.log(
    `${r.kind.padEnd(13)} ${r.label.padEnd(20)} clients ${String(r.clients).padStart(5)}  p50 ${r.p50.toFixed(1).padStart(6)} ms  p99 ${r.p99
      .toFixed(1)
      .padStart(
        6,
      )} ms  ${Math.round(r.eventsPerSecond).toString().padStart(6)}/${r.expectedPerSecond} events/s  dropped ${
      r.dropped
    }  CPU ${r.cpuMsPerKiloEvent.toFixed(1).padStart(5)} ms per 1000 events (${Math.round(r.cpuMsPerSecond)} ms/s), with Redis's ${r.withRedisMsPerKiloEvent.toFixed(1)}  Redis ${r.redisOpsPerSecond.toFixed(1)} ops/s${perTransition}, ${Math.round(r.redisCpuMsPerSecond)} ms/s CPU`,
  );
}

async function main(): Promise<void> {
  const token = await new SignJWT({ sub: 'bench', role: 'admin', scope: 'ads:read', plc_access: ['*'] })
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode(signingKey));
  const redis = await startRedis();
  const plant = await startPlant();
  try {
    console.log(
      `bench:cluster: ${plcCount} PLCs x ${symbolCount} symbols every ${scanMs} ms and 1 alarm transition per PLC per scan; ` +
        `notification clients 1 symbol each, alarm clients 1 PLC each; ${seconds} s per round`,
    );
    const kinds: Kind[] =
      part === 'both' ? ['notifications', 'alarms'] : [part === 'alarms' ? 'alarms' : 'notifications'];
    for (const kind of kinds) await compare(kind, plant.ports, redis.url, token);
  } finally {
    plant.proc.send('stop');
    redis.proc.kill('SIGKILL');
  }
}

/**
 * Interleaved groups of rounds (cluster, one process, three gateways that share nothing), then the cluster with a
 * fifth of the clients. The unshared three separate what three processes cost on this machine from what
 * coordinating them through Redis adds.
 */
async function compare(kind: Kind, ports: number[], redisUrl: string, token: string): Promise<void> {
  const results: Result[] = [];
  for (let i = 0; i < pairs; i++) {
    for (const r of [
      await round(kind, clustered, 3, clientCount, ports, redisUrl, token),
      await round(kind, alone, 1, clientCount, ports, undefined, token),
      await round(kind, unshared, 3, clientCount, ports, undefined, token),
    ]) {
      print(r);
      results.push(r);
    }
  }
  const few = await round(kind, clustered, 3, Math.round(clientCount / 5), ports, redisUrl, token);
  print(few);
  const mean = (label: string, f: (r: Result) => number) => {
    const rs = results.filter((r) => r.label === label);
    return rs.reduce((a, r) => a + f(r), 0) / rs.length;
  };
  const cluster = (f: (r: Result) => number) => mean(clustered, f);
  const single = (f: (r: Result) => number) => mean(alone, f);
  const apart = (f: (r: Result) => number) => mean(unshared, f);
  const perEvent = (r: Result) => r.cpuMsPerKiloEvent;
  const withRedis = (r: Result) => r.withRedisMsPerKiloEvent;
  console.log(
    `${kind}: ratios (mean of rounds): CPU per delivered event, cluster / one process = ${(
      cluster(withRedis) / single(perEvent)
    ).toFixed(2)} with redis-server's CPU, ${(cluster(perEvent) / single(perEvent)).toFixed(
      2,
    )} the replicas alone (target <= 1.3); p99 cluster ${cluster((r) => r.p99).toFixed(1)} ms vs one process ${single(
      (r) => r.p99,
    ).toFixed(1)} ms (target < CycleTimeMs + 100 ms = ${scanMs + 100} ms)`,
  );
  // Each group's rounds ran back to back, so its ratio shows how far the machine moved the figures between groups.
  const groupRatios = (f: (r: Result) => number) =>
    Array.from({ length: pairs }, (_, i) => {
      const group = results.slice(i * 3, i * 3 + 3);
      const of = (label: string) => group.find((r) => r.label === label) as Result;
      return (f(of(clustered)) / perEvent(of(alone))).toFixed(2);
    }).join(', ');
  console.log(
    `${kind}: each group's ratio, cluster / one process: ${groupRatios(withRedis)} with redis-server's CPU; ` +
      `${groupRatios(perEvent)} the replicas alone`,
  );
  console.log(
    `${kind}: what the CPU ratio is made of: three gateways sharing nothing / one process = ${(
      apart(perEvent) / single(perEvent)
    ).toFixed(
      2,
    )} (three processes on this machine, each with a third of the work); the cluster with redis-server / those three = ${(
      cluster(withRedis) / apart(perEvent)
    ).toFixed(2)} (what coordinating through Redis adds)`,
  );
  // The cluster at two client counts splits its CPU into a part per delivered event and a part that clients do not
  // change (coordination), to set beside one process's CPU per event all told.
  const total = (r: Result) => r.cpuMsPerSecond + r.redisCpuMsPerSecond;
  const perAdded = (cluster(total) - total(few)) / (cluster((r) => r.eventsPerSecond) - few.eventsPerSecond);
  console.log(
    `${kind}: the cluster with redis-server from ${few.clients} to ${clientCount} clients: ${(perAdded * 1000).toFixed(1)} µs ` +
      `per added event, ${(total(few) - perAdded * few.eventsPerSecond).toFixed(0)} ms/s that does not depend on clients; ` +
      `one process ${single(perEvent).toFixed(1)} µs per event all told`,
  );
  const ops = cluster((r) => r.redisOpsPerSecond);
  const perTransition = (n: number) => (n / transitionsPerSecond).toFixed(2);
  console.log(
    kind === 'alarms'
      ? `alarms: Redis operations per alarm transition ${perTransition(ops)} at ${clientCount} clients, ` +
          `${perTransition(few.redisOpsPerSecond)} at ${few.clients} clients (appends and the pushes they publish, lease renewals, heartbeats, the once-a-second safety reads)`
      : `notifications: Redis operations per second ${ops.toFixed(1)} at ${clientCount} clients, ` +
          `${few.redisOpsPerSecond.toFixed(1)} at ${few.clients} clients (heartbeats only: stream traffic never goes through Redis)`,
  );
}

await main();
