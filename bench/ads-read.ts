// Benchmark of reads on a Real target (the ADS driver) against the simulator's ADS server over loopback.
// Driver: 100 variables through one readMany (sum commands) versus 100 reads of one variable each, all sent at
// once as an HMI would, so the ratio measures sum commands rather than round trips; 1000 via readMany.
// HTTP (the real app, auth and rate limits on, limits raised): 100 variables in one GET variables?paths=...
// versus 100 single GET variables/{path} sent at once; then the single-variable read throughput with
// autocannon as a share of the ADS server's ceiling (ads-client reading 4 bytes by handle, same concurrency).
// The gateway and the ceiling each run in a child process (with their ADS server); the load comes from here.
// Run: npm run bench:ads-read [-- --rounds 50]   (targets: both one-by-one / batch ratios >= 10x)
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import autocannon from 'autocannon';
import { buildApp } from '../src/app.ts';
import { mintToken } from '../src/cli/mint-token.ts';
import type { PlcTargetConfig } from '../src/config/schema.ts';
import { configFromDocument } from '../src/config/load.ts';
import { createAdsServer } from '../src/simulator/ads-server/server.ts';
import { ProgramBuilder, SimulatedPlc } from '../src/simulator/engine/index.ts';
import { createAdsTarget } from '../src/targets/ads/index.ts';
import { createRegistry } from '../src/targets/registry.ts';
import { connectClient, fmt, handleReadRate } from './ads-rate.ts';

const roundsArg = process.argv.indexOf('--rounds');
const rounds = roundsArg > 0 ? Number(process.argv[roundsArg + 1]) : 50;
const VARIABLES = 1000;
const connections = 50;
const durationSeconds = 5;
const signingKey = 'bench-signing-key-0123456789-0123456789';
/** A DINT: the gateway reads the same 4 bytes the ceiling reads by handle. */
const singlePath = 'GVL.n1';
const hundred = Array.from({ length: 100 }, (_, i) => `GVL.n${i}`);
const thousand = Array.from({ length: VARIABLES }, (_, i) => `GVL.n${i}`);

function program() {
  const b = new ProgramBuilder();
  for (let i = 0; i < VARIABLES; i++) b.symbol(`GVL.n${i}`, i % 2 ? 'DINT' : 'LREAL', { value: i });
  return b.build();
}

/** An ADS server over a fresh PLC and a connected Real target in front of it, symbols loaded. */
async function realTarget(id: string) {
  const server = createAdsServer({ plc: new SimulatedPlc(program()), host: '127.0.0.1', port: 0 });
  const address = await server.listen();
  const settings: PlcTargetConfig = {
    DisplayName: 'Bench',
    Mode: 'Real',
    AmsNetId: address.netId,
    Address: '127.0.0.1',
    Port: address.adsPort,
    TcpPort: address.port,
    TimeoutMs: 5000,
    SymbolBrowseTimeoutMs: 30000,
    NotificationBudget: 500,
    Rpc: { Invokable: [] },
    InitialValues: {},
    ScenarioAutoStart: false,
  };
  const target = createAdsTarget(id, settings, { config: benchConfig() });
  await target.start();
  if (target.connectionState() !== 'Connected') throw new Error('the ADS target did not connect');
  await target.symbols();
  return { server, target };
}

/** The gateway's settings: the signing key, rate limits raised out of the way, the local AMS address. */
function benchConfig() {
  return configFromDocument(
    {
      Auth: { SigningKey: signingKey },
      RateLimiting: { Enabled: true, GlobalPerUser: 100_000_000 },
      // The 100 connections of the one-by-one reads idle while the batch is timed: keep them open.
      Http: { KeepAliveTimeoutMs: 600_000 },
      AmsRouter: { NetId: '127.0.0.1.1.20', LocalAdsPort: 32750 },
    },
    process.cwd(),
    {},
  );
}

/**
 * Milliseconds of one run of each op: after warm-up runs (JIT, buffers, sockets), the average over `rounds`
 * runs, taken five times with the two ops interleaved (a, b, a, b, ...) so both see the same machine; the
 * best of the five, so a garbage collection or a scheduler hiccup does not decide the figure.
 */
async function timeInterleaved(...ops: Array<() => Promise<unknown>>): Promise<number[]> {
  const best = ops.map(() => Infinity);
  for (const op of ops) for (let i = 0; i < rounds; i++) await op();
  for (let take = 0; take < 5; take++) {
    for (const [k, op] of ops.entries()) {
      const start = process.hrtime.bigint();
      for (let i = 0; i < rounds; i++) await op();
      best[k] = Math.min(best[k]!, Number(process.hrtime.bigint() - start) / 1e6 / rounds);
    }
  }
  return best;
}

async function driverPart(): Promise<void> {
  const { server, target } = await realTarget('bench');
  const [summed = 0, single = 0, big = 0] = await timeInterleaved(
    () => target.readMany(hundred),
    () => Promise.all(hundred.map((p) => target.read(p))),
    () => target.readMany(thousand),
  );
  const failures = (await target.readMany(thousand)).filter((i) => 'error' in i).length;

  console.log(`Driver: ADS target over loopback, best of 5 interleaved takes of ${rounds} rounds each`);
  console.log(`  100 variables, readMany (sum read):   ${summed.toFixed(2)} ms`);
  console.log(`  100 variables, one read each at once: ${single.toFixed(2)} ms`);
  console.log(`  ratio (one read each / readMany):     ${verdict(single / summed, 10)}`);
  console.log(`  1000 variables, readMany:             ${big.toFixed(2)} ms (${failures} failed items)`);
  console.log(`  1000 variables per second (readMany): ${fmt((VARIABLES * 1000) / big)}`);
  await target.close();
  await server.close();
}

// Child processes: the gateway on a Real target, and the ADS server ceiling.

async function serveGateway(): Promise<void> {
  const { target } = await realTarget('line1');
  const app = await buildApp(benchConfig(), { registry: createRegistry([target]) });
  await app.listen({ host: '127.0.0.1', port: 0 });
  process.send?.({ port: (app.server.address() as { port: number }).port });
}

async function measureCeiling(): Promise<void> {
  const server = createAdsServer({ plc: new SimulatedPlc(program()), host: '127.0.0.1', port: 0 });
  const address = await server.listen();
  const client = await connectClient(address.port);
  const perSecond = await handleReadRate(client, singlePath, connections, durationSeconds);
  process.send?.({ perSecond });
  await client.disconnect();
  await server.close();
}

async function child<T>(mode: 'gateway' | 'ceiling'): Promise<{ proc: ChildProcess; message: T }> {
  const proc = fork(new URL(import.meta.url).pathname, [mode], { execArgv: ['--import', 'tsx'] });
  const [message] = (await once(proc, 'message')) as [T];
  return { proc, message };
}

async function stop(p: ChildProcess): Promise<void> {
  if (p.exitCode !== null) return;
  p.kill();
  await once(p, 'exit');
}

function verdict(ratio: number, target: number, digits = 1): string {
  return `${ratio.toFixed(digits)}x (target >= ${target}x): ${ratio >= target ? 'PASS' : 'FAIL'}`;
}

async function httpPart(): Promise<void> {
  const token = await mintToken(
    { sub: 'bench', role: 'viewer', scope: 'ads:read', plcAccess: ['*'], ttlSeconds: 600 },
    { key: signingKey, roleClaim: 'role' },
  );
  const headers = { authorization: `Bearer ${token}` };
  const gateway = await child<{ port: number }>('gateway');
  let load: autocannon.Result;
  let batch: number;
  let oneByOne: number;
  try {
    const base = `http://127.0.0.1:${gateway.message.port}/api/plcs/line1/variables`;
    const get = async (url: string): Promise<unknown> => {
      const res = await fetch(url, { headers });
      const body = (await res.json()) as { data: unknown; error: unknown };
      if (res.status !== 200 || body.error !== null) throw new Error(`${url}: ${res.status}`);
      return body.data;
    };
    const batchUrl = `${base}?${hundred.map((p) => `paths=${encodeURIComponent(p)}`).join('&')}`;
    const check = (await get(batchUrl)) as { values: Record<string, { error?: unknown }> };
    const failed = Object.values(check.values).filter((v) => v.error !== undefined).length;
    if (failed > 0) throw new Error(`${failed} of the 100 batch paths failed`);
    [batch = 0, oneByOne = 0] = await timeInterleaved(
      () => get(batchUrl),
      () => Promise.all(hundred.map((p) => get(`${base}/${encodeURIComponent(p)}`))),
    );
    const options = { url: `${base}/${encodeURIComponent(singlePath)}`, connections, headers };
    await autocannon({ ...options, duration: 1 }); // warm-up: JIT and connection setup
    load = await autocannon({ ...options, duration: durationSeconds });
  } finally {
    await stop(gateway.proc);
  }
  const ceiling = await child<{ perSecond: number }>('ceiling');
  await stop(ceiling.proc);
  const bad = load.non2xx + load.errors;

  console.log(
    `HTTP: the gateway (buildApp, real listen, JWT per request) on the Real target, best of 5 interleaved takes`,
  );
  console.log(`  100 variables, one GET variables?paths=... (sum read): ${batch.toFixed(2)} ms`);
  console.log(`  100 variables, 100 GET variables/{path} at once:      ${oneByOne.toFixed(2)} ms`);
  console.log(`  ratio (one by one / batch):                            ${verdict(oneByOne / batch, 10)}`);
  console.log(
    `  GET variables/{path}, ${connections} connections, ${durationSeconds} s:  ${fmt(load.requests.average)} req/s` +
      `   p50 ${load.latency.p50} ms   p99 ${load.latency.p99} ms${bad > 0 ? `   (${bad} failed)` : ''}`,
  );
  console.log(
    `  ADS server ceiling, ads-client 4 bytes by handle, ${connections} in flight: ${fmt(ceiling.message.perSecond)} reads/s`,
  );
  console.log(
    `  ratio gateway / ceiling:                               ${(load.requests.average / ceiling.message.perSecond).toFixed(2)}`,
  );
}

const mode = process.argv[2];
if (mode === 'gateway') await serveGateway();
else if (mode === 'ceiling') await measureCeiling();
else {
  try {
    await driverPart();
    await httpPart();
  } catch (err) {
    console.error(err);
    process.exitCode = 1;
  }
}
