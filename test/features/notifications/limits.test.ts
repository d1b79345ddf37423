// Stream limits at their edges, refusals as JSON before any stream opens, admin listing and termination,
// metrics, slow clients (bounded queue, drops and gap), and shutdown ending every stream.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ProgramBuilder } from '../../../src/simulator/engine/index.ts';
import { manualClock } from '../../helpers/app.ts';
import { mintToken } from '../../helpers/tokens.ts';
import { authHeaders, connections, RawSse, sseUrl, startStreamApp, type SseEvent } from './clients.ts';

const symbols = ['MAIN.nA', 'MAIN.nB', 'MAIN.fSpeed'];

async function refused(url: string, headers: Record<string, string>, status: number, code: string) {
  const c = await new RawSse(url, headers).opened();
  assert.equal(c.status, status);
  assert.match(String(c.headers['content-type']), /^application\/json/);
  assert.equal((await c.json()).error?.code, code);
}

describe('notification stream limits', () => {
  it('MaxSymbolsPerClient: the limit opens, one more is 400 SUBSCRIPTION_LIMIT_EXCEEDED; repeats count once', async () => {
    const s = await startStreamApp('simulated', { settings: { Notifications: { MaxSymbolsPerClient: 2 } } });
    try {
      const h = authHeaders(s.token);
      await refused(sseUrl(s.base, symbols), h, 400, 'SUBSCRIPTION_LIMIT_EXCEEDED');
      const c = await new RawSse(sseUrl(s.base, ['MAIN.nA', 'main.na', 'MAIN.nB']), h).opened();
      assert.equal(c.status, 200);
      assert.deepEqual((await c.next((e) => e.event === 'subscribed')).data, {
        symbols: ['MAIN.nA', 'MAIN.nB'],
      });
      c.close();
    } finally {
      await s.close();
    }
  });

  it('NotificationConnections: N streams per window open, the next is 429; refusals never count', async () => {
    const clock = manualClock();
    const s = await startStreamApp('simulated', {
      now: clock.now,
      settings: {
        RateLimiting: { NotificationConnections: 2 },
        Notifications: { MaxSymbolsPerClient: 2 },
      },
    });
    try {
      const h = authHeaders(s.token);
      // Refused before opening: none of these spend the budget.
      await refused(sseUrl(s.base, symbols), h, 400, 'SUBSCRIPTION_LIMIT_EXCEEDED');
      await refused(sseUrl(s.base, ['MAIN.nA'], 'nope'), h, 404, 'PLC_NOT_FOUND');
      await refused(sseUrl(s.base, ['MAIN.nA']), authHeaders('bad'), 401, 'UNAUTHORIZED');
      const a = await new RawSse(sseUrl(s.base, ['MAIN.nA']), h).opened();
      const b = await new RawSse(sseUrl(s.base, ['MAIN.nA']), h).opened();
      assert.deepEqual([a.status, b.status], [200, 200]);
      const over = await new RawSse(sseUrl(s.base, ['MAIN.nA']), h).opened();
      assert.equal(over.status, 429);
      assert.ok(Number(over.headers['retry-after']) > 0);
      assert.equal((await over.json()).error?.code, 'RATE_LIMITED');
      // Per user: another user still opens.
      const other = await mintToken({ sub: 'other-user' });
      const c = await new RawSse(sseUrl(s.base, ['MAIN.nA']), authHeaders(other)).opened();
      assert.equal(c.status, 200);
      clock.advance(60_000);
      const d = await new RawSse(sseUrl(s.base, ['MAIN.nA']), h).opened();
      assert.equal(d.status, 200);
      for (const x of [a, b, c, d]) x.close();
    } finally {
      await s.close();
    }
  });

  it('ConnectionLimits: MaxPerUser and MaxTotal at the edge -> 429 CONNECTION_LIMIT; a closed stream frees its place', async () => {
    const s = await startStreamApp('simulated', {
      settings: {
        ConnectionLimits: { MaxPerUser: 2, MaxTotal: 3 },
        RateLimiting: { NotificationConnections: 100 },
      },
    });
    try {
      const h = authHeaders(s.token);
      const a = await new RawSse(sseUrl(s.base, ['MAIN.nA']), h).opened();
      const b = await new RawSse(sseUrl(s.base, ['MAIN.nA']), h).opened();
      assert.deepEqual([a.status, b.status], [200, 200]);
      await refused(sseUrl(s.base, ['MAIN.nA']), h, 429, 'CONNECTION_LIMIT');
      const other = authHeaders(await mintToken({ sub: 'other-user' }));
      const c = await new RawSse(sseUrl(s.base, ['MAIN.nA']), other).opened();
      assert.equal(c.status, 200);
      await refused(
        sseUrl(s.base, ['MAIN.nA']),
        authHeaders(await mintToken({ sub: 'third' })),
        429,
        'CONNECTION_LIMIT',
      );
      a.close();
      await a.closedByServer();
      await waitFor(async () => (await connections(s)).length === 2);
      const d = await new RawSse(sseUrl(s.base, ['MAIN.nA']), h).opened();
      assert.equal(d.status, 200);
      for (const x of [b, c, d]) x.close();
    } finally {
      await s.close();
    }
  });

  it('flag off: 501 FEATURE_DISABLED on the SSE, negotiate and hub routes', async () => {
    const s = await startStreamApp('simulated', { settings: { Features: { Notifications: false } } });
    try {
      const h = authHeaders(s.token);
      await refused(sseUrl(s.base, ['MAIN.nA']), h, 501, 'FEATURE_DISABLED');
      const negotiate = await fetch(`${s.base}/api/plcs/plc1/notifications/ws/negotiate?negotiateVersion=1`, {
        method: 'POST',
        headers: h,
      });
      assert.equal(negotiate.status, 501);
      const hub = await fetch(`${s.base}/api/plcs/plc1/notifications/ws`, { headers: h });
      assert.equal(hub.status, 501);
      assert.equal(((await hub.json()) as { error: { code: string } }).error.code, 'FEATURE_DISABLED');
      // Admin routes are always on.
      assert.deepEqual(await connections(s), []);
    } finally {
      await s.close();
    }
  });

  it('plc_access and policy are enforced before the stream opens', async () => {
    const s = await startStreamApp('simulated');
    try {
      const url = sseUrl(s.base, ['MAIN.nA']);
      await refused(url, authHeaders(await mintToken({ plc_access: ['other'] })), 403, 'PLC_ACCESS_DENIED');
      await refused(url, authHeaders(await mintToken({ scope: 'ads:write' })), 403, 'FORBIDDEN');
      // The token may come in access_token (EventSource), but never in both places.
      await refused(`${url}&access_token=${s.token}`, authHeaders(s.token), 401, 'UNAUTHORIZED');
      const queryOnly = await mintToken({ plc_access: ['other'] });
      await refused(`${url}&access_token=${queryOnly}`, {}, 403, 'PLC_ACCESS_DENIED');
    } finally {
      await s.close();
    }
  });
});

async function waitFor(probe: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error('condition not met within 10 s');
    await new Promise((r) => setImmediate(r));
  }
}

describe('stream administration', () => {
  it('lists streams with their symbols and counts, terminates one, and counts in /metrics', async () => {
    const s = await startStreamApp('simulated');
    try {
      const c = await new RawSse(sseUrl(s.base, ['MAIN.nA', 'MAIN.nB']), authHeaders(s.token)).opened();
      await c.count(3);
      const [row] = await connections(s);
      assert.ok(row);
      assert.equal(row.kind, 'notifications.sse');
      assert.equal(row.plcId, 'plc1');
      assert.equal(row.user, 'test-user');
      assert.equal(row.remote, '127.0.0.1');
      assert.deepEqual(row.symbols, ['MAIN.nA', 'MAIN.nB']);
      assert.equal(row.sent, 3);
      assert.equal(row.dropped, 0);
      assert.match(String(row.openedAt), /Z$/);
      const viewer = authHeaders(await mintToken({ role: 'operator' }));
      const forbidden = await s.app.inject({ method: 'GET', url: '/api/admin/connections', headers: viewer });
      assert.equal(forbidden.statusCode, 403);
      const metrics = (await s.app.inject({ method: 'GET', url: '/metrics' })).body;
      assert.match(metrics, /stream_connections\{kind="notifications.sse"\} 1/);
      assert.match(metrics, /stream_events_sent_total\{kind="notifications.sse"\} 3/);
      const del = await s.app.inject({
        method: 'DELETE',
        url: `/api/admin/connections/${String(row.id)}`,
        headers: authHeaders(s.token),
      });
      assert.equal(del.statusCode, 200);
      await c.closedByServer();
      assert.deepEqual(await connections(s), []);
      await waitFor(() => Promise.resolve(s.target.open === 0));
      const again = await s.app.inject({
        method: 'DELETE',
        url: `/api/admin/connections/${String(row.id)}`,
        headers: authHeaders(s.token),
      });
      assert.equal(again.statusCode, 404);
      // Both attempts are in the audit trail: the termination and the refusal of an unknown id.
      const audit = await s.app.inject({
        method: 'GET',
        url: '/api/admin/audit',
        headers: authHeaders(s.token),
      });
      const records = audit.json<{ data: { items: Array<Record<string, unknown>> } }>().data.items;
      assert.deepEqual(
        records
          .filter((r) => r.action === 'connection.terminate')
          .map((r) => [r.sub, r.plcId, r.target, r.result, (r.error as { code?: string } | undefined)?.code]),
        [
          ['test-user', 'plc1', String(row.id), 'ok', undefined],
          ['test-user', null, String(row.id), 'error', 'NOT_FOUND'],
        ],
      );
    } finally {
      await s.close();
    }
  });

  it('a client that stops reading: bounded queue, drops counted, gap on resume, others on time', async () => {
    const size = 16_000;
    const b = new ProgramBuilder();
    b.symbol('MAIN.aBig', `ARRAY [1..${size}] OF DINT`);
    b.symbol('MAIN.nA', 'DINT');
    // Longer than the queue's first allocation (64 slots), so the queue grows while it fills.
    const queueLength = 80;
    const s = await startStreamApp('simulated', {
      program: b.build(),
      settings: { Notifications: { QueueLength: queueLength } },
    });
    try {
      const h = authHeaders(s.token);
      const slow = await new RawSse(sseUrl(s.base, ['MAIN.aBig']), h, { paused: true }).opened();
      const fast = await new RawSse(sseUrl(s.base, ['MAIN.aBig']), h).opened();
      await fast.count(2);
      // ~80 KB per event: the paused client's socket buffers fill within some hundreds of writes.
      let writes = 0;
      let rows = await connections(s);
      while (!rows.some((r) => (r.dropped as number) > 0)) {
        assert.ok(writes < 2000, 'the paused client never dropped anything');
        writes += 1;
        await s.plc.target.write('MAIN.aBig', new Array<number>(size).fill(writes));
        const n = writes;
        await fast.next((e) => e.event === 'change' && (e.data as { value: number[] }).value[0] === n);
        rows = await connections(s);
      }
      // Some more: the others stay on time while the slow one keeps dropping its oldest.
      for (let i = 0; i < 10; i++) {
        writes += 1;
        await s.plc.target.write('MAIN.aBig', new Array<number>(size).fill(writes));
        const n = writes;
        await fast.next((e) => e.event === 'change' && (e.data as { value: number[] }).value[0] === n);
      }
      rows = await connections(s);
      const slowRow = rows.find((r) => (r.dropped as number) > 0);
      assert.ok(slowRow, JSON.stringify(rows));
      assert.equal(rows.filter((r) => (r.dropped as number) > 0).length, 1);
      const dropped = slowRow.dropped as number;
      slow.resume();
      const gap = await slow.next((e) => e.event === 'gap');
      assert.deepEqual(gap.data, { dropped });
      const last = await slow.next(
        (e: SseEvent) => e.event === 'change' && (e.data as { value: number[] }).value[0] === writes,
      );
      // What came after the gap is at most the queue length: the newest changes, oldest first.
      const after = slow.events.slice(slow.events.indexOf(gap) + 1, slow.events.indexOf(last) + 1);
      assert.ok(after.length <= queueLength, String(after.length));
      const values = after.map((e) => (e.data as { value: number[] }).value[0] as number);
      assert.deepEqual(
        values,
        values.map((_, i) => writes - values.length + 1 + i),
      );
      assert.match(
        (await s.app.inject({ method: 'GET', url: '/metrics' })).body,
        new RegExp(`stream_events_dropped_total\\{kind="notifications.sse"\\} ${dropped}`),
      );
      slow.close();
      fast.close();
    } finally {
      await s.close();
    }
  });

  it('app close (SIGTERM) ends every stream and finishes', async () => {
    const s = await startStreamApp('simulated');
    const c = await new RawSse(sseUrl(s.base, ['MAIN.nA']), authHeaders(s.token)).opened();
    await c.count(2);
    const started = Date.now();
    await s.close();
    await c.closedByServer();
    assert.ok(Date.now() - started < 5000);
  });
});
