// Alarm monitoring through HTTP on both drivers, driven by the scenario script with sim/step: every transition
// kind, statuses, the list fields, acknowledge by RPC (200, 404, the journal's user) and the journal's order.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  entry,
  startAlarmRig,
  time,
  testDrivers,
  type AlarmJson,
  type AlarmListJson,
  type AlarmRig,
  type HistoryJson,
} from './fixture.ts';

for (const driver of testDrivers) {
  describe(`alarm transitions (${driver})`, () => {
    let rig: AlarmRig;
    before(async () => {
      rig = await startAlarmRig(driver);
    });
    after(() => rig.close());

    async function list(): Promise<AlarmListJson> {
      const res = await rig.call('GET', '/api/plcs/line1/alarms');
      assert.equal(res.statusCode, 200, res.body);
      return res.json<{ data: AlarmListJson }>().data;
    }
    const item = async (code: string): Promise<AlarmJson | undefined> =>
      (await list()).items.find((a) => a.code === code);
    async function history(after?: number): Promise<HistoryJson> {
      const res = await rig.call(
        'GET',
        `/api/plcs/line1/alarms/history${after === undefined ? '' : `?after=${after}`}`,
      );
      assert.equal(res.statusCode, 200, res.body);
      return res.json<{ data: HistoryJson }>().data;
    }
    const kinds = (h: HistoryJson): string[] => h.items.map((e) => `${e.kind} ${e.alarm.code}`);
    /** The slot's PLCTimeStamp as the PLC holds it, formatted as lastOccurred must be. */
    function rawTime(slot: number): string {
      const t = rig.plc.read(`GVL_HMI.fbAlarms.aAlarms[${slot}].PLCTimeStamp`) as Record<string, number>;
      const p = (n: number | undefined, w = 2) => String(n).padStart(w, '0');
      return `${p(t.wYear, 4)}-${p(t.wMonth)}-${p(t.wDay)}T${p(t.wHour)}:${p(t.wMinute)}:${p(t.wSecond)}.${p(t.wMilliseconds, 3)}`;
    }

    let cursor: number;
    test('a quiet PLC lists nothing, Connected and not partial', async () => {
      await rig.reset();
      assert.deepEqual(await list(), {
        count: 0,
        shelvedCount: 0,
        outOfServiceCount: 0,
        suppressedCount: 0,
        partial: false,
        failedPeers: [],
        'x-ads-failed': [],
        items: [],
      });
      cursor = (await history()).nextAfter;
    });

    test('raised: the alarm is listed active with every field from its slot', async () => {
      await rig.step(1);
      const list1 = await list();
      assert.equal(list1.count, 1);
      const stamp = rawTime(1);
      assert.deepEqual(list1.items[0], {
        code: 'FILLER_OVERTEMP',
        sourceId: 'ads',
        scope: 'line1',
        severity: 2,
        severityLabel: 'WARNING',
        status: 'active',
        description: '',
        lastOccurred: stamp,
        capabilities: ['acknowledge'],
        'x-ads': {
          equipmentId: 'filler',
          errorCode: 1001,
          slotIndex: 1,
          needsAcknowledgement: true,
          isAcknowledged: false,
          plcTimestamp: stamp,
          plcClock: 'Unspecified',
        },
      });
      assert.deepEqual(kinds(await history(cursor)), ['raised FILLER_OVERTEMP']);
    });

    test('an alarm without NeedsAck has no acknowledge capability', async () => {
      await rig.step(2);
      const { items } = await list();
      assert.deepEqual(
        items.map((a) => [a.code, a.severityLabel, a.status, a.capabilities]),
        [
          ['FILLER_OVERTEMP', 'WARNING', 'active', ['acknowledge']],
          ['CAPPER_JAM', 'ERROR', 'active', ['acknowledge']],
          ['PALLET_FULL', 'INFO', 'active', []],
        ],
      );
    });

    test('cleared: the fault ends before acknowledgement, the alarm stays listed passive', async () => {
      await rig.step(2);
      const filler = await item('FILLER_OVERTEMP');
      assert.equal(filler?.status, 'passive');
      assert.deepEqual(filler?.capabilities, ['acknowledge']);
      const h = await history(cursor);
      assert.equal(kinds(h).at(-1), 'cleared FILLER_OVERTEMP');
      assert.equal(h.items.at(-1)?.alarm.status, 'passive');
    });

    test('ended: an alarm without acknowledgement leaves the list when its fault ends; the frame says cleared', async () => {
      await rig.step(1);
      assert.equal(await item('PALLET_FULL'), undefined);
      const last = (await history(cursor)).items.at(-1);
      assert.equal(last?.kind, 'ended');
      assert.equal(last.alarm.code, 'PALLET_FULL');
      assert.equal(last.alarm.status, 'cleared');
      assert.equal(last.alarm['x-ads'].isAcknowledged, false);
    });

    test('reoccurred: the fault returns while the alarm is still outstanding (passive -> active)', async () => {
      await rig.step(2);
      assert.equal((await item('FILLER_OVERTEMP'))?.status, 'active');
      assert.equal(kinds(await history(cursor)).at(-1), 'reoccurred FILLER_OVERTEMP');
    });

    test('reoccurred: the PLC timestamp advances while the alarm stays active', async () => {
      const before = (await item('CAPPER_JAM'))?.lastOccurred;
      await rig.step(2);
      const after = await item('CAPPER_JAM');
      assert.equal(after?.status, 'active');
      assert.ok(before !== undefined && after.lastOccurred !== undefined && after.lastOccurred > before);
      assert.equal(kinds(await history(cursor)).at(-1), 'reoccurred CAPPER_JAM');
    });

    test('acknowledged: POST acknowledge calls the PLC method; the journal names the user', async () => {
      const res = await rig.call('POST', '/api/plcs/line1/alarms/CAPPER_JAM/acknowledge');
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json(), { data: { acknowledged: true }, error: null });
      await rig.settle();
      const jam = await item('CAPPER_JAM');
      assert.equal(jam?.status, 'active');
      assert.equal(jam['x-ads'].isAcknowledged, true);
      assert.deepEqual(jam.capabilities, []);
      const last = (await history(cursor)).items.at(-1);
      assert.equal(`${last?.kind} ${last?.alarm.code}`, 'acknowledged CAPPER_JAM');
      assert.equal(last?.user, 'test-user');
      const line = rig.logs.find((l) => l.msg === 'alarm acknowledge' && l.result === 'acknowledged');
      assert.deepEqual(line && { sub: line.sub, plcId: line.plcId, key: line.key }, {
        sub: 'test-user',
        plcId: 'line1',
        key: 'CAPPER_JAM',
      });
    });

    test('acknowledge answers 404 ALARM_NOT_FOUND when nothing awaits acknowledgement under the key', async () => {
      for (const key of ['CAPPER_JAM', 'PALLET_FULL', 'NEVER_EXISTED']) {
        const res = await rig.call('POST', `/api/plcs/line1/alarms/${key}/acknowledge`);
        assert.equal(res.statusCode, 404, key);
        assert.equal(res.json<{ error: { code: string } }>().error.code, 'ALARM_NOT_FOUND');
      }
      const line = rig.logs.find((l) => l.msg === 'alarm acknowledge' && l.key === 'NEVER_EXISTED');
      assert.equal(line?.result, 'ALARM_NOT_FOUND');
    });

    test('ended: an acknowledged alarm whose fault ends leaves the list', async () => {
      await rig.step(2);
      assert.equal(await item('CAPPER_JAM'), undefined);
      assert.equal(kinds(await history(cursor)).at(-1), 'ended CAPPER_JAM');
    });

    test('acknowledged then ended in one snapshot come in that order; the journal keeps every transition in order', async () => {
      await rig.step(1);
      // FILLER_OVERTEMP is active: acknowledging keeps it listed; a reset then ends it.
      const ack = await rig.call('POST', '/api/plcs/line1/alarms/FILLER_OVERTEMP/acknowledge');
      assert.deepEqual(ack.json(), { data: { acknowledged: true }, error: null });
      await rig.settle();
      await rig.reset();
      assert.equal((await list()).count, 0);
      const h = await history(cursor);
      assert.deepEqual(kinds(h), [
        'raised FILLER_OVERTEMP',
        'raised CAPPER_JAM',
        'raised PALLET_FULL',
        'cleared FILLER_OVERTEMP',
        'ended PALLET_FULL',
        'reoccurred FILLER_OVERTEMP',
        'reoccurred CAPPER_JAM',
        'acknowledged CAPPER_JAM',
        'ended CAPPER_JAM',
        'acknowledged FILLER_OVERTEMP',
        'ended FILLER_OVERTEMP',
      ]);
      const seqs = h.items.map((e) => e.seq);
      assert.deepEqual(
        seqs,
        seqs.map((_, i) => (seqs[0] ?? 0) + i),
      );
      assert.ok(h.items.every((e) => !Number.isNaN(Date.parse(e.at))));
    });

    test('without a readable timestamp a re-trigger that keeps the active flag produces nothing; dropping it does', async () => {
      const start = (await history()).nextAfter;
      const slot = { sKey: 'NO_CLOCK', PLCTimeStamp: time(0, 0, 0) };
      await rig.writeSlot(9, entry(slot));
      const raised = await item('NO_CLOCK');
      await rig.writeSlot(9, entry({ ...slot, PLCTimeStamp: time(2024, 2, 30) }));
      assert.deepEqual(await item('NO_CLOCK'), raised, 'no payload change');
      assert.deepEqual(kinds(await history(start)), ['raised NO_CLOCK']);
      await rig.writeSlot(9, entry({ ...slot, IsActive: false }));
      await rig.writeSlot(9, entry(slot));
      assert.deepEqual(kinds(await history(start)), [
        'raised NO_CLOCK',
        'cleared NO_CLOCK',
        'reoccurred NO_CLOCK',
      ]);
    });
  });
}
