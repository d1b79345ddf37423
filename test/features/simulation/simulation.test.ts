// Simulation routes through HTTP on real simulated targets: every transition, conflicts, Faulted through the
// script, reset semantics, cycles validation, commands through the target, and the guards' answers.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import type { FastifyInstance } from 'fastify';
import { createSimulatedTarget } from '../../../src/targets/simulated/index.ts';
import type { PlcTarget } from '../../../src/targets/target.ts';
import { buildTestApp } from '../../helpers/app.ts';
import { testConfig } from '../../helpers/config.ts';
import { FakeTarget } from '../../helpers/fake-target.ts';
import { bearer, mintToken } from '../../helpers/tokens.ts';
import { scenarioDoc, writeScenario } from '../../simulator/scenario/helpers.ts';

const line = writeScenario(
  scenarioDoc({
    machine: { state: 0, speedSetpoint: 30 },
    axes: [
      {
        id: 'cell.x',
        unit: 'mm',
        limits: { min: 0, max: 100, vmax: 50, amax: 100 },
        start: { position: 0, targetPos: 100 },
      },
      { id: 'cell.y', unit: 'mm', limits: { min: -10, max: 10, vmax: 5, amax: 10 }, start: { position: 0 } },
    ],
  }),
);
const faulty = writeScenario(
  scenarioDoc({
    alarms: [{ key: 'JAM', equipment: 'cell' }],
    script: [
      { atCycle: 10, raise: 'JAM' },
      { atCycle: 50, fail: 'gearbox seized' },
    ],
  }),
);
const fast = writeScenario(scenarioDoc({ scanMs: 10 }));

const config = testConfig(
  {
    Features: { Simulation: true },
    PlcTargets: {
      line: {
        Mode: 'Simulated',
        Scenario: line,
        InitialValues: { 'MAIN.nSpeed': { value: 1500, type: 'DINT' } },
      },
      twin: { Mode: 'Simulated', Scenario: line },
      faulty: { Mode: 'Simulated', Scenario: faulty },
      fast: { Mode: 'Simulated', Scenario: fast },
      plain: { Mode: 'Simulated' },
    },
  },
  tmpdir(),
);

let app: FastifyInstance;
let offApp: FastifyInstance;
const targets = new Map<string, PlcTarget>();
let token: string;

before(async () => {
  for (const [id, settings] of Object.entries(config.settings.PlcTargets)) {
    const t = await createSimulatedTarget(id, settings, { config });
    await t.start();
    targets.set(id, t);
  }
  const real = new FakeTarget('real', { mode: 'Real' });
  app = await buildTestApp({ config, targets: [...targets.values(), real] });
  offApp = await buildTestApp({ targets: [...targets.values()] });
  token = await mintToken();
});
after(async () => {
  await app.close();
  await offApp.close();
  for (const t of targets.values()) await t.close();
});

const target = (id: string) => targets.get(id)!;

async function sim(plcId: string, action: string, query = '', claims?: Record<string, unknown>) {
  const method = action === 'state' ? 'GET' : 'POST';
  const headers = bearer(claims ? await mintToken(claims) : token);
  const res = await app.inject({ method, url: `/api/plcs/${plcId}/sim/${action}${query}`, headers });
  return {
    status: res.statusCode,
    body: res.json<{
      data: Record<string, unknown> | null;
      error: { code: string; message: string } | null;
    }>(),
  };
}

async function ok(plcId: string, action: string, query = '') {
  const r = await sim(plcId, action, query);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.data!;
}

async function read(plcId: string, path: string) {
  return (await target(plcId).read(path)).value;
}

describe('simulation routes: access', () => {
  test('501 FEATURE_DISABLED when the Simulation flag is off', async () => {
    const res = await offApp.inject({ url: '/api/plcs/line/sim/state', headers: bearer(token) });
    assert.equal(res.statusCode, 501);
    assert.equal(res.json<{ error: { code: string } }>().error.code, 'FEATURE_DISABLED');
  });

  test('403 without LifecycleAccess', async () => {
    const r = await sim('line', 'state', '', { role: 'operator', scope: 'ads:read ads:write' });
    assert.equal(r.status, 403);
  });

  test('401 without a token', async () => {
    const res = await app.inject({ method: 'POST', url: '/api/plcs/line/sim/run' });
    assert.equal(res.statusCode, 401);
  });

  test('404 PLC_NOT_FOUND for an unknown plcId', async () => {
    const r = await sim('nope', 'state');
    assert.equal(r.status, 404);
    assert.equal(r.body.error?.code, 'PLC_NOT_FOUND');
  });

  test('404 SCENARIO_NOT_CONFIGURED for a simulated target without a scenario', async () => {
    for (const action of ['state', 'run', 'pause', 'reset']) {
      const r = await sim('plain', action);
      assert.equal(r.status, 404);
      assert.equal(r.body.error?.code, 'SCENARIO_NOT_CONFIGURED');
    }
    const r = await sim('plain', 'step', '?cycles=1');
    assert.equal(r.body.error?.code, 'SCENARIO_NOT_CONFIGURED');
  });

  test('404 SCENARIO_NOT_CONFIGURED for a Real target, saying it is not simulated', async () => {
    const r = await sim('real', 'run');
    assert.equal(r.status, 404);
    assert.equal(r.body.error?.code, 'SCENARIO_NOT_CONFIGURED');
    assert.match(r.body.error?.message ?? '', /not simulated/);
  });
});

describe('simulation routes: step cycles', () => {
  for (const query of [
    '?cycles=0',
    '?cycles=100001',
    '?cycles=-1',
    '?cycles=1.5',
    '?cycles=abc',
    '',
    '?cycles=',
    // Plain decimal digits only: each of these is a number to JavaScript, and 0x10 once ran 16 scans.
    '?cycles=0x10',
    '?cycles=0b1',
    '?cycles=0o7',
    '?cycles=1e3',
    '?cycles=%2B5',
    '?cycles=+5',
    '?cycles=%201',
    '?cycles=1.0',
    '?cycles=1%00',
  ]) {
    test(`400 VALIDATION_ERROR for "${query}", nothing runs`, async () => {
      const before = await ok('twin', 'state');
      const r = await sim('twin', 'step', query);
      assert.equal(r.status, 400);
      assert.equal(r.body.error?.code, 'VALIDATION_ERROR');
      assert.deepEqual(await ok('twin', 'state'), before);
    });
  }

  test('cycles=1 and cycles=100000 run exactly that many scans', async () => {
    await ok('twin', 'reset');
    assert.equal((await ok('twin', 'step', '?cycles=1')).cycleCount, 1);
    const s = await ok('twin', 'step', '?cycles=100000');
    assert.deepEqual(s, {
      state: 'Stopped',
      cycleCount: 100001,
      elapsedMs: 10000100,
      scanMs: 100,
      error: null,
    });
  });
});

describe('simulation routes: state machine', () => {
  test('initial state after load is Stopped', async () => {
    assert.deepEqual(await ok('faulty', 'state'), {
      state: 'Stopped',
      cycleCount: 0,
      elapsedMs: 0,
      scanMs: 100,
      error: null,
    });
  });

  test('step from Stopped stays Stopped and advances the counters', async () => {
    await ok('line', 'reset');
    assert.deepEqual(await ok('line', 'step', '?cycles=5'), {
      state: 'Stopped',
      cycleCount: 5,
      elapsedMs: 500,
      scanMs: 100,
      error: null,
    });
  });

  test('run, run again (no-op), step refused while Running, pause keeps everything, step from Paused', async () => {
    await ok('line', 'reset');
    assert.equal((await ok('line', 'run')).state, 'Running');
    assert.equal((await ok('line', 'run')).state, 'Running');
    const conflict = await sim('line', 'step', '?cycles=3');
    assert.equal(conflict.status, 409);
    assert.equal(conflict.body.error?.code, 'SIMULATION_CONFLICT');
    assert.match(conflict.body.error?.message ?? '', /pause/);
    const paused = await ok('line', 'pause');
    assert.equal(paused.state, 'Paused');
    const position = await read('line', 'GVL_HMI.aAxes[1].rPosition');
    assert.deepEqual(await ok('line', 'state'), paused, 'counters kept while paused');
    assert.equal(await read('line', 'GVL_HMI.aAxes[1].rPosition'), position, 'values kept');
    const stepped = await ok('line', 'step', '?cycles=2');
    assert.equal(stepped.state, 'Paused', 'step from Paused stays Paused');
    assert.equal(stepped.cycleCount, (paused.cycleCount as number) + 2);
    assert.equal((await ok('line', 'pause')).state, 'Paused');
    assert.equal((await ok('line', 'run')).state, 'Running', 'resumes');
    assert.equal((await ok('line', 'reset')).state, 'Stopped');
    assert.equal((await ok('line', 'pause')).state, 'Stopped', 'pause when not Running is a no-op');
  });

  test('the pump ticks in real time while Running', async () => {
    await ok('fast', 'reset');
    const seeded = await read('fast', 'GVL_HMI.stRev.nAxesMotion');
    let moved!: (value: unknown) => void;
    const motion = new Promise((resolve) => (moved = resolve));
    const sub = await target('fast').subscribe('GVL_HMI.stRev.nAxesMotion', {
      cycleTimeMs: 0,
      onChange: (e) => {
        if (e.value !== seeded) moved(e.value);
      },
    });
    await ok('fast', 'run');
    await motion; // the pump scanned and the axis moved
    const s = await ok('fast', 'pause');
    await sub.close();
    assert.ok((s.cycleCount as number) >= 1);
    assert.equal(s.elapsedMs, (s.cycleCount as number) * 10);
  });

  test('a scan that throws faults the simulation: 500 for that request, 409 until reset', async () => {
    await ok('faulty', 'reset');
    const r = await sim('faulty', 'step', '?cycles=100');
    assert.equal(r.status, 500);
    assert.equal(r.body.error?.code, 'INTERNAL_ERROR');
    assert.deepEqual(await ok('faulty', 'state'), {
      state: 'Faulted',
      cycleCount: 49,
      elapsedMs: 4900,
      scanMs: 100,
      error: 'Scan cycle 50 failed: gearbox seized',
    });
    for (const [action, query] of [
      ['step', '?cycles=1'],
      ['run', ''],
      ['pause', ''],
    ] as const) {
      const c = await sim('faulty', action, query);
      assert.equal(c.status, 409, action);
      assert.equal(c.body.error?.code, 'SIMULATION_CONFLICT');
      assert.match(c.body.error?.message ?? '', /reset/);
    }
    assert.equal(await read('faulty', 'GVL_HMI.fbAlarms.aAlarms[1].IsActive'), true);
    assert.deepEqual(await ok('faulty', 'reset'), {
      state: 'Stopped',
      cycleCount: 0,
      elapsedMs: 0,
      scanMs: 100,
      error: null,
    });
    assert.equal(await read('faulty', 'GVL_HMI.fbAlarms.aAlarms[1].IsActive'), false, 're-seeded');
  });
});

describe('simulation routes: reset and commands', () => {
  test('reset re-seeds scenario symbols only, not InitialValues, and stRev keeps counting', async () => {
    await ok('line', 'reset');
    await ok('line', 'step', '?cycles=30');
    await target('line').write('MAIN.nSpeed', 7);
    await target('line').write('GVL_HMI.aParts[2]', 'extra');
    const rev = (await read('line', 'GVL_HMI.stRev')) as Record<string, number>;
    await ok('line', 'reset');
    assert.equal(await read('line', 'MAIN.nSpeed'), 7, 'InitialValues are not re-seeded');
    assert.equal(await read('line', 'GVL_HMI.aAxes[1].rPosition'), 0);
    assert.equal(await read('line', 'GVL_HMI.aParts[2]'), '');
    const after = (await read('line', 'GVL_HMI.stRev')) as Record<string, number>;
    for (const [k, v] of Object.entries(rev)) assert.ok((after[k] ?? 0) >= v, k);
    assert.ok((after.nParts ?? 0) > (rev.nParts ?? 0));
    assert.ok((after.nAxesMotion ?? 0) > (rev.nAxesMotion ?? 0));
  });

  test('a scenario without a script settles and holds still: not a fault', async () => {
    await ok('line', 'reset');
    const s = await ok('line', 'step', '?cycles=1000');
    assert.equal(s.state, 'Stopped');
    assert.equal(s.error, null);
    const axes = (await read('line', 'GVL_HMI.aAxes')) as Array<Record<string, unknown>>;
    assert.deepEqual(
      axes.slice(0, 2).map((a) => [a.rPosition, a.rVelocity, a.bMoving]),
      [
        [100, 0, false],
        [0, 0, false],
      ],
    );
    const rev = await read('line', 'GVL_HMI.stRev');
    await ok('line', 'step', '?cycles=100');
    assert.deepEqual(await read('line', 'GVL_HMI.stRev'), rev);
  });

  test('writes through the target are commands the next scan obeys', async () => {
    await ok('line', 'reset');
    await target('line').writeMany([
      { symbol: 'GVL_HMI.aAxes[2].rTargetPos', value: -4 },
      { symbol: 'GVL_HMI.stMachine.rSpeedSetpoint', value: 12 },
    ]);
    await target('line').write('GVL_HMI.aAxes[1].bEnabled', false);
    await ok('line', 'step', '?cycles=1');
    assert.equal(await read('line', 'GVL_HMI.stMachine.rSpeed'), 12);
    assert.equal(await read('line', 'GVL_HMI.aAxes[1].rPosition'), 0, 'disabled');
    assert.ok(((await read('line', 'GVL_HMI.aAxes[2].rPosition')) as number) < 0);
    await ok('line', 'step', '?cycles=100');
    assert.equal(await read('line', 'GVL_HMI.aAxes[2].rPosition'), -4);
  });

  test('extreme but finite limits written through the target never make an axis NaN', async () => {
    await ok('line', 'reset');
    await target('line').writeMany([
      { symbol: 'GVL_HMI.aAxes[1].rMin', value: -1.7e308 },
      { symbol: 'GVL_HMI.aAxes[1].rMax', value: 1.7e308 },
      { symbol: 'GVL_HMI.aAxes[1].rPosition', value: -1.7e308 },
      { symbol: 'GVL_HMI.aAxes[1].rTargetPos', value: 1.7e308 },
      { symbol: 'GVL_HMI.aAxes[2].rAmax', value: 5e-324 },
      { symbol: 'GVL_HMI.aAxes[2].rTargetPos', value: 5 },
    ]);
    await ok('line', 'step', '?cycles=10');
    const axes = (await read('line', 'GVL_HMI.aAxes')) as Array<Record<string, number>>;
    for (const a of axes.slice(0, 2)) {
      assert.ok(Number.isFinite(a.rPosition) && Number.isFinite(a.rVelocity), JSON.stringify(a));
    }
    // Back to sane limits, the axis moves again from wherever it is.
    await target('line').writeMany([
      { symbol: 'GVL_HMI.aAxes[1].rMin', value: 0 },
      { symbol: 'GVL_HMI.aAxes[1].rMax', value: 100 },
      { symbol: 'GVL_HMI.aAxes[1].rTargetPos', value: 40 },
    ]);
    await ok('line', 'step', '?cycles=200');
    assert.equal(await read('line', 'GVL_HMI.aAxes[1].rPosition'), 40);
  });

  test('deterministic: two targets with the same scenario and commands end equal', async () => {
    const runs = [];
    for (const id of ['line', 'twin']) {
      await ok(id, 'reset');
      await ok(id, 'step', '?cycles=7');
      await target(id).write('GVL_HMI.aAxes[2].rTargetPos', 9.25);
      await ok(id, 'step', '?cycles=13');
      runs.push([await read(id, 'GVL_HMI.aAxes'), await read(id, 'GVL_HMI.stMachine')]);
    }
    assert.deepEqual(runs[0], runs[1]);
  });
});
