// The notification budget over real ADS (sim-ads on loopback): at NotificationBudget - 1, exactly and + 1
// subscriptions; a PLC that refuses notifications before the budget is reached (sim-ads' own limit, a router
// code through a proxy); polled symbols keep delivering and return to notifications as the budget or the PLC's
// capacity frees, without a subscriber noticing.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AdsCommand } from '../../../src/plc/ads/constants.ts';
import { AdsErrorCode } from '../../../src/plc/ads/error-codes.ts';
import { SimulatedPlc } from '../../../src/simulator/engine/index.ts';
import type { Subscription } from '../../../src/targets/target.ts';
import type { AdsTarget } from '../../../src/targets/ads/index.ts';
import { EventLog } from '../../contract/events.ts';
import {
  eventually,
  FaultProxy,
  fastTuning,
  makeTarget,
  program,
  startConnected,
  startPlant,
  type Plant,
} from './harness.ts';

/** No re-registration round during a test: it would hold two notifications per symbol for a moment. */
const tuning = { ...fastTuning, alignAfterMs: 600_000, alignEveryMs: 600_000 };
const paths = Array.from({ length: 8 }, (_, i) => `MAIN.aValues${i}`);

interface Subscribed {
  path: string;
  log: EventLog;
  sub: Subscription;
}

async function subscribe(target: AdsTarget, path: string): Promise<Subscribed> {
  const log = new EventLog();
  const sub = await target.subscribe(path, { cycleTimeMs: 10, onChange: log.onChange, onError: log.onError });
  return { path, log, sub };
}

/** Every subscriber got its current value, then gets a new one written now: nobody noticed anything. */
async function allDeliver(plant: Plant, subs: readonly Subscribed[], value: number): Promise<void> {
  for (const [i, s] of subs.entries()) plant.plc.write(s.path, value + i);
  for (const [i, s] of subs.entries()) await s.log.next((e) => e.value === value + i);
}

/** The values a subscriber received, in order: no value repeated, none made up. */
function values(s: Subscribed): unknown[] {
  return s.log.events.map((e) => e.value);
}

/** Connected, and the connection's (empty) set of subscriptions restored: nothing binds behind the test's back. */
async function connected(target: AdsTarget): Promise<void> {
  await startConnected(target);
  await eventually(() => (target.diagnostics.restores > 0 ? true : undefined), 5000, 'restored');
}

function counts(target: AdsTarget): [number, number] {
  return [target.diagnostics.notifications, target.diagnostics.polled];
}

describe('ADS target: the notification budget', () => {
  it('holds at NotificationBudget - 1, exactly and + 1; the polled symbol returns when a subscription ends', async () => {
    const plant = await startPlant();
    const target = makeTarget(plant.port, { NotificationBudget: 3 }, tuning);
    try {
      await connected(target);
      const baseline = plant.server.stats().notifications;
      const subs: Subscribed[] = [];
      subs.push(await subscribe(target, 'MAIN.aValues0'), await subscribe(target, 'MAIN.aValues1'));
      assert.deepEqual(counts(target), [2, 0], 'budget - 1: all notified');
      subs.push(await subscribe(target, 'MAIN.aValues2'));
      assert.deepEqual(counts(target), [3, 0], 'budget: all notified');
      subs.push(await subscribe(target, 'MAIN.aValues3'));
      assert.deepEqual(counts(target), [3, 1], 'budget + 1: one polled');
      assert.equal(plant.server.stats().notifications, baseline + 3);
      const report = target.notificationBudget.report();
      assert.deepEqual(
        report.polled.map((p) => [p.symbol, p.reason, p.clients, p.mode, p.cycleMs]),
        [['MAIN.aValues3', 'budget', 1, 'on-change', 10]],
      );
      assert.deepEqual(
        report.notifications.map((n) => n.symbol),
        ['MAIN.aValues0', 'MAIN.aValues1', 'MAIN.aValues2'],
      );
      assert.equal(report.plcCapacity, null);
      assert.equal(report.refusals, 0);
      for (const [i, s] of subs.entries()) await s.log.next((e) => e.value === i);
      await allDeliver(plant, subs, 100);

      // A notified subscription ends: the polled symbol takes its place.
      await subs[0]?.sub.close();
      await eventually(() => (counts(target)[1] === 0 ? true : undefined), 5000, 'back to notifications');
      assert.deepEqual(counts(target), [3, 0]);
      assert.equal(plant.server.stats().notifications, baseline + 3);
      const [, ...rest] = subs;
      await allDeliver(plant, rest, 200);
      const promoted = rest[2];
      assert.ok(promoted);
      assert.deepEqual(values(promoted), [3, 103, 202], 'no value repeated or lost on the way back');
      assert.deepEqual(
        target.notificationBudget.report().notifications.map((n) => n.symbol),
        ['MAIN.aValues1', 'MAIN.aValues2', 'MAIN.aValues3'],
      );
      for (const s of rest) assert.deepEqual(s.log.errors, []);
    } finally {
      await target.close();
      await plant.stop();
    }
  });

  it('polls what the PLC refuses (sim-ads limit below the budget), asks no more, and returns as slots free', async () => {
    const plant = await startPlant(new SimulatedPlc(program()), 0, { maxNotificationsPerClient: 4 });
    const target = makeTarget(plant.port, { NotificationBudget: 500, NotificationRetryMs: 600_000 }, tuning);
    try {
      await connected(target);
      const client = (): { active: number; refused: number } => {
        const c = plant.server.stats().clients[0]?.notifications;
        assert.ok(c);
        return c;
      };
      // The connection's own notifications (runtime state, symbol version) count against the PLC's limit.
      const slots = 4 - client().active;
      assert.ok(slots >= 1, `the gateway's connection holds ${client().active} system notifications`);
      const subs: Subscribed[] = [];
      for (let i = 0; i < slots; i++) subs.push(await subscribe(target, paths[i] ?? ''));
      assert.deepEqual(counts(target), [slots, 0]);
      assert.equal(client().refused, 0);

      subs.push(await subscribe(target, paths[slots] ?? ''));
      assert.deepEqual(counts(target), [slots, 1], 'refused by the PLC: polled');
      assert.equal(client().refused, 1, 'sim-ads answered 1814 once');
      let report = target.notificationBudget.report();
      assert.equal(report.refusals, 1);
      assert.equal(report.plcCapacity, slots);
      assert.deepEqual(
        report.polled.map((p) => [p.symbol, p.reason]),
        [[paths[slots], 'refused']],
      );
      assert.ok(report.nextRetryAt !== null, 'a retry is planned');

      // At the PLC's known capacity the next symbol is polled without asking the PLC again.
      subs.push(await subscribe(target, paths[slots + 1] ?? ''));
      assert.deepEqual(counts(target), [slots, 2]);
      assert.equal(client().refused, 1, 'the PLC was not asked again');
      assert.equal(target.diagnostics.refusals, 1);
      for (const s of subs) await s.log.next((e) => e.value === Number(s.path.slice(-1)));
      await allDeliver(plant, subs, 100);

      // Each notification released lets the oldest polled symbol back, within what the PLC accepted.
      await subs[0]?.sub.close();
      await eventually(() => (counts(target)[1] === 1 ? true : undefined), 5000, 'one back');
      assert.deepEqual(counts(target), [slots, 1]);
      report = target.notificationBudget.report();
      assert.equal(report.notifications.at(-1)?.symbol, paths[slots]);
      assert.deepEqual(
        report.polled.map((p) => p.symbol),
        [paths[slots + 1]],
      );
      await subs[1]?.sub.close();
      await eventually(() => (counts(target)[1] === 0 ? true : undefined), 5000, 'all back');
      assert.deepEqual(counts(target), [slots, 0]);
      assert.equal(client().refused, 1, 'returning within the known capacity is never refused');
      report = target.notificationBudget.report();
      assert.equal(report.nextRetryAt, null, 'nothing left to retry');
      const rest = subs.slice(2);
      await allDeliver(plant, rest, 300);
      for (const s of rest) {
        const own = Number(s.path.slice(-1));
        const i = subs.indexOf(s);
        assert.deepEqual(
          values(s),
          [own, 100 + i, 300 + rest.indexOf(s)],
          `${s.path}: nothing repeated or lost`,
        );
        assert.deepEqual(s.log.errors, []);
      }
    } finally {
      await target.close();
      await plant.stop();
    }
  });

  it('lists a subscription kept while the PLC is away as waiting, and notified again once it is back', async () => {
    const plant = await startPlant();
    const target = makeTarget(plant.port, { NotificationBudget: 3 }, tuning);
    try {
      await connected(target);
      const s = await subscribe(target, 'MAIN.nA');
      await s.log.next((e) => e.value === 1);
      await plant.stop();
      await eventually(() => (target.notificationBudget.report().waiting.length === 1 ? true : undefined));
      assert.deepEqual(counts(target), [0, 0]);
      assert.equal(target.notificationBudget.report().waiting[0]?.symbol, 'MAIN.nA');
      await plant.restart();
      await eventually(() => (counts(target)[0] === 1 ? true : undefined), 15_000, 'notified again');
      assert.deepEqual(target.notificationBudget.report().waiting, []);
      plant.plc.write('MAIN.nA', 2);
      await s.log.next((e) => e.value === 2);
    } finally {
      await target.close();
      await plant.stop();
    }
  });

  it('retries a refused notification with a doubling, capped delay until the PLC accepts it (router code 1282)', async () => {
    const plant = await startPlant();
    const proxy = new FaultProxy(plant.port);
    let clock = Date.UTC(2026, 0, 1);
    const target = makeTarget(
      await proxy.listen(),
      { NotificationBudget: 500, NotificationRetryMs: 400, NotificationRetryMaxMs: 1600 },
      { ...tuning, random: () => 0, now: () => clock },
    );
    try {
      await connected(target);
      let refusing = true;
      proxy.fault = (r) =>
        refusing && r.command === AdsCommand.AddNotification ? AdsErrorCode.RouterMailboxFull : undefined;
      const s = await subscribe(target, 'MAIN.nA');
      assert.deepEqual(counts(target), [0, 1]);
      await s.log.next((e) => e.value === 1);
      // Jitter 0: half of 400, 800, 1600, then capped at 1600.
      const waits: number[] = [];
      for (let refusals = 1; refusals <= 4; refusals++) {
        const at = await eventually(
          () => {
            const r = target.notificationBudget.report();
            return r.refusals === refusals && r.nextRetryAt ? r.nextRetryAt.getTime() : undefined;
          },
          5000,
          `refusal ${refusals}`,
        );
        waits.push(at - clock);
      }
      assert.deepEqual(waits, [200, 400, 800, 800]);
      plant.plc.write('MAIN.nA', 5);
      await s.log.next((e) => e.value === 5);

      refusing = false;
      clock += 1000;
      await eventually(() => (counts(target)[0] === 1 ? true : undefined), 5000, 'accepted');
      const report = target.notificationBudget.report();
      assert.deepEqual([report.plcCapacity, report.nextRetryAt, report.polled.length], [null, null, 0]);
      assert.equal(report.notifications[0]?.since.getTime(), clock);
      plant.plc.write('MAIN.nA', 6);
      await s.log.next((e) => e.value === 6);
      assert.deepEqual(values(s), [1, 5, 6]);
    } finally {
      await target.close();
      await proxy.close();
      await plant.stop();
    }
  });
});
