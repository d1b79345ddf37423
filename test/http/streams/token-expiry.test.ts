// Nothing outlives its token, over real sockets and a token clock the test moves: notification and alarm SSE
// streams end with `event: error` TOKEN_EXPIRED at exp plus Auth:ClockSkewSeconds (not a millisecond before),
// both hubs with a Close that lets a stock client reconnect with a fresh token, the MCP server stream likewise;
// RefreshToken moves a hub connection's end and keeps its subscriptions, and refuses tokens it must not accept.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { AddressInfo } from 'node:net';
import { HttpTransportType, HubConnectionBuilder, LogLevel } from '@microsoft/signalr';
import { buildTestApp, manualDeadlineClock } from '../../helpers/app.ts';
import { RawHub } from '../../helpers/raw-hub.ts';
import { Signal } from '../../helpers/signal.ts';
import { bearer, mintToken } from '../../helpers/tokens.ts';
import { RawSse, sseUrl, startStreamApp, type StreamApp } from '../../features/notifications/clients.ts';
import { listen, startAlarmRig, type AlarmRig } from '../../features/alarms/fixture.ts';

const skewMs = 30_000; // Auth:ClockSkewSeconds default

type Clock = ReturnType<typeof manualDeadlineClock>;

/** A token of `claims` valid for `seconds` on the clock, and the instant streams it opens must end. */
async function tokenFor(clock: Clock, seconds: number, claims: Record<string, unknown> = {}) {
  const now = Math.floor(clock.now() / 1000);
  const token = await mintToken(claims, { now, expiresIn: seconds });
  return { token, endsAt: (now + seconds) * 1000 + skewMs };
}

/** Moves the clock to `at`. */
function advanceTo(clock: Clock, at: number): void {
  clock.advance(at - clock.now());
}

// Closed before each app closes, so a stream a failing test left open cannot hold the server open.
const clients: Array<{ close(): void }> = [];
function track<T extends { close(): void }>(client: T): T {
  clients.push(client);
  return client;
}
function closeClients(): void {
  for (const c of clients.splice(0)) c.close();
}

const isExpiry = (e: { event: string; data: unknown }) =>
  e.event === 'error' && (e.data as { code?: string }).code === 'TOKEN_EXPIRED';

describe('notification streams end with their token', () => {
  let s: StreamApp;
  const clock = manualDeadlineClock();
  const hubPath = '/api/plcs/plc1/notifications/ws';
  const wsUrl = (token: string) => `${s.base.replace('http', 'ws')}${hubPath}?access_token=${token}`;
  before(async () => {
    s = await startStreamApp('simulated', { tokenClock: clock });
  });
  after(async () => {
    closeClients();
    await s.close();
  });

  it('SSE: open until exp plus the clock skew, then event: error TOKEN_EXPIRED and the end', async () => {
    const { token, endsAt } = await tokenFor(clock, 60);
    const sse = await track(new RawSse(sseUrl(s.base, ['MAIN.nA']), bearer(token))).opened();
    assert.equal(sse.status, 200);
    await sse.next((e) => e.event === 'change');
    advanceTo(clock, endsAt - 1);
    // Still served: a change made now arrives.
    await s.plc.target.writeMany([{ symbol: 'MAIN.nA', value: 4242 }]);
    await sse.next((e) => e.event === 'change' && (e.data as { value: number }).value === 4242);
    assert.ok(!sse.events.some(isExpiry));
    clock.advance(1);
    const last = await sse.next(isExpiry);
    assert.match(String((last.data as { message: string }).message), /expired/);
    await sse.closedByServer();
    assert.equal(sse.events.at(-1), last);
  });

  it('hub: Close with TOKEN_EXPIRED and allowReconnect at exp plus the clock skew', async () => {
    const { token, endsAt } = await tokenFor(clock, 60);
    const c = await track(new RawHub(wsUrl(token))).handshake();
    advanceTo(clock, endsAt - 1);
    assert.equal((await c.invoke('1', 'Subscribe', ['MAIN.nA'])).error, undefined);
    assert.ok(c.messages.every((m) => m.type !== 7));
    clock.advance(1);
    const close = await c.next((m) => m.type === 7);
    assert.match(String(close.error), /^TOKEN_EXPIRED: /);
    assert.equal(close.allowReconnect, true);
    assert.equal((await c.closedWith()).code, 1000);
  });

  it('a stock @microsoft/signalr client with automatic reconnect comes back with a fresh token', async () => {
    let current = await tokenFor(clock, 60);
    const signal = new Signal();
    const seen: string[] = [];
    const connection = new HubConnectionBuilder()
      .withUrl(`${s.base}${hubPath}`, {
        accessTokenFactory: () => current.token,
        transport: HttpTransportType.WebSockets,
      })
      .withAutomaticReconnect([0])
      .configureLogging(LogLevel.None)
      .build();
    connection.onreconnecting((err) => {
      seen.push(`reconnecting: ${err?.message ?? ''}`);
      signal.notify();
    });
    connection.onreconnected(() => {
      seen.push('reconnected');
      signal.notify();
    });
    try {
      await connection.start();
      const first = current.endsAt;
      current = await tokenFor(clock, 3600);
      advanceTo(clock, first);
      await signal.until(
        () => seen.includes('reconnected'),
        10_000,
        () => `reconnect (${JSON.stringify(seen)})`,
      );
      assert.match(seen[0] ?? '', /TOKEN_EXPIRED/);
      assert.deepEqual(await connection.invoke('Subscribe', ['MAIN.nA']), ['MAIN.nA']);
    } finally {
      await connection.stop();
    }
  });

  it('RefreshToken moves the end and keeps the subscriptions', async () => {
    const first = await tokenFor(clock, 60);
    const c = await track(new RawHub(wsUrl(first.token))).handshake();
    assert.deepEqual((await c.invoke('1', 'Subscribe', ['MAIN.nB'])).result, ['MAIN.nB']);
    const second = await tokenFor(clock, 600);
    const refreshed = await c.invoke('2', 'RefreshToken', second.token);
    assert.deepEqual(refreshed.result, { expiresAt: new Date(second.endsAt).toISOString() });
    advanceTo(clock, first.endsAt + 1000);
    const from = c.messages.length;
    await s.plc.target.writeMany([{ symbol: 'MAIN.nB', value: 777 }]);
    await c.next(
      (m) => m.target === 'VariableChanged' && (m.arguments as [{ value: number }])[0].value === 777,
      from,
    );
    assert.ok(c.messages.every((m) => m.type !== 7));
    advanceTo(clock, second.endsAt);
    assert.match(String((await c.next((m) => m.type === 7)).error), /^TOKEN_EXPIRED/);
    await c.closedWith();
  });

  it('RefreshToken refuses another sub, wider rights, a PLC outside plc_access and a bad token', async () => {
    const narrow = { sub: 'nina', role: 'viewer', scope: 'ads:read', plc_access: ['plc1'] };
    const opened = await tokenFor(clock, 60, narrow);
    const c = await track(new RawHub(wsUrl(opened.token))).handshake();
    const refusals: Array<[Record<string, unknown>, RegExp]> = [
      [{ ...narrow, sub: 'mallory' }, /^UNAUTHORIZED: .*sub/],
      [{ ...narrow, plc_access: ['*'] }, /^FORBIDDEN: /],
      [{ ...narrow, role: 'admin' }, /^FORBIDDEN: /],
      [{ ...narrow, plc_access: [] }, /^PLC_ACCESS_DENIED: /],
    ];
    let id = 0;
    for (const [claims, error] of refusals) {
      const { token } = await tokenFor(clock, 600, claims);
      assert.match(String((await c.invoke(String(++id), 'RefreshToken', token)).error), error);
    }
    assert.match(String((await c.invoke('bad', 'RefreshToken', 'not-a-jwt')).error), /^UNAUTHORIZED/);
    assert.match(String((await c.invoke('none', 'RefreshToken')).error), /^VALIDATION_ERROR/);
    // None of them moved the end.
    advanceTo(clock, opened.endsAt);
    assert.match(String((await c.next((m) => m.type === 7)).error), /^TOKEN_EXPIRED/);
    await c.closedWith();
  });
});

describe('alarm streams end with their token', () => {
  let rig: AlarmRig;
  let base: string;
  const clock = manualDeadlineClock();
  before(async () => {
    rig = await startAlarmRig('simulated', { tokenClock: clock });
    base = await listen(rig);
  });
  after(async () => {
    closeClients();
    await rig.app.close();
  });

  it('SSE of one PLC and of the fleet: event: error TOKEN_EXPIRED, then the end', async () => {
    const { token, endsAt } = await tokenFor(clock, 60);
    const one = await track(new RawSse(`${base}/api/plcs/line1/alarms/stream`, bearer(token))).opened();
    const fleet = await track(new RawSse(`${base}/api/alarms/stream`, bearer(token))).opened();
    assert.equal(one.status, 200);
    assert.equal(fleet.status, 200);
    advanceTo(clock, endsAt - 1);
    assert.ok(!one.ended && !fleet.ended);
    clock.advance(1);
    for (const sse of [one, fleet]) {
      await sse.next(isExpiry);
      await sse.closedByServer();
    }
  });

  it('hub: Close with TOKEN_EXPIRED and allowReconnect', async () => {
    const { token, endsAt } = await tokenFor(clock, 60);
    const c = await track(
      new RawHub(`${base.replace('http', 'ws')}/api/plcs/line1/alarms/ws?access_token=${token}`),
    ).handshake();
    advanceTo(clock, endsAt);
    const close = await c.next((m) => m.type === 7);
    assert.match(String(close.error), /^TOKEN_EXPIRED/);
    assert.equal(close.allowReconnect, true);
    await c.closedWith();
  });
});

describe('the MCP server stream ends with its token', () => {
  const clock = manualDeadlineClock();
  let app: Awaited<ReturnType<typeof buildTestApp>>;
  let base: string;
  before(async () => {
    app = await buildTestApp({ tokenClock: clock, settings: { Features: { Mcp: true } } });
    await app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  });
  after(async () => {
    closeClients();
    await app.close();
  });

  it('GET /mcp: event: error TOKEN_EXPIRED at exp plus the clock skew, then the end', async () => {
    const { token, endsAt } = await tokenFor(clock, 60);
    const headers = {
      ...bearer(token),
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    };
    const init = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      }),
    });
    assert.equal(init.status, 200);
    await init.text();
    const session = init.headers.get('mcp-session-id') ?? '';
    assert.notEqual(session, '');
    const sse = await track(
      new RawSse(`${base}/mcp`, { ...bearer(token), 'mcp-session-id': session }),
    ).opened();
    assert.equal(sse.status, 200);
    advanceTo(clock, endsAt - 1);
    assert.equal(sse.ended, false);
    clock.advance(1);
    await sse.next(isExpiry);
    await sse.closedByServer();
  });
});
