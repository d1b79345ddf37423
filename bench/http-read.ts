// Throughput of GET /api/plcs/{plcId}/variables/{path} over real HTTP (auth and rate limits on, limits raised)
// against a bare fastify route that verifies the same JWT with the gateway's own verifier and answers the same
// JSON. The gateway runs twice: with the logging `serve` ships (pino through its batched stdout writer, here
// /dev/null) and with the same logger at level warn, so without request lines. Each server runs in its own
// child process for the whole run; autocannon (50 connections) drives them from this one, in interleaved
// rounds, and the median round of each is reported. Beside throughput, each round records the server's CPU per
// request (process.cpuUsage of its process, user + system): on a machine shared with other work, throughput
// follows whoever else holds the cores, CPU per request much less.
// Run: npm run bench:http-read [-- --rounds 3 --seconds 3]   (target: gateway with logging / bare >= 0.6)
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import autocannon from 'autocannon';
import Fastify from 'fastify';
import { buildApp } from '../src/app.ts';
import { mintToken } from '../src/cli/mint-token.ts';
import { configFromDocument } from '../src/config/load.ts';
import { createLogger, logDestination } from '../src/http/logging.ts';
import { resolveKeySource } from '../src/guards/auth/key-source.ts';
import { createTokenVerifier } from '../src/guards/auth/token-verifier.ts';
import { ProgramBuilder, SimulatedPlc } from '../src/simulator/engine/index.ts';
import { createRegistry } from '../src/targets/registry.ts';
import { SimulatedTarget } from '../src/targets/simulated/index.ts';

const arg = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const rounds = arg('rounds', 3);
const seconds = arg('seconds', 3);
const signingKey = 'bench-signing-key-0123456789-0123456789';
const path = 'GVL_HMI.aAxes[3].rPosition';
const connections = 50;
const targetRatio = 0.6;

const modes = ['gateway', 'gateway-quiet', 'bare'] as const;
type Mode = (typeof modes)[number];
const labels: Record<Mode, string> = {
  gateway: 'gateway, serve logging',
  'gateway-quiet': 'gateway, no request log',
  bare: 'bare fastify + same JWT',
};

function config(level: 'info' | 'warn') {
  return configFromDocument(
    {
      Auth: { SigningKey: signingKey },
      RateLimiting: { Enabled: true, GlobalPerUser: 100_000_000 },
      Logging: { Level: level },
    },
    process.cwd(),
    {},
  );
}

async function serveGateway(level: 'info' | 'warn'): Promise<number> {
  const b = new ProgramBuilder();
  b.struct('ST_Axis', [
    { name: 'sId', type: 'STRING(15)' },
    { name: 'rPosition', type: 'LREAL' },
  ]);
  b.symbol('GVL_HMI.aAxes', 'ARRAY [1..16] OF ST_Axis');
  const plc = new SimulatedPlc(b.build());
  plc.write(path, 123.456);
  const target = new SimulatedTarget('line1', 'Line 1', plc);
  await target.start();
  // As `serve` builds it: the logger made before the app, writing to stdout through the batched destination.
  const log = createLogger(logDestination(process.stdout).stream, level);
  const app = await buildApp(config(level), { registry: createRegistry([target]), loggerInstance: log });
  await app.listen({ host: '127.0.0.1', port: 0 });
  return (app.server.address() as { port: number }).port;
}

async function serveBare(): Promise<number> {
  const { settings, contentRoot } = config('warn');
  const verifier = createTokenVerifier(settings.Auth, await resolveKeySource(settings.Auth, { contentRoot }));
  const app = Fastify({ logger: false });
  app.get('/bare', async (request, reply) => {
    const header = request.headers.authorization ?? '';
    try {
      await verifier.verify(header.slice('Bearer '.length));
    } catch {
      return reply.code(401).send({ data: null, error: { code: 'UNAUTHORIZED', message: 'bad token' } });
    }
    const data = { symbol: path, value: 123.456, typeName: 'LREAL', timestamp: new Date().toISOString() };
    return { data, error: null };
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  return (app.server.address() as { port: number }).port;
}

async function startChild(mode: Mode): Promise<{ child: ChildProcess; port: number }> {
  // The children's stdout (the gateway's log) goes to /dev/null.
  const child = fork(new URL(import.meta.url).pathname, [mode], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const [message] = (await once(child, 'message')) as [{ port: number }];
  return { child, port: message.port };
}

interface Round {
  readonly result: autocannon.Result;
  /** Server CPU (user + system) per request, µs. */
  readonly cpuUs: number;
}

function median(values: readonly Round[]): autocannon.Result {
  const sorted = [...values].sort((a, b) => a.result.requests.average - b.result.requests.average);
  return sorted[Math.floor(sorted.length / 2)]!.result;
}

function medianCpu(values: readonly Round[]): number {
  const sorted = values.map((r) => r.cpuUs).sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function cpuOf(child: ChildProcess): Promise<number> {
  child.send('cpu');
  const [usage] = (await once(child, 'message')) as [NodeJS.CpuUsage];
  return usage.user + usage.system;
}

async function measure(child: ChildProcess, url: string, headers: Record<string, string>): Promise<Round> {
  const before = await cpuOf(child);
  const result = await autocannon({ url, connections, headers, duration: seconds });
  const cpuUs = (await cpuOf(child)) - before;
  return { result, cpuUs: cpuUs / Math.max(1, result.requests.total) };
}

function line(label: string, all: readonly Round[]): string {
  const r = median(all);
  const bad = all.reduce((n, x) => n + x.result.non2xx + x.result.errors, 0);
  const spread = all.map((x) => x.result.requests.average.toFixed(0)).join(' / ');
  return (
    `${label.padEnd(24)} ${r.requests.average.toFixed(0).padStart(6)} req/s   p50 ${String(r.latency.p50).padStart(3)} ms` +
    `   p99 ${String(r.latency.p99).padStart(3)} ms   CPU ${medianCpu(all).toFixed(0).padStart(4)} µs/request` +
    `   (rounds: ${spread})${bad > 0 ? `   ${bad} failed` : ''}`
  );
}

async function main(): Promise<void> {
  const token = await mintToken(
    { sub: 'bench', role: 'viewer', scope: 'ads:read', plcAccess: ['*'], ttlSeconds: 600 },
    { key: signingKey, roleClaim: 'role' },
  );
  const headers = { authorization: `Bearer ${token}` };
  const servers = new Map<Mode, { child: ChildProcess; url: string }>();
  try {
    for (const mode of modes) {
      const { child, port } = await startChild(mode);
      const url =
        mode === 'bare'
          ? `http://127.0.0.1:${port}/bare`
          : `http://127.0.0.1:${port}/api/plcs/line1/variables/${encodeURIComponent(path)}`;
      servers.set(mode, { child, url });
      const probe = await fetch(url, { headers });
      if (probe.status !== 200) throw new Error(`${mode}: ${probe.status} ${await probe.text()}`);
      await autocannon({ url, connections, headers, duration: 1 }); // warm-up: JIT and connections
    }
    const results = new Map<Mode, Round[]>(modes.map((m) => [m, []]));
    for (let round = 0; round < rounds; round++) {
      for (const mode of modes) {
        const { child, url } = servers.get(mode)!;
        results.get(mode)!.push(await measure(child, url, headers));
      }
    }
    console.log(
      `GET variables/{path}, ${connections} connections, ${rounds} interleaved rounds of ${seconds} s, ` +
        `JWT verified per request (Node ${process.version})`,
    );
    for (const mode of modes) console.log(line(labels[mode], results.get(mode)!));
    const throughput = (m: Mode) => median(results.get(m)!).requests.average;
    const logged = throughput('gateway') / throughput('bare');
    const quiet = throughput('gateway-quiet') / throughput('bare');
    const cpu = (m: Mode) => medianCpu(results.get('bare')!) / medianCpu(results.get(m)!);
    console.log(
      `ratio gateway/bare, serve logging:     ${logged.toFixed(2)} (target >= ${targetRatio}): ${logged >= targetRatio ? 'PASS' : 'FAIL'}` +
        `   by CPU per request: ${cpu('gateway').toFixed(2)}`,
    );
    console.log(
      `ratio gateway/bare, no request log:   ${quiet.toFixed(2)}   by CPU per request: ${cpu('gateway-quiet').toFixed(2)}`,
    );
  } finally {
    for (const { child } of servers.values()) {
      child.kill();
      if (child.exitCode === null) await once(child, 'exit');
    }
  }
}

const mode = process.argv[2];
if (mode === 'gateway' || mode === 'gateway-quiet' || mode === 'bare') {
  const port = mode === 'bare' ? await serveBare() : await serveGateway(mode === 'gateway' ? 'info' : 'warn');
  process.send?.({ port });
  process.on('message', (message) => {
    if (message === 'cpu') process.send?.(process.cpuUsage());
  });
} else {
  await main();
}
