// Alarm SSE through real sockets on both drivers, driven by sim/step: frames and their ids, heartbeats without
// ids, refusals before the stream opens, Last-Event-ID replay and resync, and the fleet stream (plc_access,
// per-PLC order, cursors listing every PLC).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { bearer, mintToken } from '../../helpers/tokens.ts';
import { RawSse, type SseEvent } from '../notifications/clients.ts';
import {
  arrayPath,
  createSteppedPlant,
  cycleTimeMs,
  entry,
  listen,
  startAlarmRig,
  testDrivers,
  type AlarmListJson,
  type AlarmRig,
  type HistoryJson,
} from './fixture.ts';

interface Frame {
  kind: string;
  alarm: { code: string; scope: string; status: string };
}

export const frame = (e: SseEvent | undefined): string => {
  const f = e?.event === 'alarm' ? (e.data as Frame) : undefined;
  return `${f?.kind} ${f?.alarm.code}`;
};
const alarmFrames = (s: RawSse, from = 0): string[] =>
  s.events
    .slice(from)
    .filter((e) => e.event === 'alarm')
    .map(frame);

async function history(rig: AlarmRig, plcId = 'line1'): Promise<HistoryJson> {
  return (await rig.call('GET', `/api/plcs/${plcId}/alarms/history?limit=1000`)).json<{ data: HistoryJson }>()
    .data;
}

for (const driver of testDrivers) {
  describe(`alarm SSE (${driver})`, () => {
    let rig: AlarmRig;
    let base: string;
    let token: string;
    const open: RawSse[] = [];
    const sse = (path: string, headers: Record<string, string> = {}, t = token): Promise<RawSse> => {
      const s = new RawSse(`${base}${path}`, { ...bearer(t), ...headers });
      open.push(s);
      return s.opened();
    };
    before(async () => {
      rig = await startAlarmRig(driver, {
        alarm: { JournalLength: 6 },
        streamTimings: { heartbeatMs: 30 },
        settings: { RateLimiting: { NotificationConnections: 1000 } },
      });
      base = await listen(rig);
      token = await mintToken();
    });
    after(async () => {
      for (const s of open) s.close();
      await rig.close();
    });

    test('unknown plcId, and a PLC without alarm configuration: 404 PLC_NOT_FOUND as JSON, no stream', async () => {
      // On the Real driver the scenario PLC is registered as `plant` too, without alarm configuration.
      for (const plcId of ['nope', ...(driver === 'real' ? ['plant'] : [])]) {
        const s = await sse(`/api/plcs/${plcId}/alarms/stream`);
        assert.equal(s.status, 404, plcId);
        assert.match(String(s.headers['content-type']), /^application\/json/);
        assert.equal((await s.json()).error?.code, 'PLC_NOT_FOUND');
      }
      const anonymous = await new RawSse(`${base}/api/plcs/line1/alarms/stream`, {}).opened();
      assert.equal(anonymous.status, 401);
    });

    test('transitions arrive as `alarm` { kind, alarm } with id <plcId>:<seq>; heartbeats carry no id', async () => {
      await rig.reset();
      const s = await sse('/api/plcs/line1/alarms/stream');
      assert.equal(s.status, 200);
      assert.match(String(s.headers['content-type']), /^text\/event-stream/);
      assert.equal(s.headers['cache-control'], 'no-cache');
      await rig.step(1);
      const raised = await s.next((e) => e.event === 'alarm');
      assert.equal(frame(raised), 'raised FILLER_OVERTEMP');
      assert.equal((raised.data as Frame).alarm.status, 'active');
      assert.equal((raised.data as Frame).alarm.scope, 'line1');
      assert.equal(raised.id, `line1:${(await history(rig)).nextAfter}`);
      const beat = await s.next((e) => e.event === 'heartbeat');
      assert.deepEqual(beat.data, {});
      await rig.step(1);
      const jam = await s.next((e) => frame(e) === 'raised CAPPER_JAM');
      assert.equal(jam.id, `line1:${(await history(rig)).nextAfter}`);
      assert.ok(s.events.filter((e) => e.event === 'heartbeat').every((e) => e.id === undefined));
      assert.deepEqual(alarmFrames(s), ['raised FILLER_OVERTEMP', 'raised CAPPER_JAM']);
    });

    test('every transition kind is streamed, in the journal order', async () => {
      const s = await sse('/api/plcs/line1/alarms/stream');
      const from = (await history(rig)).nextAfter;
      await rig.step(1); // cycle 3: PALLET_FULL raised
      await rig.step(2); // cycle 5: FILLER_OVERTEMP cleared (awaits acknowledgement: passive)
      await rig.step(1); // cycle 6: PALLET_FULL ended (needs no acknowledgement)
      await rig.step(2); // cycle 8: FILLER_OVERTEMP reoccurred
      await rig.writeSlot(2, { ...entry({ sKey: 'CAPPER_JAM', IsActive: true, IsAcked: true }) });
      const journal = (await history(rig)).items.filter((i) => i.seq > from);
      const expected = journal.map((i) => `${i.kind} ${i.alarm.code}`);
      await s.next((e) => e.id === `line1:${journal.at(-1)?.seq}`);
      assert.deepEqual(alarmFrames(s), expected);
      assert.deepEqual(
        s.events.filter((e) => e.event === 'alarm').map((e) => e.id),
        journal.map((i) => `line1:${i.seq}`),
      );
      for (const kind of ['raised', 'cleared', 'ended', 'reoccurred', 'acknowledged']) {
        assert.ok(
          expected.some((f) => f.startsWith(`${kind} `)),
          `${kind} in ${expected.join(', ')}`,
        );
      }
      const ended = s.events.find((e) => frame(e) === 'ended PALLET_FULL');
      assert.equal((ended?.data as Frame).alarm.status, 'cleared');
    });

    test('Last-Event-ID: the missed transitions are replayed in order, then live ones follow', async () => {
      await rig.reset();
      const first = await sse('/api/plcs/line1/alarms/stream');
      await rig.step(3); // raised FILLER_OVERTEMP, CAPPER_JAM, PALLET_FULL
      const seen = await first.next((e) => frame(e) === 'raised PALLET_FULL');
      first.close();
      await rig.step(2); // cleared FILLER_OVERTEMP
      await rig.step(1); // ended PALLET_FULL
      const resumed = await sse('/api/plcs/line1/alarms/stream', { 'last-event-id': String(seen.id) });
      await resumed.next((e) => frame(e) === 'ended PALLET_FULL');
      await rig.step(2); // reoccurred FILLER_OVERTEMP
      await resumed.next((e) => frame(e) === 'reoccurred FILLER_OVERTEMP');
      assert.deepEqual(alarmFrames(resumed), [
        'cleared FILLER_OVERTEMP',
        'ended PALLET_FULL',
        'reoccurred FILLER_OVERTEMP',
      ]);
      assert.equal(
        resumed.events.some((e) => e.event === 'resync'),
        false,
      );
      // Resuming from the newest id replays nothing.
      const newest = await sse('/api/plcs/line1/alarms/stream', {
        'last-event-id': `line1:${(await history(rig)).nextAfter}`,
      });
      await newest.next((e) => e.event === 'heartbeat');
      assert.deepEqual(alarmFrames(newest), []);
    });

    test('an id the journal no longer holds (wrapped, before a restart, another PLC, garbage): resync with the list', async () => {
      const stale = (await history(rig)).items[0]?.seq ?? 0;
      // JournalLength 6: six more transitions (raised, then cleared and reoccurred in turn) push `stale` out.
      let on = false;
      const toggle = async (): Promise<void> => {
        on = !on;
        await rig.writeSlot(10, entry({ sKey: 'WRAP', IsActive: on }));
      };
      for (let i = 0; i < 6; i++) await toggle();
      const ids: Array<(newest: number) => string> = [
        () => `line1:${stale}`,
        () => 'line1:5',
        (newest) => `line1:${newest + 1}`,
        () => 'other:1',
        () => 'garbage',
      ];
      for (const id of ids) {
        const list = (await rig.call('GET', '/api/plcs/line1/alarms')).json<{ data: AlarmListJson }>().data;
        const newest = (await history(rig)).nextAfter;
        const s = await sse('/api/plcs/line1/alarms/stream', { 'last-event-id': id(newest) });
        const resync = await s.next((e) => e.event === 'resync');
        assert.deepEqual(resync.data, list, id(newest));
        assert.equal(resync.id, `line1:${newest}`);
        await toggle();
        const next = await s.next((e) => e.event === 'alarm');
        assert.equal(next.id, `line1:${newest + 1}`);
        assert.deepEqual(
          s.events.filter((e) => e.event !== 'heartbeat').map((e) => e.event),
          ['resync', 'alarm'],
        );
        s.close();
      }
    });

    test('an id just before the oldest entry held: the whole journal is replayed (the edge of resumable)', async () => {
      const newest = (await history(rig)).nextAfter;
      const s = await sse('/api/plcs/line1/alarms/stream', { 'last-event-id': `line1:${newest - 6}` });
      await s.next((e) => e.event === 'alarm' && e.id === `line1:${newest}`);
      assert.equal(alarmFrames(s).length, 6);
    });

    test('the fleet stream carries every permitted PLC and nothing else', async () => {
      // A token granting no configured PLC is refused as JSON, before any stream opens.
      const denied = await sse('/api/alarms/stream', {}, await mintToken({ plc_access: ['elsewhere'] }));
      assert.equal(denied.status, 403);
      assert.equal((await denied.json()).error?.code, 'PLC_ACCESS_DENIED');
      const all = await sse('/api/alarms/stream');
      // On the Real driver `plant` is configured but not monitored: a token granting only it opens a silent stream.
      const restricted = await mintToken({ plc_access: ['plant'] });
      const none = driver === 'real' ? await sse('/api/alarms/stream', {}, restricted) : undefined;
      assert.deepEqual([none?.status ?? 200, all.status], [200, 200]);
      await rig.writeSlot(15, entry({ sKey: 'FLEET' }));
      const got = await all.next((e) => frame(e) === 'raised FLEET');
      assert.equal(got.id, `line1:${(await history(rig)).nextAfter}`);
      assert.equal((got.data as Frame).alarm.scope, 'line1');
      if (none === undefined) return;
      // The restricted stream is open (heartbeats after the change) but silent.
      const beats = none.events.length;
      await none.next((e) => e.event === 'heartbeat', beats);
      assert.deepEqual(alarmFrames(none), []);
      // Asking for a resync (any id that is not a cursor) is answered even with no monitored PLC permitted.
      const empty = await sse('/api/alarms/stream', { 'last-event-id': 'resync' }, restricted);
      const resync = await empty.next((e) => e.event === 'resync');
      assert.deepEqual(resync.data, {
        count: 0,
        shelvedCount: 0,
        outOfServiceCount: 0,
        suppressedCount: 0,
        partial: false,
        failedPeers: [],
        'x-ads-failed': [],
        items: [],
      });
    });
  });
}

describe('fleet alarm SSE over two PLCs (simulated)', () => {
  let rig: AlarmRig;
  let base: string;
  let token: string;
  let line2: Awaited<ReturnType<typeof createSteppedPlant>>;
  const step = async (plcId: string, cycles: number): Promise<void> => {
    if (plcId === 'line1') return rig.step(cycles);
    line2.stepping(cycles);
    const res = await rig.call('POST', `/api/plcs/${plcId}/sim/step?cycles=${cycles}`);
    assert.equal(res.statusCode, 200, res.body);
  };
  before(async () => {
    line2 = await createSteppedPlant('line2');
    rig = await startAlarmRig('simulated', {
      targets: [line2.plant],
      settings: {
        PlcAlarms: { Targets: { line2: { SymbolPath: arrayPath, CycleTimeMs: cycleTimeMs } } },
        RateLimiting: { NotificationConnections: 1000 },
      },
    });
    base = await listen(rig);
    token = await mintToken();
  });
  after(() => rig.close());

  test('order is kept per PLC; ids list every PLC; Last-Event-ID replays both PLCs', async () => {
    const fleet = await new RawSse(`${base}/api/alarms/stream`, bearer(token)).opened();
    const only2 = await new RawSse(
      `${base}/api/alarms/stream`,
      bearer(await mintToken({ plc_access: ['line2'] })),
    ).opened();
    await step('line1', 1);
    await step('line2', 2);
    await step('line1', 1);
    const last = await fleet.next(
      (e) => frame(e) === 'raised CAPPER_JAM' && (e.data as Frame).alarm.scope === 'line1',
    );
    const seq1 = (await history(rig, 'line1')).nextAfter;
    const seq2 = (await history(rig, 'line2')).nextAfter;
    assert.equal(last.id, `line1:${seq1},line2:${seq2}`);
    const byPlc = (s: RawSse, plcId: string): string[] =>
      s.events.filter((e) => e.event === 'alarm' && (e.data as Frame).alarm.scope === plcId).map(frame);
    assert.deepEqual(byPlc(fleet, 'line1'), ['raised FILLER_OVERTEMP', 'raised CAPPER_JAM']);
    assert.deepEqual(byPlc(fleet, 'line2'), ['raised FILLER_OVERTEMP', 'raised CAPPER_JAM']);
    await only2.next((e) => frame(e) === 'raised CAPPER_JAM');
    assert.deepEqual(byPlc(only2, 'line1'), []);
    assert.equal(only2.events.filter((e) => e.event === 'alarm').at(-1)?.id, `line2:${seq2}`);
    fleet.close();

    await step('line1', 1); // PALLET_FULL raised
    await step('line2', 1);
    const resumed = await new RawSse(`${base}/api/alarms/stream`, {
      ...bearer(token),
      'last-event-id': String(last.id),
    }).opened();
    await resumed.next((e) => e.event === 'alarm' && (e.data as Frame).alarm.scope === 'line2');
    assert.deepEqual(alarmFrames(resumed), ['raised PALLET_FULL', 'raised PALLET_FULL']);
    const ids = resumed.events.filter((e) => e.event === 'alarm').map((e) => e.id);
    assert.deepEqual(ids, [`line1:${seq1 + 1},line2:${seq2}`, `line1:${seq1 + 1},line2:${seq2 + 1}`]);
    // A cursor naming only one of the two PLCs cannot be resumed: resync with the fleet list.
    const partial = await new RawSse(`${base}/api/alarms/stream`, {
      ...bearer(token),
      'last-event-id': `line1:${seq1 + 1}`,
    }).opened();
    const resync = await partial.next((e) => e.event === 'resync');
    assert.equal((resync.data as AlarmListJson).count, 6);
    assert.equal(resync.id, `line1:${seq1 + 1},line2:${seq2 + 1}`);
    for (const s of [only2, resumed, partial]) s.close();
  });
});
