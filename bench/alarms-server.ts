// Child process of bench:alarms: 20 simulated PLCs, each a 1000-slot ST_ErrorEntry array with 100 active alarms
// churning, behind the gateway (flag Alarms as given by argv[2]: on | off). A raised alarm's ErrorCode carries the
// wall-clock millisecond of the change (mod 1e9), so the client measures change-to-frame latency.
// Messages: parent 'cpu' -> { cpuMs, wallMs, loopP99Ms, loopMaxMs } since the last 'cpu' (CPU time, wall time and
// the event loop's delay: how long a ready callback waited); 'stop' -> exit.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { buildApp } from '../src/app.ts';
import { configFromDocument } from '../src/config/load.ts';
import { errorEntryMembers, errorTypeMembers, timeStructMembers } from '../src/plc/index.ts';
import { ProgramBuilder, SimulatedPlc } from '../src/simulator/engine/index.ts';
import { createRegistry } from '../src/targets/registry.ts';
import { SimulatedTarget } from '../src/targets/simulated/index.ts';

export const plcCount = 20;
export const slots = 1000;
export const active = 100;
export const cycleTimeMs = 200;
/** Raise + end pairs per second per PLC. */
export const churnPerSecond = 10;
export const signingKey = 'bench-signing-key-0123456789-0123456789';
const array = 'GVL.fbAlarms.aAlarms';
const sampleMs = 10;

function program() {
  const b = new ProgramBuilder();
  b.enum('E_ErrorType', [...errorTypeMembers], 'INT');
  b.struct(
    'TIMESTRUCT',
    timeStructMembers.map((name) => ({ name, type: 'WORD' })),
  );
  b.struct('ST_ErrorEntry', errorEntryMembers);
  b.functionBlock('FB_Alarms', [{ name: 'aAlarms', type: `ARRAY [1..${slots}] OF ST_ErrorEntry` }], []);
  b.symbol('GVL.fbAlarms', 'FB_Alarms');
  return b.build();
}

function stamp(ms: number): Record<string, number> {
  const d = new Date(ms);
  return {
    wYear: d.getUTCFullYear(),
    wMonth: d.getUTCMonth() + 1,
    wDayOfWeek: d.getUTCDay(),
    wDay: d.getUTCDate(),
    wHour: d.getUTCHours(),
    wMinute: d.getUTCMinutes(),
    wSecond: d.getUTCSeconds(),
    wMilliseconds: d.getUTCMilliseconds(),
  };
}

const slotValue = (i: number, on: boolean, now: number) => ({
  sKey: `ALM_${String(i).padStart(4, '0')}`,
  Id: `eq${i % 37}`,
  ErrorCode: now % 1_000_000_000,
  ErrorType: 1 + (i % 3),
  IsActive: on,
  NeedsAck: false,
  IsAcked: false,
  PLCTimeStamp: stamp(now),
});

/** One PLC: the first `active` slots on; each churn ends one active alarm and raises one inactive. */
function churningPlc(id: string): { target: SimulatedTarget; tick(): void; churn(): void } {
  const plc = new SimulatedPlc(program());
  const now = Date.now();
  const on = new Set<number>();
  for (let i = 1; i <= slots; i++) {
    plc.write(`${array}[${i}]`, slotValue(i, i <= active, now));
    if (i <= active) on.add(i);
  }
  const pick = (from: (i: number) => boolean): number => {
    for (;;) {
      const i = 1 + Math.floor(Math.random() * slots);
      if (from(i)) return i;
    }
  };
  return {
    target: new SimulatedTarget(id, id, plc),
    tick: () => plc.sample(),
    churn: () => {
      const t = Date.now();
      const end = pick((i) => on.has(i));
      const raise = pick((i) => !on.has(i));
      plc.write(`${array}[${end}]`, slotValue(end, false, t));
      plc.write(`${array}[${raise}]`, slotValue(raise, true, t));
      on.delete(end);
      on.add(raise);
    },
  };
}

async function main(): Promise<void> {
  const alarms = process.argv[2] === 'on';
  const ids = Array.from({ length: plcCount }, (_, i) => `plc${String(i + 1).padStart(2, '0')}`);
  const config = configFromDocument(
    {
      Auth: { SigningKey: signingKey },
      Features: { Alarms: alarms },
      RateLimiting: { Enabled: false },
      PlcTargets: Object.fromEntries(ids.map((id) => [id, { Mode: 'Simulated' }])),
      PlcAlarms: {
        Targets: Object.fromEntries(ids.map((id) => [id, { SymbolPath: array, CycleTimeMs: cycleTimeMs }])),
      },
    },
    process.cwd(),
    {},
  );
  const plcs = ids.map(churningPlc);
  await Promise.all(plcs.map((p) => p.target.start()));
  const app = await buildApp(config, { registry: createRegistry(plcs.map((p) => p.target)) });
  await app.listen({ host: '127.0.0.1', port: 0 });
  // The PLC side: notifications sampled every 10 ms, churn spread evenly over the PLCs.
  const sampler = setInterval(() => plcs.forEach((p) => p.tick()), sampleMs);
  let next = 0;
  const churner = setInterval(
    () => {
      plcs[next]?.churn();
      next = (next + 1) % plcs.length;
    },
    1000 / (churnPerSecond * plcCount),
  );
  let cpu = process.cpuUsage();
  let wall = performance.now();
  const loop = monitorEventLoopDelay({ resolution: 5 });
  loop.enable();
  process.on('message', (message) => {
    if (message === 'cpu') {
      const used = process.cpuUsage(cpu);
      const t = performance.now();
      process.send?.({
        cpuMs: (used.user + used.system) / 1000,
        wallMs: t - wall,
        loopP99Ms: loop.percentile(99) / 1e6,
        loopMaxMs: loop.max / 1e6,
      });
      cpu = process.cpuUsage();
      wall = t;
      loop.reset();
    } else if (message === 'stop') {
      clearInterval(sampler);
      clearInterval(churner);
      void app.close().then(() => process.exit(0));
    }
  });
  process.send?.({ port: (app.server.address() as { port: number }).port });
}

if (process.argv[1]?.endsWith('alarms-server.ts')) await main();
