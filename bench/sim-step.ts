// Benchmark of scenario stepping: POST sim/step?cycles=100000 on the 16-axis example through HTTP inject,
// against a bare loop of the same kinematics and target schedule on typed arrays. The two are measured in
// turn, five times each (the simulation reset before each step), and reported as min / median / max.
// Run: npm run bench:sim-step   (targets: median under 0.5 s, median within 3x of the bare loop)
import { join } from 'node:path';
import { buildApp } from '../src/app.ts';
import { mintToken } from '../src/cli/mint-token.ts';
import { configFromDocument } from '../src/config/load.ts';
import { loadScenario, stepAxis, type ScenarioDefinition } from '../src/simulator/scenario/index.ts';
import { stepCycle, stepPeriod } from '../src/simulator/scenario/script.ts';
import { createRegistry } from '../src/targets/registry.ts';
import { createSimulatedTarget } from '../src/targets/simulated/index.ts';

const CYCLES = 100_000;
const root = join(import.meta.dirname, '..');
const scenarioDir = 'examples/scenarios/line16';
const signingKey = 'bench-signing-key-0123456789-0123456789';

/** The same work without PLC memory, HTTP or revision counters: kinematics plus the scripted targets. */
function bareLoop(s: ScenarioDefinition, cycles: number): number {
  const n = s.axes.length;
  const pos = new Float64Array(n);
  const vel = new Float64Array(n);
  const target = new Float64Array(n);
  s.axes.forEach((a, i) => {
    pos[i] = a.start.position;
    target[i] = a.start.targetPos ?? a.start.position;
  });
  const sets = s.script.flatMap((st) => {
    const m = st.set ? /^aAxes\[(\d+)\]\.rTargetPos$/.exec(st.set.path) : null;
    return m && st.set
      ? [
          {
            axis: Number(m[1]) - 1,
            first: stepCycle(st, s.scanMs),
            period: stepPeriod(st, s.scanMs),
            value: Number(st.set.value),
          },
        ]
      : [];
  });
  const out = { position: 0, velocity: 0 };
  const dt = s.scanMs / 1000;
  const start = process.hrtime.bigint();
  for (let c = 1; c <= cycles; c++) {
    for (const t of sets) {
      if (c === t.first || (t.period > 0 && c > t.first && (c - t.first) % t.period === 0))
        target[t.axis] = t.value;
    }
    for (let i = 0; i < n; i++) {
      const a = s.axes[i]!;
      stepAxis(
        pos[i]!,
        vel[i]!,
        target[i]!,
        a.limits.min,
        a.limits.max,
        a.limits.vmax,
        a.limits.amax,
        true,
        dt,
        out,
      );
      pos[i] = out.position;
      vel[i] = out.velocity;
    }
  }
  return Number(process.hrtime.bigint() - start) / 1e6;
}

const config = configFromDocument(
  {
    Auth: { SigningKey: signingKey },
    Features: { Simulation: true },
    RateLimiting: { Enabled: false },
    PlcTargets: { line16: { Mode: 'Simulated', Scenario: scenarioDir } },
  },
  root,
  {},
);
const targetSettings = config.settings.PlcTargets.line16!;
const target = await createSimulatedTarget('line16', targetSettings, { config });
await target.start();
const app = await buildApp(config, { registry: createRegistry([target]) });
const token = await mintToken(
  { sub: 'bench', role: 'admin', scope: 'ads:lifecycle', plcAccess: ['*'], ttlSeconds: 600 },
  { key: signingKey, roleClaim: 'role' },
);
const headers = { authorization: `Bearer ${token}` };
const post = (action: string) =>
  app.inject({ method: 'POST', url: `/api/plcs/line16/sim/${action}`, headers });

// Warm up both paths so the JIT has compiled them.
await post('step?cycles=20000');
await post('reset');
const scenario = await loadScenario(join(root, scenarioDir));
bareLoop(scenario, 20_000);

const RUNS = 5;
const stepMs: number[] = [];
const bareMs: number[] = [];
let last = '';
for (let run = 0; run < RUNS; run++) {
  await post('reset');
  const t0 = process.hrtime.bigint();
  const res = await post(`step?cycles=${CYCLES}`);
  stepMs.push(Number(process.hrtime.bigint() - t0) / 1e6);
  if (res.statusCode !== 200) throw new Error(`step failed: ${res.statusCode} ${res.body}`);
  last = res.body;
  bareMs.push(bareLoop(scenario, CYCLES));
}

const sorted = (xs: number[]) => [...xs].sort((x, y) => x - y);
const median = (xs: number[]) => sorted(xs)[Math.floor(xs.length / 2)]!;
const spread = (xs: number[]) => {
  const s = sorted(xs);
  return `${s[0]!.toFixed(1)} / ${median(xs).toFixed(1)} / ${s[s.length - 1]!.toFixed(1)} ms`;
};
const axisCycles = CYCLES * scenario.axes.length;
const stepMedian = median(stepMs);
const ratios = stepMs.map((ms, i) => ms / bareMs[i]!);
const ratio = median(ratios);
console.log(
  `sim/step?cycles=${CYCLES} on ${scenario.axes.length} axes through HTTP inject, ${RUNS} interleaved runs (Node ${process.version})`,
);
console.log('                       min / median / max');
console.log(
  `  sim/step             ${spread(stepMs)}   (target median < 500 ms: ${stepMedian < 500 ? 'ok' : 'MISSED'})`,
);
console.log(`  bare kinematics loop ${spread(bareMs)}`);
console.log(
  `  per axis-cycle       ${((stepMedian * 1e6) / axisCycles).toFixed(1)} ns (median), bare ${((median(bareMs) * 1e6) / axisCycles).toFixed(1)} ns`,
);
console.log(
  `  ratio, run by run    ${sorted(ratios)[0]!.toFixed(2)} / ${ratio.toFixed(2)} / ${sorted(ratios)[RUNS - 1]!.toFixed(2)}x` +
    `   (target median <= 3x: ${ratio <= 3 ? 'ok' : 'MISSED'})`,
);
console.log(`  state                ${last}`);

await app.close();
await target.close();
