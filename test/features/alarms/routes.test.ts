// Alarm routes around the list: limits (AlarmReads per user per PLC, RpcInvocations shared with method calls),
// policies, the flag, /health/alarms, the text catalog with Accept-Language, history paging and bounds.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ConfigError } from '../../../src/config/schema.ts';
import { buildTestApp, manualClock } from '../../helpers/app.ts';
import { bearer, mintToken } from '../../helpers/tokens.ts';
import {
  entry,
  scenarioDir,
  startAlarmRig,
  testDrivers,
  type AlarmListJson,
  type AlarmRig,
  type HistoryJson,
} from './fixture.ts';

const code = (res: { json<T>(): T }): string => res.json<{ error: { code: string } }>().error.code;

for (const driver of testDrivers) {
  describe(`alarm routes (${driver})`, () => {
    let rig: AlarmRig;
    const clock = manualClock(Date.UTC(2030, 0, 1));
    before(async () => {
      rig = await startAlarmRig(driver, {
        now: clock.now,
        settings: {
          PlcAlarms: { TextCatalog: `${scenarioDir}/alarm-texts.json` },
          PlcTargets: { line1: { Rpc: { Invokable: ['GVL_HMI.fbAlarms.AcknowledgeAlarm'] } } },
        },
      });
    });
    after(() => rig.close());

    test('AlarmReads: 50 list requests per second per user per PLC, then 429 with Retry-After', async () => {
      clock.advance(1000);
      for (let i = 0; i < 50; i++)
        assert.equal((await rig.call('GET', '/api/plcs/line1/alarms')).statusCode, 200);
      const over = await rig.call('GET', '/api/plcs/line1/alarms');
      assert.equal(over.statusCode, 429);
      assert.equal(code(over), 'RATE_LIMITED');
      assert.ok(over.headers['retry-after']);
      // Another user, and the fleet route, have budgets of their own.
      const other = bearer(await mintToken({ sub: 'someone-else' }));
      assert.equal(
        (await rig.app.inject({ method: 'GET', url: '/api/plcs/line1/alarms', headers: other })).statusCode,
        200,
      );
      for (let i = 0; i < 50; i++) assert.equal((await rig.call('GET', '/api/alarms')).statusCode, 200);
      assert.equal((await rig.call('GET', '/api/alarms')).statusCode, 429);
      clock.advance(1000);
      assert.equal((await rig.call('GET', '/api/plcs/line1/alarms')).statusCode, 200);
    });

    test('RpcInvocations: 10 acknowledge requests per second, shared with method calls', async () => {
      clock.advance(1000);
      for (let i = 0; i < 10; i++) {
        assert.equal(
          (await rig.call('POST', '/api/plcs/line1/alarms/NONE_SUCH/acknowledge')).statusCode,
          404,
        );
      }
      const ack = await rig.call('POST', '/api/plcs/line1/alarms/NONE_SUCH/acknowledge');
      assert.equal(ack.statusCode, 429);
      const method = await rig.call('POST', `/api/plcs/line1/methods/GVL_HMI.fbAlarms.AcknowledgeAlarm`, {
        parameters: ['X'],
      });
      assert.equal(method.statusCode, 429, method.body);
      clock.advance(1000);
      const again = await rig.call('POST', `/api/plcs/line1/methods/GVL_HMI.fbAlarms.AcknowledgeAlarm`, {
        parameters: ['X'],
      });
      assert.equal(again.statusCode, 200, again.body);
      for (let i = 0; i < 9; i++) await rig.call('POST', '/api/plcs/line1/alarms/NONE_SUCH/acknowledge');
      assert.equal((await rig.call('POST', '/api/plcs/line1/alarms/NONE_SUCH/acknowledge')).statusCode, 429);
    });

    test('acknowledge needs WriteAccess; reads need ReadAccess; plc_access applies', async () => {
      clock.advance(1000);
      await rig.writeSlot(4, entry({ sKey: 'NEEDS_ACK' }));
      const viewer = bearer(await mintToken({ role: 'viewer', scope: 'ads:read' }));
      const post = await rig.app.inject({
        method: 'POST',
        url: '/api/plcs/line1/alarms/NEEDS_ACK/acknowledge',
        headers: viewer,
      });
      assert.equal(post.statusCode, 403);
      assert.equal(code(post), 'FORBIDDEN');
      assert.equal(
        (await rig.app.inject({ method: 'GET', url: '/api/plcs/line1/alarms', headers: viewer })).statusCode,
        200,
      );
      const noRead = bearer(await mintToken({ role: 'viewer', scope: 'ads:write' }));
      assert.equal(
        (await rig.app.inject({ method: 'GET', url: '/api/alarms', headers: noRead })).statusCode,
        403,
      );
      const elsewhere = bearer(await mintToken({ plc_access: ['other'] }));
      const denied = await rig.app.inject({
        method: 'GET',
        url: '/api/plcs/line1/alarms',
        headers: elsewhere,
      });
      assert.equal(code(denied), 'PLC_ACCESS_DENIED');
      assert.equal((await rig.app.inject({ method: 'GET', url: '/api/plcs/line1/alarms' })).statusCode, 401);
    });

    test('502 ALARM_ACK_FAILED when the PLC refuses the call', async () => {
      // The method the gateway calls is fixed by configuration; a PLC without it answers with an ADS error.
      const refusing = await startAlarmRig(driver, { alarm: { AcknowledgeMethod: 'NoSuchMethod' } });
      try {
        await refusing.writeSlot(4, entry({ sKey: 'NEEDS_ACK' }));
        const res = await refusing.call('POST', '/api/plcs/line1/alarms/NEEDS_ACK/acknowledge');
        assert.equal(res.statusCode, 502, res.body);
        assert.equal(code(res), 'ALARM_ACK_FAILED');
        assert.match(
          res.json<{ error: { message: string } }>().error.message,
          /GVL_HMI\.fbAlarms#NoSuchMethod/,
        );
        const line = refusing.logs.find((l) => l.msg === 'alarm acknowledge');
        assert.equal(line?.result, 'ALARM_ACK_FAILED');
      } finally {
        await refusing.close();
      }
    });

    test('description: the catalog text by key (case-insensitive), the Accept-Language culture preferred per key', async () => {
      clock.advance(1000);
      await rig.writeSlot(5, entry({ sKey: 'filler_overtemp' }));
      await rig.writeSlot(6, entry({ sKey: 'CAPPER_JAM' }));
      await rig.writeSlot(7, entry({ sKey: 'NO_TEXT' }));
      const texts = async (lang?: string): Promise<Record<string, string>> => {
        const res = await rig.call(
          'GET',
          '/api/plcs/line1/alarms',
          undefined,
          lang ? { 'accept-language': lang } : {},
        );
        const items = res.json<{ data: AlarmListJson }>().data.items;
        return Object.fromEntries(
          items.filter((a) => a['x-ads'].slotIndex >= 5).map((a) => [a.code, a.description]),
        );
      };
      const neutral = {
        filler_overtemp: 'Filler heater above 95 °C',
        CAPPER_JAM: 'Cap feed jammed',
        NO_TEXT: '',
      };
      assert.deepEqual(await texts(), neutral);
      assert.deepEqual(await texts('fr-CH, fr;q=0.9'), neutral);
      const german = { ...neutral, filler_overtemp: 'Füllerheizung über 95 °C' };
      assert.deepEqual(await texts('de-AT'), german);
      assert.deepEqual(await texts('en;q=0.5, de;q=0.8'), german);
      assert.equal(rig.logs.filter((l) => l.key === 'NO_TEXT').length, 1);
    });

    test('the lists follow a listed alarm that changes without a transition, and one that ends', async () => {
      clock.advance(1000);
      await rig.writeSlot(8, entry({ sKey: 'LISTED', ErrorCode: 1 }));
      const listed = async (url: string) => {
        const res = await rig.call('GET', url);
        assert.equal(res.statusCode, 200);
        assert.match(String(res.headers['content-type']), /^application\/json/);
        const list = res.json<{ data: AlarmListJson }>().data;
        assert.equal(list.count, list.items.length);
        return list.items.find((a) => a.code === 'LISTED');
      };
      for (const url of ['/api/plcs/line1/alarms', '/api/alarms']) {
        assert.equal((await listed(url))?.['x-ads'].errorCode, 1);
      }
      // Same PLC timestamp, still active: no transition, but the listed alarm is not the same.
      await rig.writeSlot(8, entry({ sKey: 'LISTED', ErrorCode: 2 }));
      for (const url of ['/api/plcs/line1/alarms', '/api/alarms']) {
        assert.equal((await listed(url))?.['x-ads'].errorCode, 2);
      }
      await rig.writeSlot(8, entry({ sKey: '' }));
      for (const url of ['/api/plcs/line1/alarms', '/api/alarms']) assert.equal(await listed(url), undefined);
    });

    test('/health/alarms: anonymous; Healthy, Degraded on a WARNING, 503 Unhealthy on an ERROR; /health/ready unaffected', async () => {
      await rig.reset();
      const health = async () => {
        const res = await rig.app.inject({ method: 'GET', url: '/health/alarms' });
        return {
          status: res.statusCode,
          body: res.json<{ status: string; checks: Array<Record<string, string>> }>(),
        };
      };
      const quiet = await health();
      assert.equal(quiet.status, 200);
      assert.equal(quiet.body.status, 'Healthy');
      assert.equal(quiet.body.checks[0]?.name, 'plc_ads_alarms');
      await rig.writeSlot(8, entry({ sKey: 'JUST_INFO', ErrorType: 1 }));
      assert.equal((await health()).body.status, 'Healthy');
      await rig.writeSlot(9, entry({ sKey: 'WARN', ErrorType: 2 }));
      const degraded = await health();
      assert.deepEqual([degraded.status, degraded.body.status], [200, 'Degraded']);
      assert.match(String(degraded.body.checks[0]?.description), /WARNING/);
      await rig.writeSlot(10, entry({ sKey: 'ERR', ErrorType: 3 }));
      const unhealthy = await health();
      assert.deepEqual([unhealthy.status, unhealthy.body.status], [503, 'Unhealthy']);
      assert.match(String(unhealthy.body.checks[0]?.description), /ERROR/);
      const ready = await rig.app.inject({ method: 'GET', url: '/health/ready' });
      assert.equal(ready.statusCode, 200);
      assert.deepEqual(
        ready.json<{ checks: Array<{ name: string }> }>().checks.map((c) => c.name),
        ['plc-connectivity'],
      );
      // An alarm that ended no longer counts.
      await rig.writeSlot(10, entry({ sKey: 'ERR', ErrorType: 3, IsActive: false, IsAcked: true }));
      assert.equal((await health()).body.status, 'Degraded');
    });

    test('history: paging with after and limit, nextAfter, and 400 VALIDATION_ERROR outside 1..1000', async () => {
      clock.advance(1000);
      const all = (await rig.call('GET', '/api/plcs/line1/alarms/history?limit=1000')).json<{
        data: HistoryJson;
      }>().data;
      assert.ok(all.items.length >= 4);
      const first = all.items[0]!.seq;
      const page1 = (await rig.call('GET', '/api/plcs/line1/alarms/history?limit=2')).json<{
        data: HistoryJson;
      }>().data;
      assert.deepEqual(
        page1.items.map((e) => e.seq),
        [first, first + 1],
      );
      assert.equal(page1.nextAfter, first + 1);
      const page2 = (
        await rig.call('GET', `/api/plcs/line1/alarms/history?limit=2&after=${page1.nextAfter}`)
      ).json<{
        data: HistoryJson;
      }>().data;
      assert.deepEqual(
        page2.items.map((e) => e.seq),
        [first + 2, first + 3],
      );
      const end = all.items.at(-1)!.seq;
      const none = (await rig.call('GET', `/api/plcs/line1/alarms/history?after=${end}`)).json<{
        data: HistoryJson;
      }>().data;
      assert.deepEqual(none, { items: [], nextAfter: end });
      for (const q of ['limit=0', 'limit=1001', 'limit=x', 'after=-1', 'after=1.5']) {
        const res = await rig.call('GET', `/api/plcs/line1/alarms/history?${q}`);
        assert.equal(res.statusCode, 400, q);
        assert.equal(code(res), 'VALIDATION_ERROR');
      }
      assert.equal((await rig.call('GET', '/api/plcs/line1/alarms/history?limit=1000')).statusCode, 200);
      // seq starts from the gateway's start time: a later start never reuses an earlier number.
      assert.ok(first > Date.UTC(2030, 0, 1) * 1000);
    });
  });
}

describe('alarm flag and journal bounds', () => {
  test('flag Alarms off: 501 FEATURE_DISABLED on every alarm route, /health/alarms included', async () => {
    const app = await buildTestApp({ settings: { Features: { Alarms: false } } });
    const headers = bearer(await mintToken());
    for (const [method, url] of [
      ['GET', '/api/plcs/line1/alarms'],
      ['GET', '/api/alarms'],
      ['POST', '/api/plcs/line1/alarms/K/acknowledge'],
      ['GET', '/api/plcs/line1/alarms/history'],
      ['GET', '/health/alarms'],
    ] as const) {
      const res = await app.inject({ method, url, headers });
      assert.equal(res.statusCode, 501, url);
      assert.equal(code(res), 'FEATURE_DISABLED');
    }
    await app.close();
  });

  test('JournalLength bounds the journal: the oldest transitions go, seq keeps counting', async () => {
    const rig = await startAlarmRig('simulated', { alarm: { JournalLength: 3 } });
    try {
      for (let i = 1; i <= 5; i++) await rig.writeSlot(i, entry({ sKey: `K${i}` }));
      const h = (await rig.call('GET', '/api/plcs/line1/alarms/history?after=0')).json<{
        data: HistoryJson;
      }>().data;
      assert.deepEqual(
        h.items.map((e) => e.alarm.code),
        ['K3', 'K4', 'K5'],
      );
      const seqs = h.items.map((e) => e.seq);
      assert.deepEqual(seqs, [seqs[0]!, seqs[0]! + 1, seqs[0]! + 2]);
    } finally {
      await rig.close();
    }
  });

  test('seq only grows across a gateway restart', async () => {
    let t = Date.UTC(2031, 0, 1);
    const first = await startAlarmRig('simulated', { now: () => t });
    await first.writeSlot(1, entry({ sKey: 'A' }));
    const a = (await first.call('GET', '/api/plcs/line1/alarms/history')).json<{ data: HistoryJson }>().data;
    await first.close();
    t += 1000;
    const second = await startAlarmRig('simulated', { now: () => t });
    await second.writeSlot(1, entry({ sKey: 'A' }));
    const b = (await second.call('GET', '/api/plcs/line1/alarms/history')).json<{ data: HistoryJson }>().data;
    await second.close();
    assert.ok(b.items[0]!.seq > a.items.at(-1)!.seq);
  });

  test('an unreadable TextCatalog fails start-up naming the setting', async () => {
    for (const file of [`${scenarioDir}/no-such-texts.json`, `${scenarioDir}/machine.yaml`]) {
      await assert.rejects(
        buildTestApp({ settings: { Features: { Alarms: true }, PlcAlarms: { TextCatalog: file } } }),
        (err: Error) => err instanceof ConfigError && /^PlcAlarms\.TextCatalog: /.test(err.problems[0] ?? ''),
      );
    }
  });
});
