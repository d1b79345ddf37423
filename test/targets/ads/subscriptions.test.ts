// ADS target subscriptions: shared notifications, the notification budget with polling beyond it,
// no orphan notifications on the PLC, and cache flushes on an online change.
import { once } from 'node:events';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SimulatedPlc } from '../../../src/simulator/engine/index.ts';
import { EventLog } from '../../contract/events.ts';
import { AdsCommand } from '../../../src/plc/ads/constants.ts';
import { AdsErrorCode } from '../../../src/plc/ads/error-codes.ts';
import {
  eventually,
  FaultProxy,
  fastTuning,
  makeTarget,
  onlineChangeCounter,
  program,
  startPlant,
  startConnected,
  type Plant,
} from './harness.ts';
import type { AdsTarget } from '../../../src/targets/ads/index.ts';

/** Notifications registered again together 200 ms after a new one, once per test. */
const aligning = { ...fastTuning, alignAfterMs: 200, alignEveryMs: 60_000 };

/**
 * Writes MAIN.nA = from + 1, from + 2, ... one at a time, each awaited as a change, until a round of
 * re-registration has ended (at most 100 values); answers the last value written.
 */
async function writeThroughRound(
  target: AdsTarget,
  plant: Plant,
  log: EventLog,
  from: number,
): Promise<number> {
  let value = from;
  while (target.diagnostics.alignments === 0) {
    assert.ok(value < from + 100, 'the notifications were not registered again');
    plant.plc.write('MAIN.nA', ++value);
    await log.next((e) => e.value === value);
  }
  return value;
}

describe('ADS target: subscriptions', () => {
  it('shares one notification per symbol and leaves none behind', async () => {
    const plant = await startPlant();
    const target = makeTarget(plant.port);
    try {
      await startConnected(target);
      const baseline = plant.server.stats().notifications;
      const a = new EventLog();
      const b = new EventLog();
      const s1 = await target.subscribe('MAIN.nA', { cycleTimeMs: 10, onChange: a.onChange });
      const s2 = await target.subscribe('main.na', { cycleTimeMs: 10, onChange: b.onChange });
      await a.next(() => true);
      await b.next(() => true);
      assert.equal(plant.server.stats().notifications, baseline + 1);
      assert.equal(target.diagnostics.notifications, 1);
      await s1.close();
      assert.equal(plant.server.stats().notifications, baseline + 1);
      await s2.close();
      assert.equal(plant.server.stats().notifications, baseline);
      assert.equal(target.diagnostics.notifications, 0);
    } finally {
      const gone = once(plant.clientEvents, 'closed');
      await target.close();
      await gone;
    }
    assert.equal(plant.server.stats().connections, 0);
    assert.equal(plant.server.stats().notifications, 0);
    await plant.stop();
  });

  it('registers notifications made one by one again together: one frame per cycle, no change lost or repeated', async () => {
    const plant = await startPlant();
    const target = makeTarget(plant.port, {}, aligning);
    try {
      await startConnected(target);
      const baseline = plant.server.stats().notifications;
      const a = new EventLog();
      const b = new EventLog();
      await target.subscribe('MAIN.nA', { cycleTimeMs: 100, onChange: a.onChange });
      await a.next(() => true);
      // B is registered right after one of A's checks, so the PLC checks it on another phase.
      plant.plc.write('MAIN.nA', 10);
      await a.next((e) => e.value === 10);
      await target.subscribe('MAIN.nB', { cycleTimeMs: 100, onChange: b.onChange });
      await b.next(() => true);

      // Changes written one at a time while both notifications are registered again: each arrives once.
      let value = await writeThroughRound(target, plant, a, 100);
      for (let i = 0; i < 3; i++) {
        plant.plc.write('MAIN.nA', ++value);
        await a.next((e) => e.value === value);
      }
      assert.equal(target.diagnostics.alignments, 1);
      assert.equal(plant.server.stats().notifications, baseline + 2);
      assert.deepEqual(
        a.events.map((e) => e.value),
        [1, 10, ...Array.from({ length: value - 100 }, (_, i) => 101 + i)],
      );
      assert.deepEqual(
        b.events.map((e) => e.value),
        [2],
      );

      // Now one phase: both changes of a scan reach the gateway in one frame, with one PLC timestamp.
      const counters = () =>
        plant.server.stats().clients[0]?.notifications ?? { framesSent: 0, samplesSent: 0 };
      const before = { ...counters() };
      for (let round = 1; round <= 5; round++) {
        plant.plc.write('MAIN.nA', 1000 + round);
        plant.plc.write('MAIN.nB', 2000 + round);
        const [ea, eb] = await Promise.all([
          a.next((e) => e.value === 1000 + round),
          b.next((e) => e.value === 2000 + round),
        ]);
        assert.equal(ea.timestamp.getTime(), eb.timestamp.getTime());
      }
      const after = counters();
      assert.deepEqual(
        [after.framesSent - before.framesSent, after.samplesSent - before.samplesSent],
        [5, 10],
      );
    } finally {
      await target.close();
      await plant.stop();
    }
  });

  it('a PLC out of handles during the re-registration keeps the old notifications, which deliver each change once', async () => {
    const plant = await startPlant();
    const proxy = new FaultProxy(plant.port);
    const target = makeTarget(await proxy.listen(), {}, aligning);
    try {
      await startConnected(target);
      const baseline = plant.server.stats().notifications;
      const a = new EventLog();
      const b = new EventLog();
      await target.subscribe('MAIN.nA', { cycleTimeMs: 50, onChange: a.onChange });
      await target.subscribe('MAIN.nB', { cycleTimeMs: 50, onChange: b.onChange });
      await Promise.all([a.next(() => true), b.next(() => true)]);
      const refused: number[] = [];
      proxy.fault = ({ command, indexGroup }) => {
        if (command !== AdsCommand.AddNotification) return undefined;
        refused.push(indexGroup);
        return AdsErrorCode.NoMoreHandles;
      };
      const value = await writeThroughRound(target, plant, a, 100);
      assert.equal(refused.length, 2);
      assert.equal(plant.server.stats().notifications, baseline + 2);
      for (let round = 1; round <= 3; round++) {
        plant.plc.write('MAIN.nA', 1000 + round);
        plant.plc.write('MAIN.nB', 2000 + round);
        await Promise.all([a.next((e) => e.value === 1000 + round), b.next((e) => e.value === 2000 + round)]);
      }
      assert.deepEqual(
        a.events.map((e) => e.value),
        [1, ...Array.from({ length: value - 100 }, (_, i) => 101 + i), 1001, 1002, 1003],
      );
      assert.deepEqual(
        b.events.map((e) => e.value),
        [2, 2001, 2002, 2003],
      );
    } finally {
      await target.close();
      await proxy.close();
      await plant.stop();
    }
  });

  it('beyond the notification budget, subscriptions are polled with sum reads and still deliver', async () => {
    const plant = await startPlant();
    const target = makeTarget(plant.port, { NotificationBudget: 2 });
    try {
      await startConnected(target);
      const baseline = plant.server.stats().notifications;
      const paths = ['MAIN.aValues0', 'MAIN.aValues1', 'MAIN.aValues2', 'MAIN.aValues3'];
      const logs = paths.map(() => new EventLog());
      for (const [i, path] of paths.entries()) {
        const log = logs[i];
        assert.ok(log);
        await target.subscribe(path, { cycleTimeMs: 10, onChange: log.onChange });
      }
      assert.deepEqual([target.diagnostics.notifications, target.diagnostics.polled], [2, 2]);
      assert.equal(plant.server.stats().notifications, baseline + 2);
      for (const [i, log] of logs.entries()) await log.next((e) => e.value === i);
      for (const [i, path] of paths.entries()) plant.plc.write(path, 100 + i);
      for (const [i, log] of logs.entries()) {
        const e = await log.next((ev) => ev.value === 100 + i);
        assert.equal(e.symbol, paths[i]);
        assert.equal(e.typeName, 'INT');
      }
    } finally {
      await target.close();
      await plant.stop();
    }
  });

  it('an online change (counter moves, same symbol version) flushes the symbol cache', async () => {
    const plant = await startPlant(new SimulatedPlc(program({ onlineChanges: true })));
    const target = makeTarget(plant.port);
    try {
      await startConnected(target);
      await target.symbols();
      await target.symbols();
      assert.equal(target.diagnostics.symbolUploads, 1, 'symbols are cached for the connection');
      const log = new EventLog();
      await target.subscribe('MAIN.nA', { cycleTimeMs: 10, onChange: log.onChange, onError: log.onError });
      await log.next(() => true);
      plant.plc.write(onlineChangeCounter, 1);
      // The counter's notification flushes the caches and re-binds the subscriptions on a fresh upload.
      await eventually(
        () => (target.diagnostics.symbolUploads === 2 ? true : undefined),
        5000,
        'symbol re-upload',
      );
      await target.symbols();
      assert.equal(target.diagnostics.symbolUploads, 2);
      const seen = log.events.length;
      plant.plc.write('MAIN.nA', 9);
      await log.next((e) => e.value === 9, seen);
      assert.deepEqual(log.errors, []);
    } finally {
      await target.close();
      await plant.stop();
    }
  });
});
