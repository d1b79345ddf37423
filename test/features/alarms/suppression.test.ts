// Suppression by design on both drivers: rules on GVL_HMI.stMachine.nState switch on and off with the PLC's value
// (written through the variables API), suppressed alarms leave the default list, streams and /health/alarms,
// ?include=suppressed shows them marked with their rule, and every switch is announced as a `shelving` event.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { bearer, mintToken } from '../../helpers/tokens.ts';
import { RawSse, type SseEvent } from '../notifications/clients.ts';
import { listen, startAlarmRig, testDrivers, type AlarmRig } from './fixture.ts';

const stateSymbol = 'GVL_HMI.stMachine.nState';

interface ListJson {
  count: number;
  suppressedCount: number;
  items: Array<{ code: string; 'x-suppressed'?: { rule: string } }>;
}

interface Switch {
  action: string;
  rule: string;
  keys: string[];
}

for (const driver of testDrivers) {
  describe(`alarm suppression by design (${driver})`, () => {
    let rig: AlarmRig;
    let base: string;
    const open: RawSse[] = [];
    const sse = async (query = ''): Promise<RawSse> => {
      const s = new RawSse(`${base}/api/plcs/line1/alarms/stream${query}`, bearer(await mintToken()));
      open.push(s);
      return s.opened();
    };
    const list = async (query = ''): Promise<ListJson> =>
      (await rig.call('GET', `/api/plcs/line1/alarms${query}`)).json<{ data: ListJson }>().data;
    const setState = async (value: number): Promise<void> => {
      const res = await rig.call('PUT', `/api/plcs/line1/variables/${encodeURIComponent(stateSymbol)}`, {
        value,
      });
      assert.equal(res.statusCode, 200, res.body);
    };
    const switched = (action: string, rule: string) => (e: SseEvent) =>
      e.event === 'shelving' && (e.data as Switch).action === action && (e.data as Switch).rule === rule;
    const health = async () =>
      (await rig.app.inject({ method: 'GET', url: '/health/alarms' })).json<{
        status: string;
        checks: Array<{ data: { suppressed: number } }>;
      }>();

    before(async () => {
      rig = await startAlarmRig(driver, {
        alarm: {
          Suppression: [
            { Name: 'maintenance', Keys: ['CAPPER_*'], When: { Symbol: stateSymbol, Equals: 3 } },
            { Keys: ['PALLET_?ULL', 'NOT_THERE'], When: { Symbol: stateSymbol, In: [4, 5] } },
          ],
        },
        settings: {
          PlcTargets: { line1: { Rpc: { Invokable: ['GVL_HMI.fbAlarms.AcknowledgeAlarm'] } } },
          RateLimiting: { NotificationConnections: 1000 },
        },
      });
      base = await listen(rig);
      // FILLER_OVERTEMP (WARNING), CAPPER_JAM (ERROR), PALLET_FULL (INFO).
      await rig.step(3);
    });
    after(async () => {
      for (const s of open) s.close();
      await rig.close();
    });

    test('state 3 suppresses CAPPER_*: hidden by default, marked with include=suppressed, health ignores it', async () => {
      const plain = await sse();
      const all = await sse('?include=suppressed');
      assert.equal((await list()).count, 3);
      assert.equal((await health()).status, 'Unhealthy');

      await setState(3);
      const on = await plain.next(switched('suppressed', 'maintenance'));
      assert.deepEqual((on.data as Switch).keys, ['CAPPER_*']);
      const hidden = await list();
      assert.deepEqual(
        hidden.items.map((a) => a.code),
        ['FILLER_OVERTEMP', 'PALLET_FULL'],
      );
      assert.equal(hidden.suppressedCount, 1);
      const shown = await list('?include=suppressed');
      assert.deepEqual(shown.items.find((a) => a.code === 'CAPPER_JAM')?.['x-suppressed'], {
        rule: 'maintenance',
      });
      assert.equal(shown.items.find((a) => a.code === 'FILLER_OVERTEMP')?.['x-suppressed'], undefined);
      const h = await health();
      assert.equal(h.status, 'Degraded');
      assert.equal(h.checks[0]?.data.suppressed, 1);

      // A transition of the suppressed alarm reaches only the client that includes suppressed ones.
      const ack = await rig.call('POST', '/api/plcs/line1/alarms/CAPPER_JAM/acknowledge');
      assert.equal(ack.statusCode, 200, ack.body);
      await all.next((e) => e.event === 'alarm' && (e.data as { kind: string }).kind === 'acknowledged');

      await setState(1);
      await plain.next(switched('unsuppressed', 'maintenance'));
      assert.equal((await list()).count, 3);
      assert.equal((await health()).status, 'Unhealthy');
      assert.equal(
        plain.events.filter((e) => e.event === 'alarm').length,
        0,
        'nothing of the suppressed alarm reached the default stream',
      );
    });

    test('In [4, 5] with a ? pattern: on at 5, named Suppression[1] when it has no Name, off again at 2', async () => {
      const plain = await sse();
      await setState(5);
      await plain.next(switched('suppressed', 'Suppression[1]'));
      const l = await list('?include=all');
      assert.equal(l.count, 3);
      assert.equal(l.suppressedCount, 1);
      assert.deepEqual(l.items.find((a) => a.code === 'PALLET_FULL')?.['x-suppressed'], {
        rule: 'Suppression[1]',
      });
      await setState(4);
      await setState(2);
      await plain.next(switched('unsuppressed', 'Suppression[1]'));
      // 5 -> 4 (if seen at all) kept it on: one switch each way.
      assert.equal(plain.events.filter((e) => e.event === 'shelving').length, 2);
      assert.equal((await list()).suppressedCount, 0);
    });
  });
}
