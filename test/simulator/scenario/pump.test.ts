// The state machine table, and the real-time pump with an injected clock: no drift, bounded catch-up.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { maxCatchUp, Pump } from '../../../src/simulator/scenario/pump.ts';
import {
  decide,
  type SimulationOp,
  type SimulationStateName,
} from '../../../src/simulator/scenario/transitions.ts';
import { ManualTimer } from './helpers.ts';

describe('decide', () => {
  const table: Array<[SimulationStateName, SimulationOp, string]> = [
    ['Stopped', 'run', 'start'],
    ['Paused', 'run', 'start'],
    ['Running', 'run', 'noop'],
    ['Faulted', 'run', 'conflict'],
    ['Running', 'pause', 'pause'],
    ['Stopped', 'pause', 'noop'],
    ['Paused', 'pause', 'noop'],
    ['Faulted', 'pause', 'conflict'],
    ['Stopped', 'step', 'step'],
    ['Paused', 'step', 'step'],
    ['Running', 'step', 'conflict'],
    ['Faulted', 'step', 'conflict'],
    ['Stopped', 'reset', 'reset'],
    ['Running', 'reset', 'reset'],
    ['Paused', 'reset', 'reset'],
    ['Faulted', 'reset', 'reset'],
  ];
  for (const [state, op, kind] of table) {
    test(`${op} in ${state} -> ${kind}`, () => assert.equal(decide(state, op).kind, kind));
  }

  test('the conflict messages say what to do', () => {
    assert.deepEqual(decide('Running', 'step'), {
      kind: 'conflict',
      message: 'The simulation is Running; pause it first, then step.',
    });
    assert.match((decide('Faulted', 'run') as { message: string }).message, /reset it first/);
  });
});

describe('Pump', () => {
  test('ticks once per scan against the start time: 100 +-1 ticks in 10 s despite late timers', () => {
    const timer = new ManualTimer();
    timer.lateMs = 7;
    let ticks = 0;
    const pump = new Pump(100, timer, () => {
      ticks++;
      return true;
    });
    pump.start();
    timer.advance(10_000);
    assert.ok(Math.abs(ticks - 100) <= 1, String(ticks));
    timer.advance(50_000);
    assert.ok(Math.abs(ticks - 600) <= 1, String(ticks));
    pump.stop();
    assert.equal(timer.pendingCount, 0);
  });

  test('a slow scan never piles cycles up: catch-up is capped', () => {
    const timer = new ManualTimer();
    let ticks = 0;
    const pump = new Pump(100, timer, () => {
      ticks++;
      if (ticks === 5) timer.spend(5_000); // one scan takes 5 s
      return true;
    });
    pump.start();
    timer.advance(500);
    assert.equal(ticks, 5);
    timer.advance(100);
    // 50 scans were owed; at most maxCatchUp run back to back, the rest are dropped.
    assert.ok(ticks <= 5 + maxCatchUp + 1, String(ticks));
    const before = ticks;
    timer.advance(1_000);
    assert.ok(Math.abs(ticks - before - 10) <= 1, `steady again: ${ticks - before}`);
    pump.stop();
  });

  test('a failing tick stops the pump; stop cancels the timer', () => {
    const timer = new ManualTimer();
    let ticks = 0;
    const pump = new Pump(10, timer, () => ++ticks < 3);
    pump.start();
    timer.advance(1_000);
    assert.equal(ticks, 3);
    assert.equal(pump.running, false);
    assert.equal(timer.pendingCount, 0);
  });
});
