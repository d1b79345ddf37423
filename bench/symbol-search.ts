// Symbol search and flat listing over a simulated program of about 100000 symbols, through the HTTP stack
// (fastify inject: routing, JWT check, limits, serialization). Prints p50/p99 per query; target: search p99
// < 30 ms. Whole-program listings (about 10 MB) are printed for information.
import { performance } from 'node:perf_hooks';
import { buildApp } from '../src/app.ts';
import { ProgramBuilder, SimulatedPlc } from '../src/simulator/engine/index.ts';
import { createRegistry } from '../src/targets/registry.ts';
import { SimulatedTarget } from '../src/targets/simulated/index.ts';
import { mintToken } from '../src/cli/mint-token.ts';
import { configFromDocument } from '../src/config/load.ts';

const lines = 50;
const stationsPerLine = 100;
const iterations = 200;
const targetP99Ms = 30;
const signingKey = 'bench-signing-key-0123456789-0123456789';

function bigProgram() {
  const b = new ProgramBuilder();
  b.struct('ST_Axis', [
    { name: 'rPosition', type: 'LREAL' },
    { name: 'rVelocity', type: 'LREAL' },
    { name: 'bEnabled', type: 'BOOL' },
    { name: 'bHomed', type: 'BOOL' },
  ]);
  b.struct('ST_Station', [
    { name: 'sName', type: 'STRING(15)', comment: 'Station name' },
    { name: 'nState', type: 'INT' },
    { name: 'rSpeed', type: 'REAL' },
    { name: 'rTemp', type: 'REAL' },
    { name: 'bRunning', type: 'BOOL' },
    { name: 'aCounts', type: 'ARRAY [1..8] OF UDINT' },
    { name: 'stAxis', type: 'ST_Axis' },
  ]);
  for (let l = 1; l <= lines; l++) {
    b.symbol(`GVL_Line${l}.aStations`, `ARRAY [1..${stationsPerLine}] OF ST_Station`);
  }
  return b.build();
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

async function main(): Promise<void> {
  const target = new SimulatedTarget('big', 'Big', new SimulatedPlc(bigProgram()));
  await target.start();
  const config = configFromDocument(
    {
      Auth: { SigningKey: signingKey },
      RateLimiting: { Enabled: true, GlobalPerUser: 1_000_000, SymbolBrowsing: 1_000_000 },
    },
    process.cwd(),
    {},
  );
  const app = await buildApp(config, { registry: createRegistry([target]) });
  await app.ready();
  const token = await mintToken(
    { sub: 'bench', role: 'viewer', scope: 'ads:read', plcAccess: ['*'], ttlSeconds: 600 },
    { key: signingKey, roleClaim: 'role' },
  );
  const headers = { authorization: `Bearer ${token}` };

  const flatAll = await app.inject({ url: '/api/plcs/big/symbols?flat=true', headers });
  const total = flatAll.json<{ data: unknown[] }>().data.length;
  console.log(`program: ${total} symbols (every node of the tree)`);

  const queries: Array<{ label: string; url: string }> = [
    { label: 'search one station, tree', url: '/api/plcs/big/symbols?search=GVL_Line42.aStations%5B77%5D' },
    { label: 'search member name, tree', url: '/api/plcs/big/symbols?search=rtemp' },
    { label: 'search member name, flat', url: '/api/plcs/big/symbols?search=rtemp&flat=true' },
    { label: 'search one line, flat', url: '/api/plcs/big/symbols?search=gvl_line7.&flat=true' },
    { label: 'search no match, flat', url: '/api/plcs/big/symbols?search=nothing-like-this&flat=true' },
    { label: 'one symbol with children', url: '/api/plcs/big/symbols/GVL_Line9.aStations%5B50%5D' },
    { label: 'flat listing, all symbols', url: '/api/plcs/big/symbols?flat=true' },
    { label: 'tree listing, all symbols', url: '/api/plcs/big/symbols' },
  ];

  let worst = 0;
  console.log('query                          results     p50 ms   p99 ms   bytes');
  for (const q of queries) {
    const times: number[] = [];
    let results = 0;
    let bytes = 0;
    for (let i = 0; i < iterations + 10; i++) {
      const t0 = performance.now();
      const res = await app.inject({ url: q.url, headers });
      const dt = performance.now() - t0;
      if (res.statusCode !== 200) throw new Error(`${q.url}: ${res.statusCode} ${res.body.slice(0, 200)}`);
      if (i >= 10) times.push(dt); // the first runs warm the JIT
      if (i === 0) {
        bytes = res.rawPayload.length;
        const data = res.json<{ data: unknown }>().data;
        results = Array.isArray(data) ? data.length : 1;
      }
    }
    times.sort((a, b) => a - b);
    const p99 = percentile(times, 99);
    if (!q.label.endsWith('all symbols')) worst = Math.max(worst, p99);
    console.log(
      `${q.label.padEnd(30)} ${String(results).padStart(7)} ${percentile(times, 50).toFixed(2).padStart(9)} ` +
        `${p99.toFixed(2).padStart(8)} ${String(bytes).padStart(9)}`,
    );
  }
  console.log('(whole-program listings send about 10 MB each and are shown for information, not judged)');
  console.log(
    `worst search p99: ${worst.toFixed(2)} ms (target < ${targetP99Ms} ms): ${worst < targetP99Ms ? 'PASS' : 'FAIL'}`,
  );
  await app.close();
}

await main();
