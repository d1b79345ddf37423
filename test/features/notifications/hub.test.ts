// The notification hub through real sockets: the stock @microsoft/signalr client (negotiate and skipNegotiation,
// token in the header and the query) on both drivers, and a bare `ws` client speaking the protocol by hand.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { HttpTransportType, HubConnectionBuilder, LogLevel, type HubConnection } from '@microsoft/signalr';
import { WebSocket } from 'ws';
import { Signal } from '../../helpers/signal.ts';
import { mintToken } from '../../helpers/tokens.ts';
import { testDrivers } from '../variables/fixture.ts';
import { connections, startStreamApp, waitLimitMs, type StreamApp } from './clients.ts';

const RS = '\u001e';
const hubPath = '/api/plcs/plc1/notifications/ws';

interface Received {
  method: string;
  arg: unknown;
}

function stockClient(s: StreamApp, options: { skipNegotiation?: boolean; token?: string } = {}) {
  const received: Received[] = [];
  const signal = new Signal();
  const token = options.token ?? s.token;
  const connection: HubConnection = new HubConnectionBuilder()
    .withUrl(`${s.base}${hubPath}`, {
      accessTokenFactory: () => token,
      transport: HttpTransportType.WebSockets,
      skipNegotiation: options.skipNegotiation ?? false,
    })
    .configureLogging(LogLevel.None)
    .build();
  for (const method of [
    'SubscriptionConfirmed',
    'VariableChanged',
    'SymbolError',
    'Disconnected',
    'Reconnected',
    'Gap',
  ]) {
    connection.on(method, (arg: unknown) => {
      received.push({ method, arg });
      signal.notify();
    });
  }
  const next = (match: (r: Received) => boolean, from = 0): Promise<Received> =>
    signal.until(
      () => received.slice(from).find(match),
      waitLimitMs,
      () => `hub message after ${JSON.stringify(received)}`,
    );
  return { connection, received, next };
}

const changed = (symbol: string, value?: unknown) => (r: Received) =>
  r.method === 'VariableChanged' &&
  (r.arg as { symbol: string }).symbol === symbol &&
  (value === undefined || (r.arg as { value: unknown }).value === value);

for (const driver of testDrivers) {
  describe(`notification hub with @microsoft/signalr (${driver} driver)`, () => {
    let s: StreamApp;
    before(async () => {
      s = await startStreamApp(driver);
    });
    after(async () => {
      await s.close();
    });

    for (const skipNegotiation of [false, true]) {
      it(`subscribes, gets values and changes, unsubscribes (skipNegotiation ${String(skipNegotiation)})`, async () => {
        const c = stockClient(s, { skipNegotiation });
        await c.connection.start();
        const confirmed = await c.connection.invoke<string[]>('Subscribe', ['MAIN.nA', 'MAIN.nope']);
        assert.deepEqual(confirmed, ['MAIN.nA']);
        const error = await c.next((r) => r.method === 'SymbolError');
        assert.equal((error.arg as { code: string }).code, 'SYMBOL_NOT_FOUND');
        const [first] = c.received;
        assert.deepEqual(first, { method: 'SubscriptionConfirmed', arg: ['MAIN.nA'] });
        const initial = await c.next(changed('MAIN.nA'));
        assert.equal((initial.arg as { type: string }).type, 'DINT');
        assert.equal(s.target.open, 1);
        await s.plc.target.write('MAIN.nA', 31);
        await c.next(changed('MAIN.nA', 31));
        await c.connection.invoke('Unsubscribe', ['MAIN.nA']);
        assert.equal(s.target.open, 0);
        await s.plc.target.write('MAIN.nA', 1);
        await c.connection.stop();
      });
    }

    it('shares one target subscription between SSE-less hub clients and releases on disconnect', async () => {
      const a = stockClient(s);
      const b = stockClient(s, { skipNegotiation: true });
      await a.connection.start();
      await b.connection.start();
      await a.connection.invoke('Subscribe', ['MAIN.nB']);
      await b.connection.invoke('Subscribe', ['main.nb']);
      await b.next(changed('main.nb', 2));
      assert.equal(s.target.open, 1);
      await a.connection.stop();
      await b.connection.stop();
      const signal = new Signal();
      const timer = setInterval(() => signal.notify(), 5);
      await signal
        .until(
          () => s.target.open === 0,
          waitLimitMs,
          () => 'release',
        )
        .finally(() => clearInterval(timer));
    });

    it('Subscribe beyond MaxSymbolsPerClient fails its completion; a bad token is refused', async () => {
      const c = stockClient(s);
      await c.connection.start();
      const many = Array.from({ length: 51 }, (_, i) => `MAIN.x${i}`);
      await assert.rejects(c.connection.invoke('Subscribe', many), /SUBSCRIPTION_LIMIT_EXCEEDED/);
      await c.connection.stop();
      const bad = stockClient(s, { token: 'not-a-token' });
      await assert.rejects(bad.connection.start(), /401/);
      const badSkip = stockClient(s, { token: 'not-a-token', skipNegotiation: true });
      await assert.rejects(badSkip.connection.start());
    });

    it('PLC lost and back: Disconnected, Reconnected, fresh values', async () => {
      const c = stockClient(s);
      await c.connection.start();
      await c.connection.invoke('Subscribe', ['MAIN.fSpeed']);
      await c.next(changed('MAIN.fSpeed'));
      await s.plc.disconnect();
      const down = await c.next((r) => r.method === 'Disconnected');
      assert.deepEqual(down.arg, { plcId: 'plc1', code: 'PLC_UNAVAILABLE' });
      s.plc.plc.write('MAIN.fSpeed', 2.25);
      await s.plc.reconnect();
      const up = await c.next((r) => r.method === 'Reconnected');
      await c.next(changed('MAIN.fSpeed', 2.25), c.received.indexOf(up));
      await c.connection.stop();
    });
  });
}

/** A bare ws client speaking the JSON hub protocol by hand. */
class RawHub {
  readonly messages: Array<Record<string, unknown>> = [];
  readonly raw: string[] = [];
  closed: { code: number } | undefined;
  readonly #signal = new Signal();
  readonly socket: WebSocket;

  constructor(url: string, headers: Record<string, string> = {}) {
    this.socket = new WebSocket(url, { headers });
    this.socket.on('message', (data: Buffer) => {
      const text = data.toString();
      this.raw.push(text);
      for (const record of text.split(RS))
        if (record !== '') this.messages.push(JSON.parse(record) as Record<string, unknown>);
      this.#signal.notify();
    });
    this.socket.on('close', (code: number) => {
      this.closed = { code };
      this.#signal.notify();
    });
    this.socket.on('unexpected-response', (_req, res) => {
      this.closed = { code: res.statusCode ?? 0 };
      this.#signal.notify();
    });
    this.socket.on('open', () => this.#signal.notify());
    this.socket.on('error', () => undefined);
  }

  async open(): Promise<this> {
    await this.#signal.until(
      () => this.socket.readyState === WebSocket.OPEN || this.closed !== undefined,
      waitLimitMs,
      () => 'open',
    );
    return this;
  }

  send(...records: unknown[]): void {
    this.socket.send(records.map((r) => (typeof r === 'string' ? r : JSON.stringify(r)) + RS).join(''));
  }

  next(match: (m: Record<string, unknown>) => boolean, from = 0): Promise<Record<string, unknown>> {
    return this.#signal.until(
      () => this.messages.slice(from).find(match),
      waitLimitMs,
      () => `message after ${JSON.stringify(this.messages)}`,
    );
  }

  async closedWith(): Promise<{ code: number }> {
    return this.#signal.until(
      () => this.closed,
      waitLimitMs,
      () => 'close',
    );
  }
}

describe('notification hub protocol by hand (bare ws)', () => {
  let s: StreamApp;
  before(async () => {
    s = await startStreamApp('simulated', { streamTimings: { pingIntervalMs: 50, clientTimeoutMs: 2000 } });
  });
  after(async () => {
    await s.close();
  });
  const url = (token: string, extra = ''): string =>
    `${s.base.replace('http', 'ws')}${hubPath}?access_token=${token}${extra}`;

  it('handshake errors: unsupported protocol and version, bad JSON', async () => {
    for (const [request, pattern] of [
      [{ protocol: 'xml', version: 1 }, /'xml' is not supported/],
      [{ protocol: 'json', version: 2 }, /version 2 is not supported; use 0 or 1/],
      [{ protocol: 'messagepack', version: 2 }, /version 2/],
      ['{nope', /JSON/],
    ] as const) {
      const c = await new RawHub(url(s.token)).open();
      c.send(request);
      const answer = await c.next(() => true);
      assert.match(String(answer.error), pattern);
      await c.closedWith();
    }
  });

  it('token in the query; invocations with and without an id; Completion with error; Ping', async () => {
    const c = await new RawHub(url(s.token)).open();
    c.send({ protocol: 'json', version: 1 });
    await c.next(() => true);
    assert.equal(c.raw[0], `{}${RS}`);
    c.send({ type: 1, invocationId: '1', target: 'NoSuchMethod', arguments: [] });
    assert.deepEqual(await c.next((m) => m.type === 3), {
      type: 3,
      invocationId: '1',
      error: "Unknown hub method 'NoSuchMethod'.",
    });
    c.send({ type: 1, invocationId: '2', target: 'subscribe', arguments: ['MAIN.nA'] });
    assert.match(String((await c.next((m) => m.invocationId === '2')).error), /^VALIDATION_ERROR/);
    // No id: no Completion, but the subscription happens.
    c.send({ type: 1, target: 'Subscribe', arguments: [['MAIN.nA']] });
    await c.next((m) => m.target === 'VariableChanged');
    const from = c.messages.length;
    c.send({ type: 1, invocationId: '3', target: 'Unsubscribe', arguments: [['MAIN.nA']] });
    assert.deepEqual(await c.next((m) => m.invocationId === '3'), { type: 3, invocationId: '3', result: [] });
    assert.ok(c.messages.slice(from).every((m) => m.type !== 3 || m.invocationId === '3'));
    // The server pings on its interval; a client ping keeps the connection alive.
    await c.next((m) => m.type === 6);
    c.send({ type: 6 });
    c.send({ type: 7 });
    await c.closedWith();
  });

  it("one PLC scan's changes reach each client as records of one WebSocket message", async () => {
    const clients = await Promise.all([new RawHub(url(s.token)).open(), new RawHub(url(s.token)).open()]);
    for (const c of clients) {
      c.send({ protocol: 'json', version: 1 });
      c.send({ type: 1, invocationId: '1', target: 'Subscribe', arguments: [['MAIN.nA', 'MAIN.nB']] });
      await c.next(
        (m) =>
          m.target === 'VariableChanged' && (m.arguments as [{ symbol: string }])[0].symbol === 'MAIN.nB',
      );
    }
    await s.plc.target.writeMany([
      { symbol: 'MAIN.nA', value: 111 },
      { symbol: 'MAIN.nB', value: 222 },
    ]);
    for (const c of clients) {
      const change = (symbol: string, value: number) => (m: Record<string, unknown>) =>
        m.target === 'VariableChanged' &&
        (m.arguments as [{ symbol: string; value: number }])[0].symbol === symbol &&
        (m.arguments as [{ value: number }])[0].value === value;
      await c.next(change('MAIN.nA', 111));
      await c.next(change('MAIN.nB', 222));
      const message = c.raw.find((text) => text.includes('"value":111')) ?? '';
      assert.ok(message.includes('"value":222'), JSON.stringify(c.raw));
      assert.equal(message.split(RS).filter((r) => r.includes('VariableChanged')).length, 2);
      c.socket.close();
    }
  });

  it('a silent client times out with a Close carrying the error', async () => {
    const c = await new RawHub(url(s.token)).open();
    c.send({ protocol: 'json', version: 1 });
    await c.next(() => true);
    const close = await c.next((m) => m.type === 7);
    assert.match(String(close.error), /timeout/i);
    await c.closedWith();
  });

  it('refuses a bad token, another PLC and an unknown negotiated id with JSON before the upgrade', async () => {
    const bad = new RawHub(url('bad'));
    assert.equal((await bad.closedWith()).code, 401);
    const other = new RawHub(url(await mintToken({ plc_access: ['x'] })));
    assert.equal((await other.closedWith()).code, 403);
    const unknownId = new RawHub(url(s.token, '&id=nope'));
    assert.equal((await unknownId.closedWith()).code, 404);
    const header = await new RawHub(url('').replace('?access_token=', ''), {
      authorization: `Bearer ${s.token}`,
    }).open();
    assert.equal(header.socket.readyState, WebSocket.OPEN);
    header.socket.close();
  });

  it('admin termination sends Close with an error, then the close frame', async () => {
    const c = await new RawHub(url(s.token)).open();
    c.send({ protocol: 'json', version: 1 });
    await c.next(() => true);
    const row = (await connections(s)).find((r) => r.kind === 'notifications.ws');
    assert.ok(row);
    const del = await s.app.inject({
      method: 'DELETE',
      url: `/api/admin/connections/${String(row.id)}`,
      headers: { authorization: `Bearer ${s.token}` },
    });
    assert.equal(del.statusCode, 200);
    const close = await c.next((m) => m.type === 7);
    assert.match(String(close.error), /administrator/);
    assert.equal((await c.closedWith()).code, 1000);
  });
});
