// The history query routes over SQLite: raw paging by cursor, CSV, the listing, and every refusal in the
// envelope (bad window, too many symbols, maxPoints, a symbol not recorded, plc_access, the rate limit).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { bearer, mintToken } from '../../helpers/tokens.ts';
import { historyUrl, iso, startHistoryRig, t0, type HistoryRig, type SeriesBody } from './fixture.ts';

let rig: HistoryRig;
const symbols = [{ Path: 'MAIN.fTemp' }, { Path: 'MAIN.sText' }, { Path: 'MAIN.nCount' }];

before(async () => {
  rig = await startHistoryRig({ symbols, history: { MaxSymbolsPerQuery: 2, MaxPoints: 5 } });
  for (let i = 1; i <= 6; i++) await rig.write('MAIN.nCount', i, t0 + i);
  await rig.write('MAIN.sText', 'a,"b"', t0 + 3);
  // Written once the listing shows the last sample of each.
  await rig.until(async () => {
    const res = await rig.get('/api/plcs/line1/history/symbols');
    const items = res.json<{ data: { items: Array<{ symbol: string; lastSample: string | null }> } }>().data
      .items;
    const last = new Map(items.map((i) => [i.symbol, i.lastSample]));
    return last.get('MAIN.nCount') === iso(t0 + 6) && last.get('MAIN.sText') === iso(t0 + 3);
  }, 'every sample written');
});
after(() => rig.close());

const body = <T>(res: { json<U>(): U }) =>
  res.json<{ data: T; error: { code: string; message: string } | null }>();

describe('history queries', () => {
  it('pages raw samples with a cursor; a page that ends the window has none', async () => {
    const url = (extra: Record<string, string | number>) =>
      historyUrl(['MAIN.nCount'], t0, t0 + 1000, { aggregate: 'raw', ...extra });
    const first = body<{ series: SeriesBody[] }>(await rig.get(url({ maxPoints: 5 }))).data.series[0];
    assert.deepEqual(
      first?.samples?.map((s) => s.value),
      [0, 1, 2, 3, 4],
    );
    assert.ok(first?.nextCursor);
    const second = body<{ series: SeriesBody[] }>(
      await rig.get(url({ maxPoints: 5, cursor: first.nextCursor })),
    ).data.series[0];
    assert.deepEqual(
      second?.samples?.map((s) => [s.t, s.value]),
      [
        [iso(t0 + 5), 5],
        [iso(t0 + 6), 6],
      ],
    );
    assert.equal(second?.nextCursor, undefined);
    // Exactly as many samples as maxPoints: no next page.
    const exact = body<{ series: SeriesBody[] }>(
      await rig.get(historyUrl(['MAIN.nCount'], t0 + 2, t0 + 7, { aggregate: 'raw', maxPoints: 5 })),
    ).data.series[0];
    assert.equal(exact?.samples?.length, 5);
    assert.equal(exact?.nextCursor, undefined);
  });

  it('streams CSV for Accept: text/csv', async () => {
    const res = await rig.get(historyUrl(['MAIN.sText'], t0, t0 + 1000, { aggregate: 'raw' }), {
      accept: 'text/csv',
    });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^text\/csv/);
    assert.equal(
      res.body,
      `symbol,t,value\nMAIN.sText,${iso(t0)},idle\nMAIN.sText,${iso(t0 + 3)},"a,""b"""\n`,
    );
    const buckets = await rig.get(historyUrl(['MAIN.nCount'], t0, t0 + 10, { maxPoints: 2 }), {
      accept: 'text/csv',
    });
    assert.equal(
      buckets.body,
      'symbol,t,min,max,first,last,count,value\n' +
        `MAIN.nCount,${iso(t0)},0,4,0,4,5,\nMAIN.nCount,${iso(t0 + 5)},5,6,5,6,2,\n`,
    );
  });

  it('CSV errors are JSON envelopes before the first byte', async () => {
    const res = await rig.get(historyUrl(['MAIN.nope'], t0, t0 + 10), { accept: 'text/csv' });
    assert.equal(res.statusCode, 404);
    assert.equal(body(res).error?.code, 'SYMBOL_NOT_RECORDED');
  });

  it('lists what is recorded with its settings and first and last sample time', async () => {
    const res = await rig.get('/api/plcs/line1/history/symbols');
    assert.equal(res.statusCode, 200);
    const items = body<{ items: Array<Record<string, unknown>> }>(res).data.items;
    const count = items.find((i) => i.symbol === 'MAIN.nCount');
    assert.deepEqual(count, {
      symbol: 'MAIN.nCount',
      type: 'DINT',
      kind: 'number',
      settings: {
        Path: 'MAIN.nCount',
        Mode: 'OnChange',
        CycleTimeMs: 1000,
        Deadband: 0,
        MaxIntervalSeconds: 0,
      },
      firstSample: iso(t0),
      lastSample: iso(t0 + 6),
    });
  });

  it('refuses a symbol not recorded with 404 SYMBOL_NOT_RECORDED', async () => {
    const res = await rig.get(historyUrl(['MAIN.fTemp', 'MAIN.bOn'], t0, t0 + 10));
    assert.equal(res.statusCode, 404);
    assert.deepEqual(body(res), {
      data: null,
      error: { code: 'SYMBOL_NOT_RECORDED', message: "'MAIN.bOn' is not recorded on PLC 'line1'." },
    });
  });

  it('answers MaxSymbolsPerQuery symbols, refuses one more', async () => {
    assert.equal((await rig.get(historyUrl(['MAIN.fTemp', 'MAIN.nCount'], t0, t0 + 10))).statusCode, 200);
    const res = await rig.get(historyUrl(['MAIN.fTemp', 'MAIN.nCount', 'MAIN.sText'], t0, t0 + 10));
    assert.equal(res.statusCode, 400);
    assert.equal(body(res).error?.code, 'HISTORY_SYMBOL_LIMIT_EXCEEDED');
  });

  it('answers maxPoints up to History.MaxPoints, refuses one more', async () => {
    assert.equal((await rig.get(historyUrl(['MAIN.fTemp'], t0, t0 + 10, { maxPoints: 5 }))).statusCode, 200);
    const res = await rig.get(historyUrl(['MAIN.fTemp'], t0, t0 + 10, { maxPoints: 6 }));
    assert.equal(res.statusCode, 400);
    assert.equal(body(res).error?.code, 'VALIDATION_ERROR');
  });

  it('refuses a bad window', async () => {
    for (const [from, to] of [
      [iso(t0 + 10), iso(t0 + 10)],
      [iso(t0 + 10), iso(t0)],
      ['yesterday', iso(t0)],
    ]) {
      const q = new URLSearchParams({ symbols: 'MAIN.fTemp', from: from!, to: to! });
      const res = await rig.get(`/api/plcs/line1/history?${q.toString()}`);
      assert.equal(res.statusCode, 400, `${from} .. ${to}`);
      assert.equal(body(res).error?.code, 'VALIDATION_ERROR');
    }
  });

  it('refuses a cursor that is not raw, and one it did not hand out', async () => {
    const notRaw = await rig.get(historyUrl(['MAIN.nCount'], t0, t0 + 10, { cursor: 'abc' }));
    assert.equal(notRaw.statusCode, 400);
    const forged = await rig.get(
      historyUrl(['MAIN.nCount'], t0, t0 + 10, { aggregate: 'raw', cursor: 'abc' }),
    );
    assert.equal(forged.statusCode, 400);
    assert.equal(body(forged).error?.code, 'VALIDATION_ERROR');
  });

  it('enforces plc_access, and answers 404 for a PLC without history', async () => {
    const denied = await rig.app.inject({
      method: 'GET',
      url: historyUrl(['MAIN.fTemp'], t0, t0 + 10),
      headers: bearer(await mintToken({ plc_access: ['line2'] })),
    });
    assert.equal(denied.statusCode, 403);
    assert.equal(body(denied).error?.code, 'PLC_ACCESS_DENIED');
    const unknown = await rig.get('/api/plcs/line9/history/symbols');
    assert.equal(unknown.statusCode, 404);
    assert.equal(body(unknown).error?.code, 'PLC_NOT_FOUND');
  });
});

describe('history query rate limit', () => {
  it('allows HistoryQueries per second per user and PLC, refuses one more', async () => {
    const limited = await startHistoryRig({
      symbols: [{ Path: 'MAIN.fTemp' }],
      settings: { RateLimiting: { HistoryQueries: 3, GlobalPerUser: 1000 } },
    });
    try {
      for (let i = 0; i < 3; i++) {
        assert.equal((await limited.get('/api/plcs/line1/history/symbols')).statusCode, 200);
      }
      const res = await limited.get('/api/plcs/line1/history/symbols');
      assert.equal(res.statusCode, 429);
      assert.equal(body(res).error?.code, 'RATE_LIMITED');
    } finally {
      await limited.close();
    }
  });
});

describe('history flag off', () => {
  it('answers 501 FEATURE_DISABLED and records nothing', async () => {
    const off = await startHistoryRig({
      symbols: [{ Path: 'MAIN.fTemp' }],
      settings: { Features: { History: false } },
    });
    try {
      const res = await off.get(historyUrl(['MAIN.fTemp'], t0, t0 + 10));
      assert.equal(res.statusCode, 501);
      assert.equal(body(res).error?.code, 'FEATURE_DISABLED');
      assert.equal((await off.get('/api/plcs/line1/history/symbols')).statusCode, 501);
    } finally {
      await off.close();
    }
  });
});
