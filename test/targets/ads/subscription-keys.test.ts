// ADS target: subscribers share a notification only when symbol, cycle and mode are equal; a cyclic
// subscription gets the value every cycle, changed or not, on a notification and when polled.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EventLog } from '../../contract/events.ts';
import { makeTarget, startConnected, startPlant } from './harness.ts';

describe('ADS target: subscriptions keyed by symbol, cycle and mode', () => {
  it('equal (symbol, cycle, mode) share one notification; a different cycle or mode gets its own', async () => {
    const plant = await startPlant();
    const target = makeTarget(plant.port);
    try {
      await startConnected(target);
      const baseline = plant.server.stats().notifications;
      const logs = [new EventLog(), new EventLog(), new EventLog(), new EventLog()];
      const [fast, fastToo, slow, cyclic] = logs as [EventLog, EventLog, EventLog, EventLog];
      const s1 = await target.subscribe('MAIN.nA', { cycleTimeMs: 10, onChange: fast.onChange });
      const s2 = await target.subscribe('main.na', { cycleTimeMs: 10, onChange: fastToo.onChange });
      assert.equal(plant.server.stats().notifications, baseline + 1);
      const s3 = await target.subscribe('MAIN.nA', { cycleTimeMs: 50, onChange: slow.onChange });
      assert.equal(plant.server.stats().notifications, baseline + 2);
      const s4 = await target.subscribe('MAIN.nA', {
        cycleTimeMs: 10,
        mode: 'cyclic',
        onChange: cyclic.onChange,
      });
      assert.equal(plant.server.stats().notifications, baseline + 3);
      assert.equal(target.diagnostics.notifications, 3);
      for (const log of logs) await log.next((e) => e.value === 1);
      plant.plc.write('MAIN.nA', 7);
      for (const log of logs) await log.next((e) => e.value === 7);
      // The cyclic one keeps receiving the unchanged value; the on-change ones got it once.
      const from = cyclic.events.length;
      await cyclic.next((e) => e.value === 7, from);
      await cyclic.next((e) => e.value === 7, from + 1);
      assert.deepEqual(
        fast.events.map((e) => e.value),
        [1, 7],
      );
      assert.deepEqual(
        slow.events.map((e) => e.value),
        [1, 7],
      );
      await s4.close();
      await s3.close();
      assert.equal(plant.server.stats().notifications, baseline + 1);
      await s1.close();
      await s2.close();
      assert.equal(plant.server.stats().notifications, baseline);
    } finally {
      await target.close();
      await plant.stop();
    }
  });

  it('a polled cyclic subscription is delivered every cycle, changed or not; a polled on-change one once', async () => {
    const plant = await startPlant();
    const target = makeTarget(plant.port, { NotificationBudget: 0 });
    try {
      await startConnected(target);
      const cyclic = new EventLog();
      const onChange = new EventLog();
      await target.subscribe('MAIN.nB', { cycleTimeMs: 20, mode: 'cyclic', onChange: cyclic.onChange });
      await target.subscribe('MAIN.nB', { cycleTimeMs: 20, onChange: onChange.onChange });
      assert.deepEqual([target.diagnostics.notifications, target.diagnostics.polled], [0, 2]);
      await cyclic.next((e) => e.value === 2);
      await cyclic.next((e) => e.value === 2, 1);
      await cyclic.next((e) => e.value === 2, 2);
      plant.plc.write('MAIN.nB', 3);
      await onChange.next((e) => e.value === 3);
      const at = cyclic.events.length;
      await cyclic.next((e) => e.value === 3, at);
      await cyclic.next((e) => e.value === 3, cyclic.events.findIndex((e) => e.value === 3) + 1);
      assert.deepEqual(
        onChange.events.map((e) => e.value),
        [2, 3],
      );
    } finally {
      await target.close();
      await plant.stop();
    }
  });
});
