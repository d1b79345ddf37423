// The gvl-hmi/1 runtime on a bare PLC: layout, commands from memory, revision counters, alarms, script,
// reset and determinism.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { SimulatedPlc } from '../../../src/simulator/engine/index.ts';
import { scenarioDoc, scenarioPlc, ManualTimer } from './helpers.ts';

const alarms = [
  { key: 'HOT', equipment: 'oven', errorCode: 17, errorType: 'WARNING', needsAck: true },
  { key: 'INFO_ONLY', equipment: 'oven', errorType: 'INFO', needsAck: false },
];

const rev = (p: { plc: SimulatedPlc }) => p.plc.read('GVL_HMI.stRev') as Record<string, number>;

describe('gvl-hmi/1 runtime', () => {
  test('declares the layout under root with derived types and seeds', () => {
    const p = scenarioPlc(scenarioDoc({ machine: { state: 1, mode: 3 } }));
    const { plc } = p;
    assert.deepEqual(plc.read('GVL_HMI.stHeader'), {
      sContract: 'gvl-hmi/1',
      nAxisCount: 1,
      nPartCount: 1,
      nMaxAxes: 16,
      nScanMs: 100,
    });
    assert.equal(plc.resolve('GVL_HMI.aAxes').type.name, 'ARRAY [1..16] OF ST_HmiAxis');
    assert.equal(plc.resolve('GVL_HMI.aParts').type.name, 'ARRAY [1..8] OF STRING(15)');
    assert.equal(plc.resolve('GVL_HMI.fbAlarms.aAlarms').type.name, 'ARRAY [1..16] OF ST_ErrorEntry');
    assert.equal(plc.resolve('GVL_HMI.aAxes[1].rPosition').type.name, 'LREAL');
    assert.equal(plc.resolve('GVL_HMI.stMachine.rSpeed').type.name, 'REAL');
    assert.equal(plc.resolve('GVL_HMI.fbAlarms.aAlarms[1].PLCTimeStamp.wMilliseconds').type.name, 'WORD');
    assert.equal(plc.resolve('GVL_HMI.fbAlarms.aAlarms[1].ErrorType').type.name, 'E_ErrorType');
    assert.deepEqual(plc.read('GVL_HMI.aParts'), ['cell', '', '', '', '', '', '', '']);
    assert.equal(plc.read('GVL_HMI.stMachine.nMode'), 3);
    assert.deepEqual(Object.values(rev(p)), [1, 1, 1, 1, 1, 1, 1, 1, 1]);
    p.close();
  });

  test('axes move to the target, then settle; only the motion counter advances', () => {
    const p = scenarioPlc(scenarioDoc());
    p.simulation.step(1);
    assert.equal(p.plc.read('GVL_HMI.aAxes[1].bMoving'), true);
    p.simulation.step(100);
    assert.equal(p.plc.read('GVL_HMI.aAxes[1].rPosition'), 100);
    assert.equal(p.plc.read('GVL_HMI.aAxes[1].bMoving'), false);
    const r = rev(p);
    assert.ok(r.nAxesMotion! > 1);
    assert.deepEqual({ ...r, nAxesMotion: 0 }, { ...rev(p), nAxesMotion: 0 });
    assert.equal(r.nAxesConfig, 1);
    p.simulation.step(50);
    assert.deepEqual(rev(p), r, 'a settled machine changes nothing');
    assert.equal(p.simulation.state().state, 'Stopped');
    p.close();
  });

  test('writes from outside are commands and advance their areas', () => {
    const p = scenarioPlc(scenarioDoc({ machine: { state: 0, speedSetpoint: 10 } }));
    p.simulation.step(100);
    const r0 = rev(p);
    p.plc.write('GVL_HMI.aAxes[1].rTargetPos', 40);
    assert.equal(rev(p).nAxesMotion, r0.nAxesMotion! + 1);
    p.plc.write('GVL_HMI.aAxes[1].rVmax', 5);
    assert.equal(rev(p).nAxesConfig, r0.nAxesConfig! + 1);
    p.plc.write('GVL_HMI.stMachine.nMode', 2);
    assert.equal(rev(p).nMode, r0.nMode! + 1);
    assert.equal(rev(p).nMachine, r0.nMachine! + 1);
    p.simulation.step(10);
    // vmax 5 per second for 1 s: 5 units back from 100.
    assert.ok(Math.abs((p.plc.read('GVL_HMI.aAxes[1].rPosition') as number) - 95) < 1);
    assert.equal(p.plc.read('GVL_HMI.stMachine.rSpeed'), 10);
    p.plc.write('GVL_HMI.stMachine.rSpeedSetpoint', 25.5);
    p.simulation.step(1);
    assert.equal(p.plc.read('GVL_HMI.stMachine.rSpeed'), 25.5);
    p.plc.write('GVL_HMI.stMachine.nState', 1);
    p.simulation.step(1);
    assert.equal(p.plc.read('GVL_HMI.stMachine.rSpeed'), 0, 'not Running: speed 0');
    p.plc.write('GVL_HMI.aAxes[1].bEnabled', false);
    const held = p.plc.read('GVL_HMI.aAxes[1].rPosition');
    p.simulation.step(20);
    assert.equal(p.plc.read('GVL_HMI.aAxes[1].rPosition'), held, 'a disabled axis does not move');
    p.close();
  });

  test('header and counters are enforced against writes from outside', () => {
    const p = scenarioPlc(scenarioDoc());
    const r0 = rev(p);
    p.plc.write('GVL_HMI.stHeader.nAxisCount', 9);
    p.plc.write('GVL_HMI.stRev.nAlarms', 0);
    assert.equal(p.plc.read('GVL_HMI.stHeader.nAxisCount'), 1);
    assert.deepEqual(rev(p), r0);
    p.close();
  });

  test('script raises and clears alarms; AcknowledgeAlarm acknowledges an outstanding one', () => {
    const p = scenarioPlc(
      scenarioDoc({
        alarms,
        script: [
          { atCycle: 2, raise: 'HOT' },
          { atMs: 500, clear: 'HOT' },
          { atCycle: 2, raise: 'INFO_ONLY' },
        ],
      }),
    );
    const ack = (key: string) => p.plc.invoke('GVL_HMI.fbAlarms', 'AcknowledgeAlarm', [key]).returnValue;
    assert.equal(ack('HOT'), false, 'nothing outstanding yet');
    p.simulation.step(2);
    assert.deepEqual(p.plc.read('GVL_HMI.fbAlarms.aAlarms[1]'), {
      sKey: 'HOT',
      Id: 'oven',
      ErrorCode: 17,
      ErrorType: 2,
      IsActive: true,
      NeedsAck: true,
      IsAcked: false,
      PLCTimeStamp: {
        wYear: 2024,
        wMonth: 5,
        wDayOfWeek: 1,
        wDay: 6,
        wHour: 12,
        wMinute: 0,
        wSecond: 0,
        wMilliseconds: 200,
      },
    });
    assert.equal(ack('INFO_ONLY'), false, 'needs no acknowledgement');
    p.simulation.step(3);
    assert.equal(p.plc.read('GVL_HMI.fbAlarms.aAlarms[1].IsActive'), false, 'cleared at 500 ms');
    const before = rev(p).nAlarms!;
    assert.equal(ack('HOT'), true, 'passive, awaiting acknowledgement');
    assert.equal(p.plc.read('GVL_HMI.fbAlarms.aAlarms[1].IsAcked'), true);
    assert.equal(rev(p).nAlarms, before + 1);
    assert.equal(ack('HOT'), false, 'already acknowledged');
    assert.equal(ack('NOPE'), false);
    p.close();
  });

  test('repeating steps fire every period', () => {
    const p = scenarioPlc(
      scenarioDoc({
        script: [
          { atCycle: 1, every: 4, set: { path: 'stMachine.nMode', value: 1 } },
          { atCycle: 3, every: 4, set: { path: 'stMachine.nMode', value: 2 } },
        ],
      }),
    );
    const modes: unknown[] = [];
    for (let i = 0; i < 8; i++) {
      p.simulation.step(1);
      modes.push(p.plc.read('GVL_HMI.stMachine.nMode'));
    }
    assert.deepEqual(modes, [1, 1, 2, 2, 1, 1, 2, 2]);
    p.close();
  });

  test('a fail step faults the simulation; reset replays the scenario and keeps stRev', () => {
    const p = scenarioPlc(
      scenarioDoc({
        alarms,
        script: [
          { atCycle: 3, raise: 'HOT' },
          { atCycle: 20, fail: 'spindle overload' },
        ],
      }),
    );
    assert.throws(() => p.simulation.step(50), {
      code: 'INTERNAL_ERROR',
      message: 'Scan cycle 20 failed: spindle overload',
    });
    assert.deepEqual(p.simulation.state(), {
      state: 'Faulted',
      cycleCount: 19,
      elapsedMs: 1900,
      scanMs: 100,
      error: 'Scan cycle 20 failed: spindle overload',
    });
    assert.throws(() => p.simulation.step(1), { code: 'SIMULATION_CONFLICT' });
    const r = rev(p);
    p.simulation.reset();
    assert.deepEqual(p.simulation.state(), {
      state: 'Stopped',
      cycleCount: 0,
      elapsedMs: 0,
      scanMs: 100,
      error: null,
    });
    assert.equal(p.plc.read('GVL_HMI.aAxes[1].rPosition'), 0, 're-seeded');
    assert.equal(p.plc.read('GVL_HMI.fbAlarms.aAlarms[1].sKey'), '', 'alarm slots re-seeded');
    const after = rev(p);
    for (const [k, v] of Object.entries(r)) assert.ok(after[k]! >= v, `${k} never goes back`);
    assert.ok(after.nAxesMotion! > r.nAxesMotion!, 'the re-seeded motion is a change');
    assert.ok(after.nAlarms! > r.nAlarms!);
    assert.equal(after.nParts, r.nParts, 'unchanged areas do not advance');
    assert.throws(() => p.simulation.step(25), { code: 'INTERNAL_ERROR' });
    assert.equal(p.simulation.state().cycleCount, 19, 'the replay faults in the same scan');
    p.close();
  });

  test('deterministic: same scenario and commands give the same memory', () => {
    const doc = scenarioDoc({
      alarms,
      script: [
        { atCycle: 7, raise: 'HOT' },
        { atCycle: 30, every: 50, set: { path: 'aAxes[1].rTargetPos', value: 12.5 } },
      ],
    });
    const runs = [scenarioPlc(doc), scenarioPlc(doc)].map((p) => {
      p.simulation.step(40);
      p.plc.write('GVL_HMI.aAxes[1].rAmax', 33);
      p.simulation.step(333);
      const image = Buffer.from(p.plc.memory);
      p.close();
      return image;
    });
    assert.ok(runs[0]!.equals(runs[1]!));
  });

  test('auto-start runs the pump at attach and again after reset', () => {
    const timer = new ManualTimer();
    const p = scenarioPlc(scenarioDoc({ scanMs: 50 }), { autoStart: true, timer });
    assert.equal(p.simulation.state().state, 'Running');
    timer.advance(1000);
    assert.equal(p.simulation.state().cycleCount, 20);
    assert.equal(p.simulation.state().elapsedMs, 1000);
    assert.equal(p.simulation.reset().state, 'Running');
    p.simulation.pause();
    timer.advance(1000);
    assert.equal(p.simulation.state().cycleCount, 0);
    p.close();
  });

  test('a pump scan failure faults the simulation and is reported', () => {
    const timer = new ManualTimer();
    const faults: string[] = [];
    const p = scenarioPlc(scenarioDoc({ script: [{ atCycle: 5, fail: 'x' }] }), {
      timer,
      onFault: (e) => faults.push(e.message),
    });
    p.simulation.run();
    timer.advance(10_000);
    assert.equal(p.simulation.state().state, 'Faulted');
    assert.equal(p.simulation.state().cycleCount, 4);
    assert.deepEqual(faults, ['Scan cycle 5 failed: x']);
    assert.equal(timer.pendingCount, 0, 'the pump stopped');
    p.close();
  });

  test('real-time pump: 100 +-1 scans in 10 s of an idle machine', () => {
    const timer = new ManualTimer();
    timer.lateMs = 4;
    const p = scenarioPlc(scenarioDoc({ axes: [] }), { timer });
    p.simulation.run();
    timer.advance(10_000);
    assert.ok(Math.abs(p.simulation.state().cycleCount - 100) <= 1);
    p.close();
  });
});
