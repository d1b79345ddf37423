// GET /api/plcs/{plcId}/alarms/kpis and GET /api/alarms/kpis through HTTP on a monitored PLC (simulated and
// Real driver), with an injected clock: the figures from the journal and the window it covers, policies and
// plc_access, the fleet filtered by plc_access, bad windows, the MaxWindowDays and HistoryQueries edges.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { manualClock } from '../../../helpers/app.ts';
import { bearer, mintToken } from '../../../helpers/tokens.ts';
import { createPlant, entry, startAlarmRig, testDrivers, type AlarmRig } from '../fixture.ts';

export interface KpiJson {
  plcId: string;
  requested: { from: string; to: string };
  covered: { from: string; to: string };
  source: string;
  limitedBy?: string;
  figures: {
    raised: {
      total: number;
      periods: number;
      per10Minutes: { average: number | null; peak: number; assessment: string | null };
      floodPeriods: number;
      floodShare: number | null;
    };
    standing: { count: number; items: unknown[] };
    chattering: {
      count: number;
      items: Array<{ plcId: string; key: string; raises: number; maxRaisesIn60s: number }>;
    };
    topKeys: {
      share: number | null;
      items: Array<{ plcId: string; key: string; raises: number; share: number }>;
    };
    timeToAcknowledge: { count: number; p50Seconds: number | null; p90Seconds: number | null };
    now: { outstanding: number; shelved: number; outOfService: number; suppressed: number };
  };
  benchmarks: {
    raisedPer10Minutes: { veryLikelyAcceptable: number; maximumManageable: number };
    floodAbove: number;
  };
}

interface FleetJson {
  requested: { from: string; to: string };
  covered: { from: string; to: string };
  plcs: KpiJson[];
  figures: KpiJson['figures'];
}

const iso = (ms: number): string => new Date(ms).toISOString();
const s = 1000;
const min = 60 * s;
const h = 60 * min;
const code = (res: { json<T>(): T }): string => res.json<{ error: { code: string } }>().error.code;
const message = (res: { json<T>(): T }): string => res.json<{ error: { message: string } }>().error.message;

for (const driver of testDrivers) {
  describe(`alarm KPIs over HTTP (${driver})`, () => {
    const start = Date.UTC(2030, 0, 1);
    const clock = manualClock(start);
    let rig: AlarmRig;
    let second: Awaited<ReturnType<typeof createPlant>>;
    before(async () => {
      second = await createPlant('line2');
      rig = await startAlarmRig(driver, {
        now: clock.now,
        targets: [second],
        settings: {
          PlcAlarms: {
            Targets: { line2: { SymbolPath: 'GVL_HMI.fbAlarms.aAlarms' } },
            Kpis: { MaxWindowDays: 2 },
          },
          RateLimiting: { HistoryQueries: 3 },
        },
      });
      // One alarm acknowledged 30 s after it was raised, then one key raised three times within 35 s.
      clock.advance(min);
      await rig.writeSlot(4, entry({ sKey: 'ACK_ME' }));
      clock.advance(30 * s);
      const ack = await rig.call('POST', '/api/plcs/line1/alarms/ACK_ME/acknowledge');
      assert.equal(ack.statusCode, 200, ack.body);
      await rig.settle();
      for (let i = 0; i < 3; i++) {
        clock.advance(10 * s);
        await rig.writeSlot(5, entry({ sKey: 'CHATTY', NeedsAck: false }));
        clock.advance(5 * s);
        await rig.writeSlot(5, entry({ sKey: 'CHATTY', NeedsAck: false, IsActive: false }));
      }
      clock.advance(10 * min);
    });
    after(async () => {
      await rig.close();
      await second.close();
    });

    const get = async (url: string, token?: Record<string, string>) => {
      clock.advance(s); // a fresh HistoryQueries second for every request
      return token ? rig.app.inject({ method: 'GET', url, headers: token }) : rig.call('GET', url);
    };

    test('figures from the journal over the part of the window it holds, with the benchmarks', async () => {
      const res = await get('/api/plcs/line1/alarms/kpis');
      assert.equal(res.statusCode, 200, res.body);
      const kpis = res.json<{ data: KpiJson }>().data;
      const now = clock.now();
      // The journal holds everything since the gateway started: the window is cut to that.
      assert.deepEqual(
        [kpis.plcId, kpis.source, kpis.limitedBy, kpis.requested, kpis.covered],
        [
          'line1',
          'journal',
          'journal',
          { from: iso(now - 24 * h), to: iso(now) },
          { from: iso(start), to: iso(now) },
        ],
      );
      const { raised, chattering, topKeys, timeToAcknowledge, standing } = kpis.figures;
      const average = Math.round(((4 * 10 * min) / (now - start)) * 10_000) / 10_000;
      assert.deepEqual(raised, {
        total: 4,
        periods: 2,
        per10Minutes: { average, peak: 4, assessment: 'likely over-demanding' },
        floodPeriods: 0,
        floodShare: 0,
      });
      assert.deepEqual(chattering, {
        count: 1,
        items: [{ plcId: 'line1', key: 'CHATTY', raises: 3, maxRaisesIn60s: 3 }],
      });
      assert.deepEqual(
        topKeys.items.map((k) => [k.key, k.raises, k.share]),
        [
          ['CHATTY', 3, 0.75],
          ['ACK_ME', 1, 0.25],
        ],
      );
      assert.equal(topKeys.share, 1);
      assert.deepEqual(timeToAcknowledge, { count: 1, p50Seconds: 30, p90Seconds: 30 });
      assert.equal(standing.count, 0);
      assert.deepEqual(kpis.figures.now, { outstanding: 1, shelved: 0, outOfService: 0, suppressed: 0 });
      assert.deepEqual(kpis.benchmarks.raisedPer10Minutes, { veryLikelyAcceptable: 1, maximumManageable: 2 });
      assert.equal(kpis.benchmarks.floodAbove, 10);
    });

    test('an explicit window: from inclusive, to exclusive, to cut to now', async () => {
      // [start + 60 s, start + 120 s): the ACK_ME raise (60 s) and acknowledgement, CHATTY raised at 100 and 115 s.
      const window = await get(
        `/api/plcs/line1/alarms/kpis?from=${iso(start + min)}&to=${iso(start + 120 * s)}`,
      );
      assert.equal(window.statusCode, 200, window.body);
      const kpis = window.json<{ data: KpiJson }>().data;
      assert.deepEqual(kpis.covered, { from: iso(start + min), to: iso(start + 120 * s) });
      assert.equal(kpis.limitedBy, undefined);
      assert.equal(kpis.figures.raised.total, 3);
      assert.equal(kpis.figures.raised.per10Minutes.average, 30);
      assert.equal(kpis.figures.raised.per10Minutes.assessment, 'very likely unacceptable');
      const before = await get(
        `/api/plcs/line1/alarms/kpis?from=${iso(start + min)}&to=${iso(start + min + 1)}`,
      );
      assert.equal(before.json<{ data: KpiJson }>().data.figures.raised.total, 1, 'from is inclusive');
      const upTo = await get(`/api/plcs/line1/alarms/kpis?from=${iso(start)}&to=${iso(start + min)}`);
      assert.equal(upTo.json<{ data: KpiJson }>().data.figures.raised.total, 0, 'to is exclusive');
      const future = clock.now() + 2 * h;
      const later = await get(`/api/plcs/line1/alarms/kpis?from=${iso(start)}&to=${iso(future)}`);
      const cut = later.json<{ data: KpiJson }>().data;
      assert.deepEqual([cut.requested.to, cut.covered.to], [iso(future), iso(clock.now())]);
    });

    test('bad windows are 400 VALIDATION_ERROR with a message saying why', async () => {
      const now = clock.now();
      const cases: Array<[string, RegExp]> = [
        [`from=${iso(now - h)}&to=${iso(now - h)}`, /from must be before to/],
        [`from=${iso(now - min)}&to=${iso(now - 2 * min)}`, /from must be before to/],
        [`from=${iso(now + min)}&to=${iso(now + h)}`, /from must be in the past/],
        ['from=yesterday', /from: 'yesterday' is not an ISO 8601 date and time/],
        ['to=2030-01-01', /to: '2030-01-01' is not an ISO 8601 date and time/],
        [
          `from=${iso(now - 2 * 24 * h - 1)}&to=${iso(now)}`,
          /longer than PlcAlarms\.Kpis\.MaxWindowDays \(2 days\)/,
        ],
      ];
      for (const [query, why] of cases) {
        const res = await get(`/api/plcs/line1/alarms/kpis?${query}`);
        assert.equal(res.statusCode, 400, query);
        assert.equal(code(res), 'VALIDATION_ERROR', query);
        assert.match(message(res), why, query);
      }
      // MaxWindowDays itself is allowed.
      const whole = await get(
        `/api/plcs/line1/alarms/kpis?from=${iso(clock.now() - 2 * 24 * h)}&to=${iso(clock.now())}`,
      );
      assert.equal(whole.statusCode, 200, whole.body);
    });

    test('ReadAccess and plc_access; an unmonitored PLC is 404', async () => {
      const noRead = bearer(await mintToken({ role: 'viewer', scope: 'ads:write' }));
      assert.equal((await get('/api/plcs/line1/alarms/kpis', noRead)).statusCode, 403);
      assert.equal((await get('/api/alarms/kpis', noRead)).statusCode, 403);
      const viewer = bearer(await mintToken({ role: 'viewer', scope: 'ads:read' }));
      assert.equal((await get('/api/plcs/line1/alarms/kpis', viewer)).statusCode, 200);
      const elsewhere = bearer(await mintToken({ plc_access: ['line2'] }));
      const denied = await get('/api/plcs/line1/alarms/kpis', elsewhere);
      assert.equal(denied.statusCode, 403);
      assert.equal(code(denied), 'PLC_ACCESS_DENIED');
      const unknown = await get('/api/plcs/nope/alarms/kpis');
      assert.equal(unknown.statusCode, 404);
      assert.equal(code(unknown), 'PLC_NOT_FOUND');
      clock.advance(s);
      assert.equal((await rig.app.inject({ method: 'GET', url: '/api/alarms/kpis' })).statusCode, 401);
    });

    test('the fleet: every permitted PLC, and all of them together', async () => {
      const fleet = async (claim: unknown): Promise<FleetJson> => {
        const res = await get('/api/alarms/kpis', bearer(await mintToken({ plc_access: claim })));
        assert.equal(res.statusCode, 200, res.body);
        return res.json<{ data: FleetJson }>().data;
      };
      const all = await fleet(['*']);
      assert.deepEqual(
        all.plcs.map((p) => [p.plcId, p.figures.raised.total]),
        [
          ['line1', 4],
          ['line2', 0],
        ],
      );
      assert.deepEqual(all.covered, { from: iso(start), to: iso(clock.now()) });
      assert.equal(all.figures.raised.total, 4);
      assert.equal(all.figures.now.outstanding, 1);
      assert.deepEqual(
        (await fleet(['line2'])).plcs.map((p) => p.plcId),
        ['line2'],
      );
      const line1 = await fleet(['line1', 'elsewhere']);
      assert.deepEqual(
        line1.plcs.map((p) => p.plcId),
        ['line1'],
      );
      assert.equal(line1.figures.chattering.count, 1);
      const none = await get('/api/alarms/kpis', bearer(await mintToken({ plc_access: [] })));
      assert.equal(code(none), 'PLC_ACCESS_DENIED');
    });

    test('now: how many are shelved and out of service, also in the fleet', async () => {
      const now = async (url: string) =>
        (await get(url)).json<{ data: { figures: KpiJson['figures'] } }>().data.figures.now;
      const shelve = await rig.call('POST', '/api/plcs/line1/alarms/ACK_ME/shelve', {
        minutes: 5,
        reason: 'sensor swap',
      });
      assert.equal(shelve.statusCode, 200, shelve.body);
      await rig.writeSlot(6, entry({ sKey: 'BROKEN' }));
      const out = await rig.call('POST', '/api/plcs/line1/alarms/BROKEN/out-of-service', {
        reason: 'no sensor',
      });
      assert.equal(out.statusCode, 200, out.body);
      const expected = { outstanding: 2, shelved: 1, outOfService: 1, suppressed: 0 };
      assert.deepEqual(await now('/api/plcs/line1/alarms/kpis'), expected);
      assert.deepEqual(await now('/api/alarms/kpis'), expected);
      assert.equal((await rig.call('POST', '/api/plcs/line1/alarms/ACK_ME/unshelve')).statusCode, 200);
      assert.equal(
        (await rig.call('POST', '/api/plcs/line1/alarms/BROKEN/return-to-service')).statusCode,
        200,
      );
      await rig.writeSlot(6, entry({ sKey: 'BROKEN', IsActive: false, NeedsAck: false }));
      assert.deepEqual(await now('/api/plcs/line1/alarms/kpis'), {
        outstanding: 1,
        shelved: 0,
        outOfService: 0,
        suppressed: 0,
      });
    });

    test('HistoryQueries: 3 per second per user per PLC here, then 429', async () => {
      clock.advance(s);
      for (let i = 0; i < 3; i++)
        assert.equal((await rig.call('GET', '/api/plcs/line1/alarms/kpis')).statusCode, 200);
      const over = await rig.call('GET', '/api/plcs/line1/alarms/kpis');
      assert.equal(over.statusCode, 429);
      assert.equal(code(over), 'RATE_LIMITED');
      assert.equal((await rig.call('GET', '/api/plcs/line2/alarms/kpis')).statusCode, 200, 'another PLC');
      clock.advance(s);
      assert.equal((await rig.call('GET', '/api/plcs/line1/alarms/kpis')).statusCode, 200);
    });
  });
}

describe('PlcAlarms.Kpis.MaxFleetTransitions over HTTP: shared by the fleet answer’s PLCs', () => {
  const start = Date.UTC(2030, 0, 1);
  const clock = manualClock(start);
  let rig: AlarmRig;
  let second: Awaited<ReturnType<typeof createPlant>>;
  before(async () => {
    second = await createPlant('line2');
    rig = await startAlarmRig('simulated', {
      now: clock.now,
      targets: [second],
      settings: {
        PlcAlarms: {
          Targets: { line2: { SymbolPath: 'GVL_HMI.fbAlarms.aAlarms' } },
          Kpis: { MaxFleetTransitions: 5 },
        },
        RateLimiting: { Enabled: false },
      },
    });
    // Three raises on line1, a minute apart.
    for (const [slot, key] of [
      [4, 'K1'],
      [5, 'K2'],
      [6, 'K3'],
    ] as const) {
      clock.advance(min);
      await rig.writeSlot(slot, entry({ sKey: key, NeedsAck: false }));
    }
    clock.advance(min);
  });
  after(async () => {
    await rig.close();
    await second.close();
  });

  const fleet = async (claim: unknown): Promise<FleetJson> => {
    const res = await rig.app.inject({
      method: 'GET',
      url: `/api/alarms/kpis?from=${iso(start)}`,
      headers: bearer(await mintToken({ plc_access: claim })),
    });
    assert.equal(res.statusCode, 200, res.body);
    return res.json<{ data: FleetJson }>().data;
  };

  test('two PLCs share 5: 2 each, line1 cut at its third raise; line1 alone reads all 3', async () => {
    const both = await fleet(['*']);
    const line1 = both.plcs.find((p) => p.plcId === 'line1');
    assert.deepEqual([line1?.figures.raised.total, line1?.limitedBy], [2, 'maxTransitions']);
    assert.equal(line1?.covered.to, iso(start + 3 * min));
    const alone = await fleet(['line1']);
    assert.deepEqual(
      alone.plcs.map((p) => [p.plcId, p.figures.raised.total, p.limitedBy]),
      [['line1', 3, undefined]],
    );
  });
});
