// The seven rules of the alarm list routes, the timestamp rule and raw slots, through HTTP on both drivers.
// Raw slots are whole ST_ErrorEntry values written through the variables API.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ProgramBuilder } from '../../../src/simulator/engine/index.ts';
import { FakeTarget } from '../../helpers/fake-target.ts';
import { bearer, mintToken } from '../../helpers/tokens.ts';
import {
  createPlant,
  declareErrorEntry,
  entry,
  startAlarmRig,
  testDrivers,
  time,
  type AlarmListJson,
  type AlarmRig,
} from './fixture.ts';

const listOf = async (rig: AlarmRig, url = '/api/plcs/line1/alarms'): Promise<AlarmListJson> => {
  const res = await rig.call('GET', url);
  assert.equal(res.statusCode, 200, res.body);
  return res.json<{ data: AlarmListJson }>().data;
};

for (const driver of testDrivers) {
  describe(`alarm list rules (${driver})`, () => {
    let rig: AlarmRig;
    const quiet = new FakeTarget('quiet', { state: 'Disconnected' });
    before(async () => {
      rig = await startAlarmRig(driver, { alarm: { PlcClock: 'Utc' }, targets: [quiet] });
    });
    after(() => rig.close());

    test('rule 1: an unknown plcId, or one without alarm configuration, is 404 PLC_NOT_FOUND on every route', async () => {
      for (const plcId of ['nope', 'quiet']) {
        for (const [method, url] of [
          ['GET', `/api/plcs/${plcId}/alarms`],
          ['GET', `/api/plcs/${plcId}/alarms/history`],
          ['POST', `/api/plcs/${plcId}/alarms/X/acknowledge`],
        ] as const) {
          const res = await rig.call(method, url);
          assert.equal(res.statusCode, 404, `${method} ${url}`);
          assert.equal(res.json<{ error: { code: string } }>().error.code, 'PLC_NOT_FOUND');
        }
      }
    });

    test('rule 3: a PLC absent from the alarm targets never makes partial true, even when disconnected', async () => {
      const fleet = await listOf(rig, '/api/alarms');
      assert.equal(fleet.partial, false);
      assert.deepEqual(fleet.failedPeers, []);
    });

    test('timestamps: Utc gives Z on plcTimestamp, none on lastOccurred; a zeroed TIMESTRUCT leaves all three out', async () => {
      await rig.reset();
      await rig.writeSlot(10, entry({ sKey: 'TIMED', PLCTimeStamp: time(2024, 2, 29, 23, 59, 58, 7) }));
      await rig.writeSlot(11, entry({ sKey: 'UNTIMED', PLCTimeStamp: time(0, 0, 0) }));
      const { items } = await listOf(rig);
      const timed = items.find((a) => a.code === 'TIMED');
      assert.equal(timed?.lastOccurred, '2024-02-29T23:59:58.007');
      assert.equal(timed['x-ads'].plcTimestamp, '2024-02-29T23:59:58.007Z');
      assert.equal(timed['x-ads'].plcClock, 'Utc');
      const untimed = items.find((a) => a.code === 'UNTIMED');
      assert.ok(untimed);
      assert.equal('lastOccurred' in untimed, false);
      assert.equal('plcTimestamp' in untimed['x-ads'], false);
      assert.equal('plcClock' in untimed['x-ads'], false);
      assert.deepEqual(untimed.capabilities, ['acknowledge'], 'still acknowledgeable');
      assert.equal(rig.logs.filter((l) => l.slotIndex === 11).length, 0, 'a zeroed time is not an error');
    });

    test('rule 6: an impossible timestamp binds as unset, logged once per entry; the rest of the array is unaffected', async () => {
      const impossible = [
        time(2023, 13, 1),
        time(2023, 2, 31),
        time(0, 1, 1),
        time(1, 1, 1),
        time(2024, 1, 1, 24),
      ];
      for (const [i, t] of impossible.entries()) {
        await rig.writeSlot(12, entry({ sKey: 'BAD_TIME', PLCTimeStamp: t, ErrorCode: i }));
        const { items } = await listOf(rig);
        const bad = items.find((a) => a.code === 'BAD_TIME');
        assert.equal(bad?.['x-ads'].errorCode, i);
        assert.equal('lastOccurred' in bad, false, JSON.stringify(t));
        assert.equal('plcTimestamp' in bad['x-ads'], false);
        assert.equal(items.find((a) => a.code === 'TIMED')?.lastOccurred, '2024-02-29T23:59:58.007');
      }
      const lines = rig.logs.filter((l) => l.key === 'BAD_TIME' && /not a real date/.test(String(l.msg)));
      assert.equal(lines.length, 1);
      assert.equal(lines[0]?.plcId, 'line1');
    });

    test('rule 6: an unrecognised ErrorType is kept as UNKNOWN with its raw value, logged once per value', async () => {
      await rig.writeSlot(13, entry({ sKey: 'ODD_TYPE', ErrorType: 7 }));
      await rig.writeSlot(13, entry({ sKey: 'ODD_TYPE', ErrorType: 7, ErrorCode: 43 }));
      await rig.writeSlot(14, entry({ sKey: 'ODD_TYPE_2', ErrorType: -2 }));
      const { items } = await listOf(rig);
      const odd = items.find((a) => a.code === 'ODD_TYPE');
      assert.deepEqual([odd?.severity, odd?.severityLabel, odd?.['x-ads'].errorCode], [7, 'UNKNOWN', 43]);
      const odd2 = items.find((a) => a.code === 'ODD_TYPE_2');
      assert.deepEqual([odd2?.severity, odd2?.severityLabel], [-2, 'UNKNOWN']);
      assert.equal(items.find((a) => a.code === 'TIMED')?.severityLabel, 'WARNING');
      const lines = rig.logs.filter((l) => /unrecognised ErrorType/.test(String(l.msg)));
      assert.deepEqual(lines.map((l) => l.errorType).sort(), [-2, 7]);
    });

    test('a key held by two slots is listed once, from the outstanding slot, and logged once', async () => {
      await rig.writeSlot(15, entry({ sKey: 'TWICE', IsActive: false, NeedsAck: false, ErrorCode: 1 }));
      await rig.writeSlot(16, entry({ sKey: 'TWICE', IsActive: true, ErrorCode: 2 }));
      await rig.writeSlot(16, entry({ sKey: 'TWICE', IsActive: true, ErrorCode: 3 }));
      const twice = (await listOf(rig)).items.filter((a) => a.code === 'TWICE');
      assert.deepEqual(
        twice.map((a) => [a['x-ads'].slotIndex, a['x-ads'].errorCode]),
        [[16, 3]],
      );
      assert.equal(
        rig.logs.filter((l) => l.key === 'TWICE' && /more than one slot/.test(String(l.msg))).length,
        1,
      );
    });

    test('rule 2: a Disconnected scope gives 200, partial, failedPeers, x-ads-failed and the last good items', async () => {
      const before = await listOf(rig);
      assert.ok(before.count > 0);
      await rig.disconnect();
      const down = await listOf(rig);
      assert.equal(down.partial, true);
      assert.deepEqual(down.failedPeers, ['ads:line1']);
      const failed = down['x-ads-failed'];
      assert.equal(failed.length, 1);
      assert.equal(failed[0]?.peer, 'ads:line1');
      assert.ok(failed[0].state === 'Disconnected' || failed[0].state === 'Connecting', failed[0].state);
      assert.ok(failed[0].reason.length > 0);
      assert.ok(!Number.isNaN(Date.parse(failed[0].since)));
      assert.deepEqual(down.items, before.items);
      const fleet = await listOf(rig, '/api/alarms');
      assert.equal(fleet.partial, true);
      assert.deepEqual(fleet.failedPeers, ['ads:line1']);
    });

    test('after the connection returns, everything outstanding is raised again and partial clears', async () => {
      const { nextAfter } = (await rig.call('GET', '/api/plcs/line1/alarms/history')).json<{
        data: { nextAfter: number };
      }>().data;
      await rig.reconnect();
      const up = await listOf(rig);
      assert.equal(up.partial, false);
      assert.deepEqual(up['x-ads-failed'], []);
      const h = (await rig.call('GET', `/api/plcs/line1/alarms/history?after=${nextAfter}`)).json<{
        data: { items: Array<{ kind: string; alarm: { code: string } }> };
      }>().data;
      assert.deepEqual(
        h.items.map((e) => `${e.kind} ${e.alarm.code}`),
        up.items.map((a) => `raised ${a.code}`),
      );
    });

    test('rule 5: an entry type that stops matching ST_ErrorEntry keeps the last good reading, Connected, not partial', async () => {
      const good = await listOf(rig);
      // A download in which IsActive was renamed: same type name and size, different member.
      const b = new ProgramBuilder();
      declareErrorEntry(b, 'bActive');
      b.functionBlock('FB_HmiAlarms', [{ name: 'aAlarms', type: 'ARRAY [1..16] OF ST_ErrorEntry' }], []);
      b.symbol('GVL_HMI.fbAlarms', 'FB_HmiAlarms');
      rig.plc.load(b.build());
      const renamed: Record<string, unknown> = { ...entry({ sKey: 'AFTER_DOWNLOAD' }), bActive: true };
      delete renamed.IsActive;
      // Written on the PLC side: the gateway may still be reloading the downloaded program's symbols.
      rig.plc.write('GVL_HMI.fbAlarms.aAlarms[1]', renamed);
      rig.plc.sample({ immediate: true });
      await rig.settle();
      const after = await listOf(rig);
      assert.deepEqual(after, good);
      assert.equal(rig.target.connectionState(), 'Connected');
      const errors = rig.logs.filter(
        (l) => l.level === 50 && /no longer matches ST_ErrorEntry/.test(String(l.msg)),
      );
      assert.equal(errors.length, 1);
      assert.match(String(errors[0]?.problem), /IsActive/);
    });
  });

  describe(`alarm list rules on other configurations (${driver})`, () => {
    test('rule 7: a SymbolPath that resolves to nothing answers count 0, not partial, like a quiet PLC', async () => {
      const rig = await startAlarmRig(driver, { alarm: { SymbolPath: 'GVL_HMI.fbAlarms.aMissing' } });
      try {
        await rig.step(3);
        assert.deepEqual(await listOf(rig), {
          count: 0,
          shelvedCount: 0,
          outOfServiceCount: 0,
          suppressedCount: 0,
          partial: false,
          failedPeers: [],
          'x-ads-failed': [],
          items: [],
        });
      } finally {
        await rig.close();
      }
    });

    test('a PLC down at start-up does not stop the gateway; monitoring begins when it connects', async () => {
      const rig = await startAlarmRig(driver, { plcDown: true, alarm: { PlcClock: 'Local' } });
      try {
        const down = await listOf(rig);
        assert.equal(down.partial, true);
        assert.deepEqual(down.failedPeers, ['ads:line1']);
        assert.equal(down.count, 0);
        await rig.reconnect();
        await rig.writeSlot(2, entry({ sKey: 'LOCAL', PLCTimeStamp: time(2024, 7, 1, 12, 0, 0, 0) }));
        const up = await listOf(rig);
        assert.equal(up.partial, false);
        const local = up.items.find((a) => a.code === 'LOCAL');
        const east = -new Date(2024, 6, 1, 12).getTimezoneOffset();
        const offset = `${east >= 0 ? '+' : '-'}${String(Math.floor(Math.abs(east) / 60)).padStart(2, '0')}:${String(Math.abs(east) % 60).padStart(2, '0')}`;
        assert.equal(local?.lastOccurred, '2024-07-01T12:00:00.000');
        assert.equal(local['x-ads'].plcTimestamp, `2024-07-01T12:00:00.000${offset}`);
        assert.equal(local['x-ads'].plcClock, 'Local');
      } finally {
        await rig.close();
      }
    });

    test('rule 4: the fleet route lists every monitored PLC the plc_access claim permits', async () => {
      const second = await createPlant('line2');
      const rig = await startAlarmRig(driver, {
        targets: [second],
        settings: { PlcAlarms: { Targets: { line2: { SymbolPath: 'GVL_HMI.fbAlarms.aAlarms' } } } },
      });
      try {
        await rig.writeSlot(3, entry({ sKey: 'ON_LINE1' }));
        const slot = encodeURIComponent('GVL_HMI.fbAlarms.aAlarms[3]');
        const put = await rig.call('PUT', `/api/plcs/line2/variables/${slot}`, {
          value: entry({ sKey: 'ON_LINE2' }),
        });
        assert.equal(put.statusCode, 200, put.body);
        const scopes = async (claim: unknown): Promise<string[]> => {
          const res = await rig.app.inject({
            method: 'GET',
            url: '/api/alarms',
            headers: bearer(await mintToken({ plc_access: claim })),
          });
          assert.equal(res.statusCode, 200, res.body);
          return res.json<{ data: AlarmListJson }>().data.items.map((a) => `${a.scope}:${a.code}`);
        };
        assert.deepEqual(await scopes(['*']), ['line1:ON_LINE1', 'line2:ON_LINE2']);
        assert.deepEqual(await scopes(['line2']), ['line2:ON_LINE2']);
        assert.deepEqual(await scopes(['line1', 'elsewhere']), ['line1:ON_LINE1']);
        const none = await rig.app.inject({
          method: 'GET',
          url: '/api/alarms',
          headers: bearer(await mintToken({ plc_access: [] })),
        });
        assert.equal(none.statusCode, 403);
        assert.equal(none.json<{ error: { code: string } }>().error.code, 'PLC_ACCESS_DENIED');
      } finally {
        await rig.close();
        await second.close();
      }
    });
  });
}
