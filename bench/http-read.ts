// Throughput of GET /api/plcs/{plcId}/variables/{path} over real HTTP (auth and rate limits on, limits raised)
// against a bare fastify route that verifies the same JWT (jose, HS256) and answers the same JSON.
// Each server runs in a child process; autocannon (50 connections, 5 s) drives it from this one.
// Run: npm run bench:http-read   (target: gateway / bare >= 0.6)
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import autocannon from 'autocannon';
import Fastify from 'fastify';
import { jwtVerify } from 'jose';
import { buildApp } from '../src/app.ts';
import { mintToken } from '../src/cli/mint-token.ts';
import { configFromDocument } from '../src/config/load.ts';
import { ProgramBuilder, SimulatedPlc } from '../src/simulator/engine/index.ts';
import { createRegistry } from '../src/targets/registry.ts';
import { SimulatedTarget } from '../src/targets/simulated/index.ts';

const signingKey = 'bench-signing-key-0123456789-0123456789';
const path = 'GVL_HMI.aAxes[3].rPosition';
const connections = 50;
const durationSeconds = 5;
const targetRatio = 0.6;

type Mode = 'gateway' | 'bare';

async function serveGateway(): Promise<number> {
  const config = configFromDocument(
    {
      Auth: { SigningKey: signingKey },
      RateLimiting: { Enabled: true, GlobalPerUser: 100_000_000 },
    },
    process.cwd(),
    {},
  );
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
  const app = await buildApp(config, { registry: createRegistry([target]) });
  await app.listen({ host: '127.0.0.1', port: 0 });
  return (app.server.address() as { port: number }).port;
}

async function serveBare(): Promise<number> {
  const app = Fastify({ logger: false });
  const key = new TextEncoder().encode(signingKey);
  app.get('/bare', async (request, reply) => {
    const header = request.headers.authorization ?? '';
    try {
      await jwtVerify(header.slice('Bearer '.length), key, { algorithms: ['HS256'] });
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
  const child = fork(new URL(import.meta.url).pathname, [mode], { execArgv: ['--import', 'tsx'] });
  const [message] = (await once(child, 'message')) as [{ port: number }];
  return { child, port: message.port };
}

async function load(url: string, token: string): Promise<autocannon.Result> {
  const options = { url, connections, headers: { authorization: `Bearer ${token}` } };
  await autocannon({ ...options, duration: 1 }); // warm-up: JIT and connection setup
  return autocannon({ ...options, duration: durationSeconds });
}

function line(label: string, r: autocannon.Result): string {
  const bad = r.non2xx + r.errors;
  return (
    `${label.padEnd(8)} ${r.requests.average.toFixed(0).padStart(8)} req/s   p50 ${String(r.latency.p50).padStart(3)} ms` +
    `   p99 ${String(r.latency.p99).padStart(3)} ms${bad > 0 ? `   (${bad} failed)` : ''}`
  );
}

async function main(): Promise<void> {
  const token = await mintToken(
    { sub: 'bench', role: 'viewer', scope: 'ads:read', plcAccess: ['*'], ttlSeconds: 600 },
    { key: signingKey, roleClaim: 'role' },
  );
  const results: Partial<Record<Mode, autocannon.Result>> = {};
  for (const mode of ['gateway', 'bare'] as const) {
    const { child, port } = await startChild(mode);
    const url =
      mode === 'gateway'
        ? `http://127.0.0.1:${port}/api/plcs/line1/variables/${encodeURIComponent(path)}`
        : `http://127.0.0.1:${port}/bare`;
    const probe = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
    if (probe.status !== 200) throw new Error(`${mode}: ${probe.status} ${await probe.text()}`);
    results[mode] = await load(url, token);
    child.kill();
    await once(child, 'exit');
  }
  const gateway = results.gateway!;
  const bare = results.bare!;
  console.log(
    `GET variables/{path}, ${connections} connections, ${durationSeconds} s each, JWT verified per request`,
  );
  console.log(line('gateway', gateway));
  console.log(line('bare', bare));
  const ratio = gateway.requests.average / bare.requests.average;
  console.log(
    `ratio gateway/bare: ${ratio.toFixed(2)} (target >= ${targetRatio}): ${ratio >= targetRatio ? 'PASS' : 'FAIL'}`,
  );
}

const mode = process.argv[2];
if (mode === 'gateway' || mode === 'bare') {
  const port = mode === 'gateway' ? await serveGateway() : await serveBare();
  process.send?.({ port });
} else {
  await main();
}
