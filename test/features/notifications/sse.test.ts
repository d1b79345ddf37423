// Notification SSE through real sockets on both drivers: event order and ids, shared and released target
// subscriptions, Last-Event-ID resume, symbol errors, invalidation by a download, PLC loss and return.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { EventSource } from 'eventsource';
import { program } from '../../targets/ads/harness.ts';
import { testDrivers } from '../variables/fixture.ts';
import {
  authHeaders,
  connections,
  RawSse,
  sseUrl,
  startStreamApp,
  type SseEvent,
  type StreamApp,
} from './clients.ts';
import { Signal } from '../../helpers/signal.ts';

const changeOf = (symbol: string, value?: unknown) => (e: SseEvent) =>
  e.event === 'change' &&
  (e.data as { symbol: string }).symbol === symbol &&
  (value === undefined || (e.data as { value: unknown }).value === value);

async function until(probe: () => boolean, what: string): Promise<void> {
  const signal = new Signal();
  const timer = setInterval(() => signal.notify(), 5);
  try {
    await signal.until(
      () => probe(),
      10_000,
      () => what,
    );
  } finally {
    clearInterval(timer);
  }
}

async function untilAsync(probe: () => Promise<boolean>, what: string): Promise<void> {
  let ok = false;
  const check = (): void => void probe().then((v) => (ok = v));
  check();
  const timer = setInterval(check, 10);
  try {
    await until(() => ok, what);
  } finally {
    clearInterval(timer);
  }
}

for (const driver of testDrivers) {
  describe(`notification SSE (${driver} driver)`, () => {
    let s: StreamApp;
    before(async () => {
      s = await startStreamApp(driver);
    });
    after(async () => {
      await s.close();
    });

    it('sends subscribed, then current values, then changes; every event has an increasing id', async () => {
      const c = await new RawSse(sseUrl(s.base, ['MAIN.nA', 'MAIN.fSpeed']), authHeaders(s.token)).opened();
      assert.equal(c.status, 200);
      assert.match(String(c.headers['content-type']), /^text\/event-stream/);
      assert.equal(c.headers['cache-control'], 'no-cache');
      assert.equal(c.headers['x-accel-buffering'], 'no');
      const first = await c.count(3);
      assert.deepEqual(first[0], {
        id: '1',
        event: 'subscribed',
        data: { symbols: ['MAIN.nA', 'MAIN.fSpeed'] },
      });
      const initial = new Map(first.slice(1).map((e) => [(e.data as { symbol: string }).symbol, e.data]));
      assert.deepEqual(
        { ...(initial.get('MAIN.nA') as object), timestamp: 'x' },
        { symbol: 'MAIN.nA', value: 1, type: 'DINT', timestamp: 'x' },
      );
      assert.equal((initial.get('MAIN.fSpeed') as { value: number }).value, 0.5);
      assert.match((initial.get('MAIN.nA') as { timestamp: string }).timestamp, /^\d{4}-\d\d-\d\dT.*Z$/);
      await s.plc.target.write('MAIN.nA', 42);
      const changed = await c.next(changeOf('MAIN.nA', 42));
      const ids = c.events.map((e) => Number(e.id));
      assert.deepEqual(
        ids,
        ids.map((_, i) => i + 1),
      );
      assert.equal(changed.id, String(ids.length));
      c.close();
      await until(() => s.target.open === 0, 'subscriptions released');
    });

    it('shares one target subscription per symbol and releases it when the last client leaves', async () => {
      const opened = s.target.opened;
      const a = await new RawSse(sseUrl(s.base, ['MAIN.nA']), authHeaders(s.token)).opened();
      await a.next(changeOf('MAIN.nA'));
      const b = await new RawSse(sseUrl(s.base, ['main.na', 'MAIN.nB']), authHeaders(s.token)).opened();
      // The joiner gets the current value at once, in its own spelling.
      await b.next(changeOf('main.na'));
      await b.next(changeOf('MAIN.nB'));
      assert.equal(s.target.open, 2);
      assert.equal(s.target.opened - opened, 2);
      await s.plc.target.write('MAIN.nA', 7);
      await a.next(changeOf('MAIN.nA', 7));
      await b.next(changeOf('main.na', 7));
      a.close();
      await untilAsync(async () => (await connections(s)).length === 1, 'a gone from the registry');
      assert.equal(s.target.open, 2);
      b.close();
      await until(() => s.target.open === 0, 'all released');
    });

    it('resumes with Last-Event-ID: subscribed and every current value again, ids continuing', async () => {
      const c = await new RawSse(sseUrl(s.base, ['MAIN.nA']), {
        ...authHeaders(s.token),
        'last-event-id': '41',
      }).opened();
      const [sub, value] = await c.count(2);
      assert.deepEqual([sub?.id, sub?.event], ['42', 'subscribed']);
      assert.deepEqual([value?.id, value?.event], ['43', 'change']);
      c.close();
      await until(() => s.target.open === 0, 'released');
    });

    it('reports unknown symbols as error events and subscribes the rest', async () => {
      const c = await new RawSse(sseUrl(s.base, ['MAIN.nope', 'MAIN.nA']), authHeaders(s.token)).opened();
      const [sub, err] = await c.count(2);
      assert.deepEqual(sub?.data, { symbols: ['MAIN.nA'] });
      assert.equal(err?.event, 'error');
      assert.equal((err?.data as { symbol: string; code: string }).symbol, 'MAIN.nope');
      assert.equal((err?.data as { code: string }).code, 'SYMBOL_NOT_FOUND');
      await c.next(changeOf('MAIN.nA'));
      c.close();
      await until(() => s.target.open === 0, 'released');
    });
  });
}

for (const driver of testDrivers) {
  describe(`notification SSE, PLC events (${driver} driver)`, () => {
    it('a symbol removed by a download gets SYMBOL_INVALIDATED; the others keep flowing', async () => {
      const s = await startStreamApp(driver);
      try {
        const c = await new RawSse(sseUrl(s.base, ['MAIN.nA', 'MAIN.nB']), authHeaders(s.token)).opened();
        await c.next(changeOf('MAIN.nB'));
        await c.next(changeOf('MAIN.nA'));
        s.plc.plc.load(program({ withB: false }));
        const err = await c.next((e) => e.event === 'error');
        assert.deepEqual(
          { ...(err.data as object), message: '' },
          {
            symbol: 'MAIN.nB',
            code: 'SYMBOL_INVALIDATED',
            message: '',
          },
        );
        const from = c.events.length;
        await s.plc.target.write('MAIN.nA', 99);
        await c.next(changeOf('MAIN.nA', 99), from);
        c.close();
      } finally {
        await s.close();
      }
    });

    it('PLC lost and back: disconnected, reconnected, then fresh values, same stream', async () => {
      const s = await startStreamApp(driver);
      try {
        const c = await new RawSse(sseUrl(s.base, ['MAIN.nA', 'MAIN.nB']), authHeaders(s.token)).opened();
        await c.next(changeOf('MAIN.nA'));
        await c.next(changeOf('MAIN.nB'));
        await s.plc.disconnect();
        const down = await c.next((e) => e.event === 'disconnected');
        assert.deepEqual(down.data, { plcId: 'plc1', code: 'PLC_UNAVAILABLE' });
        s.plc.plc.write('MAIN.nA', 5);
        await s.plc.reconnect();
        const up = await c.next((e) => e.event === 'reconnected');
        assert.deepEqual(up.data, { plcId: 'plc1' });
        const at = c.events.indexOf(up);
        await c.next(changeOf('MAIN.nA', 5), at);
        await c.next(changeOf('MAIN.nB', 2), at);
        c.close();
      } finally {
        await s.close();
      }
    });
  });
}

describe('notification SSE with the eventsource package', () => {
  it('receives named events, and after a server-side end resumes with Last-Event-ID to fresh state', async () => {
    const s = await startStreamApp('simulated');
    const received: Array<{ type: string; id: string; data: unknown }> = [];
    const signal = new Signal();
    const es = new EventSource(sseUrl(s.base, ['MAIN.nA']), {
      fetch: (url, init) =>
        fetch(url, { ...init, headers: { ...init.headers, authorization: `Bearer ${s.token}` } }),
    });
    try {
      for (const type of ['subscribed', 'change']) {
        es.addEventListener(type, (e) => {
          received.push({ type, id: e.lastEventId, data: JSON.parse(e.data as string) as unknown });
          signal.notify();
        });
      }
      const wait = (n: number) =>
        signal.until(
          () => received.length >= n,
          10_000,
          () => `${n} events`,
        );
      await wait(2);
      assert.deepEqual(
        received.map((e) => [e.type, e.id]),
        [
          ['subscribed', '1'],
          ['change', '2'],
        ],
      );
      await s.plc.target.write('MAIN.nA', 8);
      await wait(3);
      const [row] = await connections(s);
      await s.app.inject({
        method: 'DELETE',
        url: `/api/admin/connections/${String(row?.id)}`,
        headers: authHeaders(s.token),
      });
      // EventSource reconnects by itself, sending Last-Event-ID: 3.
      await wait(5);
      assert.deepEqual(
        received.slice(3).map((e) => [e.type, e.id]),
        [
          ['subscribed', '4'],
          ['change', '5'],
        ],
      );
      assert.equal((received[4]?.data as { value: number }).value, 8);
    } finally {
      es.close();
      await s.close();
    }
  });
});
