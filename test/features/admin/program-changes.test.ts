// A program download seen end to end on both drivers (over real ADS: sim-ads): stream clients of a removed symbol get
// SYMBOL_INVALIDATED, of a retyped one `typeChanged` (hub: SymbolTypeChanged) and values in the new type, of a
// moved one their values on; untouched symbols keep streaming; the admin listing and the audit trail hold the change.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { HttpTransportType, HubConnectionBuilder, LogLevel } from '@microsoft/signalr';
import { ProgramBuilder, type Program } from '../../../src/simulator/engine/index.ts';
import { Signal } from '../../helpers/signal.ts';
import { testDrivers } from '../variables/fixture.ts';
import { bearer, mintToken } from '../../helpers/tokens.ts';
import {
  authHeaders,
  RawSse,
  sseUrl,
  startStreamApp,
  waitLimitMs,
  type SseEvent,
  type StreamApp,
} from '../notifications/clients.ts';

/** Before the download: nA stays where it is, nB goes, fSpeed becomes a REAL, nMove moves. */
function before1(): Program {
  const b = new ProgramBuilder();
  b.symbol('MAIN.nA', 'DINT', { value: 1 });
  b.symbol('MAIN.nB', 'DINT', { value: 2 });
  b.symbol('MAIN.fSpeed', 'LREAL', { value: 0.5 });
  b.symbol('MAIN.nMove', 'DINT', { value: 7 });
  return b.build();
}

function after1(): Program {
  const b = new ProgramBuilder();
  b.symbol('MAIN.nA', 'DINT', { value: 1 });
  b.symbol('MAIN.fSpeed', 'REAL', { value: 1.5 });
  for (let i = 0; i < 4; i++) b.symbol(`MAIN.aPad${i}`, 'LREAL', { value: i });
  b.symbol('MAIN.nMove', 'DINT', { value: 7 });
  return b.build();
}

const symbols = ['MAIN.nA', 'MAIN.nB', 'MAIN.fSpeed', 'MAIN.nMove'];

interface Received {
  method: string;
  arg: unknown;
}

function hubClient(s: StreamApp) {
  const received: Received[] = [];
  const signal = new Signal();
  const connection = new HubConnectionBuilder()
    .withUrl(`${s.base}/api/plcs/plc1/notifications/ws`, {
      accessTokenFactory: () => s.token,
      transport: HttpTransportType.WebSockets,
    })
    .configureLogging(LogLevel.None)
    .build();
  for (const method of ['SubscriptionConfirmed', 'VariableChanged', 'SymbolError', 'SymbolTypeChanged']) {
    connection.on(method, (arg: unknown) => {
      received.push({ method, arg });
      signal.notify();
    });
  }
  const next = (match: (r: Received) => boolean, from = 0): Promise<Received> =>
    signal.until(
      () => received.slice(from).find(match),
      waitLimitMs,
      () => `hub message after ${JSON.stringify(received.slice(-5))}`,
    );
  return { connection, received, next };
}

const sseChange = (symbol: string, value?: unknown) => (e: SseEvent) =>
  e.event === 'change' &&
  (e.data as { symbol: string }).symbol === symbol &&
  (value === undefined || (e.data as { value: unknown }).value === value);

const hubChange = (symbol: string, value?: unknown) => (r: Received) =>
  r.method === 'VariableChanged' &&
  (r.arg as { symbol: string }).symbol === symbol &&
  (value === undefined || (r.arg as { value: unknown }).value === value);

interface Listing {
  plcId: string;
  items: Array<{
    at: string;
    kind: string;
    oldSymbolVersion: number | null;
    newSymbolVersion: number | null;
    affectedCount: number;
    counts: Record<string, number>;
    affected: Array<{
      symbol: string;
      impact: string;
      before: { type: string; size: number; indexGroup: number; indexOffset: number };
      after?: { type: string; size: number; indexGroup: number; indexOffset: number };
    }>;
  }>;
}

async function eventually<T>(probe: () => Promise<T | undefined>, what: string): Promise<T> {
  const signal = new Signal();
  let hit: T | undefined;
  const check = (): void =>
    void probe().then((v) => {
      hit = v;
      signal.notify();
    });
  const timer = setInterval(check, 10);
  check();
  try {
    return await signal.until(
      () => hit,
      waitLimitMs,
      () => what,
    );
  } finally {
    clearInterval(timer);
  }
}

for (const driver of testDrivers)
  describe(`program change (${driver} driver): streams, admin listing, audit`, () => {
    let s: StreamApp;
    before(async () => {
      s = await startStreamApp(driver, { program: before1() });
    });
    after(async () => {
      await s.close();
    });

    it('a download that removes one symbol, retypes one and moves one', async () => {
      const sse = await new RawSse(sseUrl(s.base, symbols), authHeaders(s.token)).opened();
      const hub = hubClient(s);
      await hub.connection.start();
      try {
        assert.deepEqual(await hub.connection.invoke<string[]>('Subscribe', symbols), symbols);
        for (const symbol of symbols) {
          await sse.next(sseChange(symbol));
          await hub.next(hubChange(symbol));
        }
        const sseFrom = sse.events.length;
        const hubFrom = hub.received.length;

        s.plc.plc.load(after1());

        const invalidated = await sse.next((e) => e.event === 'error', sseFrom);
        assert.deepEqual(
          { ...(invalidated.data as object), message: '' },
          { symbol: 'MAIN.nB', code: 'SYMBOL_INVALIDATED', message: '' },
        );
        const retyped = await sse.next((e) => e.event === 'typeChanged', sseFrom);
        assert.deepEqual(retyped.data, {
          symbol: 'MAIN.fSpeed',
          type: 'REAL',
          size: 4,
          previousType: 'LREAL',
          previousSize: 8,
        });
        // The values after the notice are of the new type, starting with the current one.
        const typeAt = sse.events.indexOf(retyped);
        const speed = await sse.next(sseChange('MAIN.fSpeed'), typeAt);
        assert.deepEqual(
          [(speed.data as { type: string }).type, (speed.data as { value: number }).value],
          ['REAL', 1.5],
        );

        const hubError = await hub.next((r) => r.method === 'SymbolError', hubFrom);
        assert.deepEqual(
          [(hubError.arg as { symbol: string }).symbol, (hubError.arg as { code: string }).code],
          ['MAIN.nB', 'SYMBOL_INVALIDATED'],
        );
        const hubRetyped = await hub.next((r) => r.method === 'SymbolTypeChanged', hubFrom);
        assert.deepEqual(hubRetyped.arg, {
          symbol: 'MAIN.fSpeed',
          type: 'REAL',
          size: 4,
          previousType: 'LREAL',
          previousSize: 8,
        });
        const hubTypeAt = hub.received.indexOf(hubRetyped);
        assert.equal(
          ((await hub.next(hubChange('MAIN.fSpeed'), hubTypeAt)).arg as { type: string }).type,
          'REAL',
        );

        // The moved symbol was re-resolved, the untouched one never stopped: both stream what is written now.
        const from = sse.events.length;
        const hubNow = hub.received.length;
        await s.plc.target.write('MAIN.nMove', 77);
        await s.plc.target.write('MAIN.nA', 99);
        await s.plc.target.write('MAIN.fSpeed', 2.25);
        await sse.next(sseChange('MAIN.nMove', 77), from);
        await sse.next(sseChange('MAIN.nA', 99), from);
        await sse.next(sseChange('MAIN.fSpeed', 2.25), from);
        await hub.next(hubChange('MAIN.nMove', 77), hubNow);
        await hub.next(hubChange('MAIN.nA', 99), hubNow);
        await hub.next(hubChange('MAIN.fSpeed', 2.25), hubNow);
        assert.equal(
          sse.events.filter((e) => e.event === 'error' || e.event === 'typeChanged').length,
          2,
          'nothing about MAIN.nA or MAIN.nMove',
        );

        const admin = bearer(await mintToken({ sub: 'root' }));
        if (driver === 'simulated') {
          // A Simulated target reports no program changes: nothing listed, nothing audited.
          const res = await s.app.inject({ url: '/api/admin/plcs/plc1/program-changes', headers: admin });
          assert.deepEqual(res.json<{ data: Listing }>().data, { plcId: 'plc1', items: [] });
          return;
        }
        const listing = await eventually(async () => {
          const res = await s.app.inject({ url: '/api/admin/plcs/PLC1/program-changes', headers: admin });
          assert.equal(res.statusCode, 200, res.body);
          const data = res.json<{ data: Listing }>().data;
          return data.items.length > 0 ? data : undefined;
        }, 'the change listed');
        assert.equal(listing.plcId, 'plc1');
        assert.equal(listing.items.length, 1);
        const [change] = listing.items;
        assert.ok(change);
        assert.deepEqual(
          {
            kind: change.kind,
            old: change.oldSymbolVersion,
            new: change.newSymbolVersion,
            count: change.affectedCount,
            counts: change.counts,
          },
          { kind: 'download', old: 1, new: 2, count: 3, counts: { vanished: 1, typeChanged: 1, moved: 1 } },
        );
        assert.equal(change.at, '2024-05-17T08:30:00.250Z');
        assert.deepEqual(
          change.affected.map((a) => [a.symbol, a.impact, a.before.type, a.after?.type]),
          [
            ['MAIN.fSpeed', 'typeChanged', 'LREAL', 'REAL'],
            ['MAIN.nB', 'vanished', 'DINT', undefined],
            ['MAIN.nMove', 'moved', 'DINT', 'DINT'],
          ],
        );
        const moved = change.affected[2];
        assert.ok(moved?.after);
        assert.notEqual(moved.after.indexOffset, moved.before.indexOffset);
        assert.equal(moved.after.indexOffset, s.plc.plc.resolve('MAIN.nMove').offset);

        const audit = await s.app.inject({
          url: '/api/admin/audit?ring=changes&plcId=plc1',
          headers: admin,
        });
        const records = audit
          .json<{ data: { items: Array<Record<string, unknown>> } }>()
          .data.items.filter((r) => r.action === 'plc.program-change');
        assert.equal(records.length, 1);
        const [record] = records;
        assert.deepEqual(
          {
            sub: record?.sub,
            plcId: record?.plcId,
            target: record?.target,
            result: record?.result,
            oldValue: record?.oldValue,
            newValue: record?.newValue,
          },
          {
            sub: 'plc',
            plcId: 'plc1',
            target: 'download: symbol version 1 -> 2',
            result: 'ok',
            oldValue: { symbolVersion: 1 },
            newValue: {
              kind: 'download',
              symbolVersion: 2,
              affectedCount: 3,
              vanished: 1,
              typeChanged: 1,
              moved: 1,
              affected: [
                { symbol: 'MAIN.fSpeed', impact: 'typeChanged' },
                { symbol: 'MAIN.nB', impact: 'vanished' },
                { symbol: 'MAIN.nMove', impact: 'moved' },
              ],
            },
          },
        );
      } finally {
        sse.close();
        await hub.connection.stop();
      }
    });

    it('the listing is Admin-only and follows plc_access', async () => {
      const url = '/api/admin/plcs/plc1/program-changes';
      const operator = bearer(await mintToken({ sub: 'op', role: 'operator', scope: 'ads:read' }));
      const elsewhere = bearer(await mintToken({ sub: 'other-admin', plc_access: ['line9'] }));
      const admin = bearer(await mintToken({ sub: 'root', plc_access: ['plc1'] }));
      const forbidden = await s.app.inject({ url, headers: operator });
      assert.deepEqual(
        [forbidden.statusCode, forbidden.json<{ error: { code: string } }>().error.code],
        [403, 'FORBIDDEN'],
      );
      const denied = await s.app.inject({ url, headers: elsewhere });
      assert.deepEqual(
        [denied.statusCode, denied.json<{ error: { code: string } }>().error.code],
        [403, 'PLC_ACCESS_DENIED'],
      );
      const unknown = await s.app.inject({ url: '/api/admin/plcs/nope/program-changes', headers: admin });
      assert.equal(unknown.statusCode, 404);
      assert.equal((await s.app.inject({ url, headers: admin })).statusCode, 200);
    });
  });
