// Both hubs on every SignalR transport and protocol, through real sockets: the stock @microsoft/signalr client
// forced to WebSockets, ServerSentEvents and LongPolling, with the JSON and (where binary is carried) the
// MessagePack protocol; it subscribes, receives changes and alarm transitions, is listed by kind, ended by the
// admin route and by its token's expiry. Then the transports by hand: a version-0 handshake, LongPolling polls,
// sends, DELETE, the poll and disconnect timeouts, the message size and connection limits at their edges.
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { after, before, describe, it } from 'node:test';
import {
  HttpTransportType,
  HubConnectionBuilder,
  LogLevel,
  type HubConnection,
  type IHttpConnectionOptions,
} from '@microsoft/signalr';
import { MessagePackHubProtocol } from '@microsoft/signalr-protocol-msgpack';
import { decode, encode } from '@msgpack/msgpack';
import { ProgramBuilder } from '../../../src/simulator/engine/index.ts';
import { manualDeadlineClock } from '../../helpers/app.ts';
import { RawHub } from '../../helpers/raw-hub.ts';
import { Signal } from '../../helpers/signal.ts';
import { bearer, mintToken } from '../../helpers/tokens.ts';
import { startStreamApp, waitLimitMs, type StreamApp } from '../../features/notifications/clients.ts';
import { listen, startAlarmRig, type AlarmRig } from '../../features/alarms/fixture.ts';

const RS = '\u001e';

interface Mode {
  readonly transport: 'WebSockets' | 'ServerSentEvents' | 'LongPolling';
  readonly msgpack: boolean;
  /** The registry kind suffix the admin listing shows. */
  readonly kind: string;
}

const modes: readonly Mode[] = [
  { transport: 'WebSockets', msgpack: false, kind: '.ws' },
  { transport: 'WebSockets', msgpack: true, kind: '.ws' },
  { transport: 'ServerSentEvents', msgpack: false, kind: '.hub-sse' },
  { transport: 'LongPolling', msgpack: false, kind: '.hub-longpolling' },
  { transport: 'LongPolling', msgpack: true, kind: '.hub-longpolling' },
];

const label = (m: Mode) => `${m.transport}, ${m.msgpack ? 'messagepack' : 'json'}`;

interface Received {
  method: string;
  arg: unknown;
}

/** A stock client forced to one transport and protocol, recording every server method it was sent. */
function stockClient(url: string, token: () => string, mode: Mode, methods: readonly string[]) {
  const received: Received[] = [];
  const signal = new Signal();
  let closedWith: Error | undefined | null = null;
  const options: IHttpConnectionOptions = {
    accessTokenFactory: token,
    transport: HttpTransportType[mode.transport],
  };
  let builder = new HubConnectionBuilder().withUrl(url, options).configureLogging(LogLevel.None);
  if (mode.msgpack) builder = builder.withHubProtocol(new MessagePackHubProtocol());
  const connection: HubConnection = builder.build();
  for (const method of methods) {
    connection.on(method, (arg: unknown) => {
      received.push({ method, arg });
      signal.notify();
    });
  }
  connection.onclose((err) => {
    closedWith = err;
    signal.notify();
  });
  return {
    connection,
    received,
    next: (match: (r: Received) => boolean): Promise<Received> =>
      signal.until(
        () => received.find(match),
        waitLimitMs,
        () => `hub message after ${JSON.stringify(received)}`,
      ),
    count: (n: number) =>
      signal.until(
        () => received.length >= n,
        waitLimitMs,
        () => `${n} messages (have ${JSON.stringify(received)})`,
      ),
    closed: () =>
      signal.until(
        () => (closedWith === null ? undefined : { error: closedWith }),
        waitLimitMs,
        () => 'close',
      ),
  };
}

const notificationMethods = ['SubscriptionConfirmed', 'VariableChanged', 'SymbolError', 'Gap'];

const changed = (symbol: string, value?: unknown) => (r: Received) =>
  r.method === 'VariableChanged' &&
  (r.arg as { symbol: string }).symbol === symbol &&
  (value === undefined || (r.arg as { value: unknown }).value === value);

interface Row {
  id: string;
  kind: string;
  plcId: string | null;
  user: string;
}

async function rows(app: StreamApp['app'], token: string): Promise<Row[]> {
  const res = await app.inject({ method: 'GET', url: '/api/admin/connections', headers: bearer(token) });
  assert.equal(res.statusCode, 200, res.body);
  return res.json<{ data: Row[] }>().data;
}

/** Waits (re-checking often) until `check` holds: for state the server changes without telling the client. */
async function eventually(check: () => Promise<boolean>, what: string): Promise<void> {
  const signal = new Signal();
  let ok = false;
  const timer = setInterval(() => {
    void check().then((v) => {
      ok = v;
      signal.notify();
    });
  }, 20);
  try {
    await signal.until(
      () => ok || undefined,
      waitLimitMs,
      () => what,
    );
  } finally {
    clearInterval(timer);
  }
}

// A LINT beyond 2^53, as a 64-bit value travels in this API's JSON: a string, which MessagePack keeps.
function bigProgram() {
  const b = new ProgramBuilder();
  b.symbol('MAIN.nA', 'DINT', { value: 1 });
  b.symbol('MAIN.nBig', 'LINT', { value: '-9223372036854775808' });
  return b.build();
}

describe('notification hub on every transport and protocol (stock client)', () => {
  let s: StreamApp;
  const hubUrl = () => `${s.base}/api/plcs/plc1/notifications/ws`;
  before(async () => {
    s = await startStreamApp('simulated', { program: bigProgram() });
  });
  after(async () => {
    await s.close();
  });

  for (const mode of modes) {
    it(`${label(mode)}: subscribes, gets changes, listed by kind, ended by the admin route`, async () => {
      const c = stockClient(hubUrl(), () => s.token, mode, notificationMethods);
      await c.connection.start();
      const confirmed = await c.connection.invoke<string[]>('Subscribe', ['MAIN.nA', 'MAIN.nBig']);
      assert.deepEqual(confirmed, ['MAIN.nA', 'MAIN.nBig']);
      const big = await c.next(changed('MAIN.nBig'));
      assert.equal((big.arg as { value: unknown }).value, '-9223372036854775808');
      await c.next(changed('MAIN.nA'));
      await s.plc.target.write('MAIN.nA', 4711);
      await c.next(changed('MAIN.nA', 4711));
      await s.plc.target.write('MAIN.nA', 1);

      const row = (await rows(s.app, s.token)).find((r) => r.kind === `notifications${mode.kind}`);
      assert.ok(row, `a row of kind notifications${mode.kind}`);
      assert.equal(row.plcId, 'plc1');
      const del = await s.app.inject({
        method: 'DELETE',
        url: `/api/admin/connections/${row.id}`,
        headers: bearer(s.token),
      });
      assert.equal(del.statusCode, 200, del.body);
      const { error } = await c.closed();
      assert.match(String(error?.message), /terminated by an administrator/);
      assert.ok(!(await rows(s.app, s.token)).some((r) => r.id === row.id));
    });
  }

  it('the same event reaches JSON and MessagePack clients with the same values (64-bit and time strings)', async () => {
    const json = stockClient(hubUrl(), () => s.token, modes[0]!, notificationMethods);
    const msgpack = stockClient(hubUrl(), () => s.token, modes[4]!, notificationMethods);
    await json.connection.start();
    await msgpack.connection.start();
    try {
      await json.connection.invoke('Subscribe', ['MAIN.nBig']);
      await msgpack.connection.invoke('Subscribe', ['MAIN.nBig']);
      await s.plc.target.write('MAIN.nBig', '9223372036854775807');
      const a = await json.next(changed('MAIN.nBig', '9223372036854775807'));
      const b = await msgpack.next(changed('MAIN.nBig', '9223372036854775807'));
      assert.deepEqual(b.arg, a.arg);
      assert.equal(typeof (b.arg as { timestamp: unknown }).timestamp, 'string');
    } finally {
      await json.connection.stop();
      await msgpack.connection.stop();
    }
  });
});

describe('alarm hub on every transport and protocol (stock client)', () => {
  let rig: AlarmRig;
  let base: string;
  let token: string;
  before(async () => {
    rig = await startAlarmRig('simulated');
    base = await listen(rig);
    token = await mintToken();
  });
  after(() => rig.close());

  for (const mode of modes) {
    it(`${label(mode)}: AlarmTransition from connect on, listed by kind, ended by the admin route`, async () => {
      await rig.reset();
      const c = stockClient(`${base}/api/plcs/line1/alarms/ws`, () => token, mode, ['AlarmTransition']);
      await c.connection.start();
      await rig.step(2);
      await c.count(2);
      const frames = c.received.map((r) => {
        const f = r.arg as { kind: string; alarm: { code: string; scope: string } };
        return `${f.kind} ${f.alarm.code} ${f.alarm.scope}`;
      });
      assert.deepEqual(frames, ['raised FILLER_OVERTEMP line1', 'raised CAPPER_JAM line1']);
      const listed = (await rig.call('GET', '/api/admin/connections')).json<{ data: Row[] }>().data;
      const row = listed.find((r) => r.kind === `alarms${mode.kind}`);
      assert.equal(row?.plcId, 'line1');
      const del = await rig.app.inject({
        method: 'DELETE',
        url: `/api/admin/connections/${row?.id}`,
        headers: bearer(token),
      });
      assert.equal(del.statusCode, 200, del.body);
      const { error } = await c.closed();
      assert.match(String(error?.message), /terminated by an administrator/);
    });
  }
});

describe('hub connections on every transport end with their token', () => {
  const clock = manualDeadlineClock();
  const skewMs = 30_000; // Auth:ClockSkewSeconds default
  let s: StreamApp;
  let alarms: AlarmRig;
  let alarmBase: string;
  before(async () => {
    s = await startStreamApp('simulated', { tokenClock: clock });
    alarms = await startAlarmRig('simulated', { tokenClock: clock });
    alarmBase = await listen(alarms);
  });
  after(async () => {
    await s.close();
    await alarms.close();
  });

  // A LongPolling client takes the Close (TOKEN_EXPIRED) with the poll waiting at the expiry; a poll it makes
  // after the expiry is refused by the guards (401 UNAUTHORIZED, the token has expired). Either ends it.
  const expiredFor = (mode: Mode) =>
    mode.transport === 'LongPolling' ? /TOKEN_EXPIRED|The token has expired/ : /TOKEN_EXPIRED/;

  const tokenFor = async (seconds: number) => {
    const now = Math.floor(clock.now() / 1000);
    return {
      token: await mintToken({}, { now, expiresIn: seconds }),
      endsAt: (now + seconds) * 1000 + skewMs,
    };
  };

  for (const mode of modes) {
    it(`${label(mode)}: notifications and alarms close with TOKEN_EXPIRED at exp plus the skew`, async () => {
      const { token, endsAt } = await tokenFor(60);
      const n = stockClient(
        `${s.base}/api/plcs/plc1/notifications/ws`,
        () => token,
        mode,
        notificationMethods,
      );
      const a = stockClient(`${alarmBase}/api/plcs/line1/alarms/ws`, () => token, mode, ['AlarmTransition']);
      await n.connection.start();
      await a.connection.start();
      clock.advance(endsAt - 1 - clock.now());
      assert.deepEqual(await n.connection.invoke('Subscribe', ['MAIN.nA']), ['MAIN.nA']);
      clock.advance(1);
      for (const c of [n, a]) {
        const { error } = await c.closed();
        assert.match(String(error?.message), expiredFor(mode));
      }
      const open = await rows(s.app, (await tokenFor(3600)).token);
      assert.ok(
        !open.some((r) => r.user === 'test-user' && r.kind.startsWith('notifications')),
        JSON.stringify(open),
      );
    });
  }

  it('LongPolling by hand: RefreshToken moves the end; later requests must carry the fresh token', async () => {
    const first = await tokenFor(60);
    const second = await tokenFor(600);
    const hub = '/api/plcs/plc1/notifications/ws';
    const negotiated = await call(s.base, 'POST', `${hub}/negotiate?negotiateVersion=1`, bearer(first.token));
    const poll = `${hub}?id=${(JSON.parse(negotiated.body) as { connectionToken: string }).connectionToken}`;
    await call(s.base, 'GET', poll, bearer(first.token));
    await call(s.base, 'POST', poll, bearer(first.token), `{"protocol":"json","version":1}${RS}`);
    assert.equal((await call(s.base, 'GET', poll, bearer(first.token))).body, `{}${RS}`);
    const refresh = { type: 1, invocationId: '1', target: 'RefreshToken', arguments: [second.token] };
    await call(s.base, 'POST', poll, bearer(first.token), JSON.stringify(refresh) + RS);
    const done = await call(s.base, 'GET', poll, bearer(first.token));
    assert.deepEqual(JSON.parse(done.body.split(RS)[0] ?? ''), {
      type: 3,
      invocationId: '1',
      result: { expiresAt: new Date(second.endsAt).toISOString() },
    });
    clock.advance(first.endsAt - clock.now());
    // The old token no longer opens a request; the connection lives on for the fresh one.
    assert.equal((await call(s.base, 'POST', poll, bearer(first.token), `{"type":6}${RS}`)).status, 401);
    assert.equal((await call(s.base, 'POST', poll, bearer(second.token), `{"type":6}${RS}`)).status, 200);
    clock.advance(second.endsAt - clock.now());
    // The Close waits for the next poll (here with a later token of the same user), then the poll says 204.
    const third = bearer((await tokenFor(3600)).token);
    const close = await call(s.base, 'GET', poll, third);
    assert.match(close.body, /"type":7,"error":"TOKEN_EXPIRED/);
    assert.equal((await call(s.base, 'GET', poll, third)).status, 204);
  });
});

/** A MessagePack hub message with its varint length prefix. */
function prefixed(body: Uint8Array): Buffer {
  const prefix: number[] = [];
  let n = body.length;
  while (n >= 0x80) {
    prefix.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  prefix.push(n);
  return Buffer.concat([Buffer.from(prefix), body]);
}

/** The MessagePack hub messages in `data`, decoded. */
function unprefixed(data: Buffer): unknown[] {
  const out: unknown[] = [];
  let at = 0;
  while (at < data.length) {
    let length = 0;
    let shift = 0;
    let byte: number;
    do {
      byte = data[at++] ?? 0;
      length |= (byte & 0x7f) << shift;
      shift += 7;
    } while (byte & 0x80);
    out.push(decode(data.subarray(at, at + length)));
    at += length;
  }
  return out;
}

interface Answer {
  status: number;
  body: string;
  raw: Buffer;
  type: string | undefined;
}

/** One HTTP request to the app; answers status, body and content type. */
function call(
  base: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string | Buffer,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${base}${path}`, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const raw = Buffer.concat(chunks);
        resolve({
          status: res.statusCode ?? 0,
          body: raw.toString('utf8'),
          raw,
          type: res.headers['content-type'],
        });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('hub transports by hand', () => {
  let s: StreamApp;
  const maxMessage = 1024;
  const maxUnparsed = 512;
  const hubPath = '/api/plcs/plc1/notifications/ws';
  before(async () => {
    s = await startStreamApp('simulated', {
      settings: {
        Hubs: {
          MaxMessageBytes: maxMessage,
          MaxUnparsedBytes: maxUnparsed,
          LongPollSeconds: 1,
          DisconnectTimeoutSeconds: 1,
          HandshakeTimeoutSeconds: 2,
        },
        ConnectionLimits: { MaxPerUser: 2 },
      },
      // A client timeout far below the poll timeout: LongPolling connections must not be subject to it.
      streamTimings: { pingIntervalMs: 50, clientTimeoutMs: 200 },
    });
  });
  after(async () => {
    await s.close();
  });

  const auth = () => bearer(s.token);
  const negotiate = async (token = s.token): Promise<string> => {
    const res = await call(s.base, 'POST', `${hubPath}/negotiate?negotiateVersion=1`, bearer(token));
    assert.equal(res.status, 200, res.body);
    return (JSON.parse(res.body) as { connectionToken: string }).connectionToken;
  };
  const records = (body: string) =>
    body
      .split(RS)
      .filter((r) => r !== '')
      .map((r) => JSON.parse(r) as Record<string, unknown>);

  it('negotiate offers WebSockets and LongPolling with Text and Binary, ServerSentEvents with Text only', async () => {
    const res = await call(s.base, 'POST', `${hubPath}/negotiate?negotiateVersion=1`, auth());
    assert.deepEqual((JSON.parse(res.body) as { availableTransports: unknown }).availableTransports, [
      { transport: 'WebSockets', transferFormats: ['Text', 'Binary'] },
      { transport: 'ServerSentEvents', transferFormats: ['Text'] },
      { transport: 'LongPolling', transferFormats: ['Text', 'Binary'] },
    ]);
  });

  it('a version-0 JSON handshake is accepted on a WebSocket (clients that send version 0)', async () => {
    const c = await new RawHub(`${s.base.replace('http', 'ws')}${hubPath}?access_token=${s.token}`).open();
    c.send({ protocol: 'json', version: 0 });
    assert.deepEqual(await c.next(() => true), {});
    assert.deepEqual((await c.invoke('1', 'Subscribe', ['MAIN.nA'])).result, ['MAIN.nA']);
    c.socket.close();
    await c.closedWith();
  });

  it('LongPolling by hand: first poll empty, version-0 handshake, a Completion, DELETE, then 204', async () => {
    const id = await negotiate();
    const poll = `${hubPath}?id=${id}`;
    const first = await call(s.base, 'GET', poll, auth());
    assert.deepEqual([first.status, first.body], [200, '']);
    const hs = await call(s.base, 'POST', poll, auth(), `{"protocol":"json","version":0}${RS}`);
    assert.equal(hs.status, 200);
    const answer = await call(s.base, 'GET', poll, auth());
    assert.deepEqual(
      [answer.status, answer.body, answer.type],
      [200, `{}${RS}`, 'text/plain; charset=utf-8'],
    );
    await call(
      s.base,
      'POST',
      poll,
      auth(),
      `${JSON.stringify({ type: 1, invocationId: '7', target: 'Subscribe', arguments: [['MAIN.nA']] })}${RS}`,
    );
    const seen: Array<Record<string, unknown>> = [];
    for (let polls = 0; polls < 10 && !seen.some((m) => m.type === 3); polls++)
      seen.push(...records((await call(s.base, 'GET', poll, auth())).body));
    assert.deepEqual(
      seen.find((m) => m.type === 3),
      { type: 3, invocationId: '7', result: ['MAIN.nA'] },
    );
    assert.ok((await rows(s.app, s.token)).some((r) => r.kind === 'notifications.hub-longpolling'));
    // Another user (here: another sub) cannot send on it, poll it or end it.
    const other = bearer(await mintToken({ sub: 'someone-else' }));
    assert.equal((await call(s.base, 'POST', poll, other, `{"type":6}${RS}`)).status, 404);
    assert.equal((await call(s.base, 'GET', poll, other)).status, 404);
    assert.equal((await call(s.base, 'DELETE', poll, other)).status, 404);
    // plc_access holds on every request of the connection.
    const elsewhere = bearer(await mintToken({ plc_access: ['elsewhere'] }));
    assert.equal((await call(s.base, 'POST', poll, elsewhere, `{"type":6}${RS}`)).status, 403);
    assert.equal((await call(s.base, 'GET', poll, elsewhere)).status, 403);
    assert.equal((await call(s.base, 'DELETE', poll, auth())).status, 202);
    assert.equal((await call(s.base, 'GET', poll, auth())).status, 404);
    assert.ok(!(await rows(s.app, s.token)).some((r) => r.kind === 'notifications.hub-longpolling'));
  });

  it('LongPolling: a poll with nothing to send is answered empty after LongPollSeconds; ended by the server, 204', async () => {
    const id = await negotiate();
    const poll = `${hubPath}?id=${id}`;
    await call(s.base, 'GET', poll, auth());
    await call(s.base, 'POST', poll, auth(), `{"protocol":"json","version":1}${RS}`);
    assert.equal((await call(s.base, 'GET', poll, auth())).body, `{}${RS}`);
    const empty = await call(s.base, 'GET', poll, auth());
    assert.deepEqual([empty.status, empty.body], [200, '']);
    // No Ping and no client timeout over LongPolling: a second past the 200 ms client timeout it still answers.
    const invoke = { type: 1, invocationId: '9', target: 'NoSuch', arguments: [] };
    await call(s.base, 'POST', poll, auth(), JSON.stringify(invoke) + RS);
    assert.deepEqual(records((await call(s.base, 'GET', poll, auth())).body), [
      { type: 3, invocationId: '9', error: "Unknown hub method 'NoSuch'." },
    ]);
    // The client sends Close: the connection ends, the next poll is told so.
    await call(s.base, 'POST', poll, auth(), `{"type":7}${RS}`);
    assert.equal((await call(s.base, 'GET', poll, auth())).status, 204);
  });

  it('LongPolling: a client that stops polling is ended after DisconnectTimeoutSeconds', async () => {
    const id = await negotiate();
    await call(s.base, 'GET', `${hubPath}?id=${id}`, auth());
    const kind = 'notifications.hub-longpolling';
    assert.ok((await rows(s.app, s.token)).some((r) => r.kind === kind));
    await eventually(async () => !(await rows(s.app, s.token)).some((r) => r.kind === kind), 'disconnect');
    assert.equal((await call(s.base, 'GET', `${hubPath}?id=${id}`, auth())).status, 404);
  });

  it('MessagePack over LongPolling by hand: varint-prefixed arrays; Hubs:MaxUnparsedBytes at its edge', async () => {
    const id = await negotiate();
    const poll = `${hubPath}?id=${id}`;
    const binary = { ...auth(), 'content-type': 'application/octet-stream' };
    await call(s.base, 'GET', poll, auth());
    await call(s.base, 'POST', poll, auth(), `{"protocol":"messagepack","version":1}${RS}`);
    const hs = await call(s.base, 'GET', poll, auth());
    assert.deepEqual([hs.raw.toString(), hs.type], [`{}${RS}`, 'application/octet-stream']);
    // An invocation whose MessagePack body is exactly `size` bytes.
    const invocation = (size: number): Uint8Array => {
      for (let pad = 0; pad < size; pad++) {
        const body = encode([1, {}, 'a', 'NoSuch', ['x'.repeat(pad)]]);
        if (body.length === size) return body;
      }
      throw new Error(`no invocation of ${size} bytes`);
    };
    assert.equal((await call(s.base, 'POST', poll, binary, prefixed(invocation(maxUnparsed)))).status, 200);
    const answer = await call(s.base, 'GET', poll, auth());
    assert.deepEqual(unprefixed(answer.raw), [[3, {}, 'a', 1, "Unknown hub method 'NoSuch'."]]);
    // A message split across two sends is read once whole.
    const split = prefixed(encode([1, {}, 'b', 'NoSuch', []]));
    assert.equal((await call(s.base, 'POST', poll, binary, split.subarray(0, 5))).status, 200);
    assert.equal((await call(s.base, 'POST', poll, binary, split.subarray(5))).status, 200);
    assert.deepEqual(unprefixed((await call(s.base, 'GET', poll, auth())).raw), [
      [3, {}, 'b', 1, "Unknown hub method 'NoSuch'."],
    ]);
    // One byte more is announced by the prefix: the connection is closed before the body is held.
    const tooLarge = prefixed(invocation(maxUnparsed + 1)).subarray(0, 10);
    assert.equal((await call(s.base, 'POST', poll, binary, tooLarge)).status, 200);
    const [close] = unprefixed((await call(s.base, 'GET', poll, auth())).raw) as [[number, string, boolean]];
    assert.equal(close[0], 7);
    assert.match(close[1], /^PAYLOAD_TOO_LARGE: A message of 513 bytes/);
    assert.equal((await call(s.base, 'GET', poll, auth())).status, 204);
  });

  it('LongPolling: negotiateVersion 0 connects with connectionId; no handshake within its timeout ends it', async () => {
    const res = await call(s.base, 'POST', `${hubPath}/negotiate`, auth());
    const negotiated = JSON.parse(res.body) as { negotiateVersion: number; connectionId: string };
    assert.equal(negotiated.negotiateVersion, 0);
    const poll = `${hubPath}?id=${negotiated.connectionId}`;
    // Polled all along (so the disconnect timeout never applies), it is the handshake timeout that ends it.
    const statuses: number[] = [];
    for (let i = 0; i < 6 && statuses.at(-1) !== 204; i++)
      statuses.push((await call(s.base, 'GET', poll, auth())).status);
    assert.equal(statuses.at(-1), 204, JSON.stringify(statuses));
    assert.ok(
      statuses.length >= 3,
      `ended only after the 2 s handshake timeout: ${JSON.stringify(statuses)}`,
    );
  });

  it('POST bodies: Hubs:MaxMessageBytes passes, one byte more is 413 PAYLOAD_TOO_LARGE', async () => {
    const id = await negotiate();
    const poll = `${hubPath}?id=${id}`;
    await call(s.base, 'GET', poll, auth());
    await call(s.base, 'POST', poll, auth(), `{"protocol":"json","version":1}${RS}`);
    const ping = (size: number) => `{"type":6}${' '.repeat(size - 11)}${RS}`;
    assert.equal(ping(maxMessage).length, maxMessage);
    const headers = { ...auth(), 'content-type': 'text/plain;charset=UTF-8' };
    assert.equal((await call(s.base, 'POST', poll, headers, ping(maxMessage))).status, 200);
    const tooLarge = await call(s.base, 'POST', poll, headers, ping(maxMessage + 1));
    assert.equal(tooLarge.status, 413);
    assert.equal((JSON.parse(tooLarge.body) as { error: { code: string } }).error.code, 'PAYLOAD_TOO_LARGE');
    assert.equal((await call(s.base, 'DELETE', poll, auth())).status, 202);
  });

  it('ConnectionLimits:MaxPerUser holds for LongPolling (2 open, the third 429); unknown ids are 404', async () => {
    const user = await mintToken({ sub: 'limited' });
    const ids = [await negotiate(user), await negotiate(user), await negotiate(user)];
    const open = async (id: string) => call(s.base, 'GET', `${hubPath}?id=${id}`, bearer(user));
    assert.equal((await open(ids[0]!)).status, 200);
    assert.equal((await open(ids[1]!)).status, 200);
    const third = await open(ids[2]!);
    assert.equal(third.status, 429);
    assert.equal((JSON.parse(third.body) as { error: { code: string } }).error.code, 'CONNECTION_LIMIT');
    assert.equal((await open('never-negotiated')).status, 404);
    // HEAD neither opens a connection nor takes a poll's messages.
    assert.equal((await call(s.base, 'HEAD', `${hubPath}?id=${ids[2]!}`, bearer(user))).status, 405);
    assert.equal((await call(s.base, 'GET', hubPath, bearer(user))).status, 400);
    for (const id of ids.slice(0, 2)) {
      assert.equal((await call(s.base, 'DELETE', `${hubPath}?id=${id}`, bearer(user))).status, 202);
    }
  });

  it('Server-Sent Events: data lines; the MessagePack protocol is refused (SSE carries text only)', async () => {
    for (const [protocol, expected] of [
      ['json', new RegExp(`^data: \\{\\}${RS}\r\n\r\n`)],
      ['messagepack', /needs the binary transfer format/],
    ] as const) {
      const id = await negotiate();
      let text = '';
      const signal = new Signal();
      let ended = false;
      const req = httpRequest(
        `${s.base}${hubPath}?id=${id}&access_token=${s.token}`,
        { headers: { accept: 'text/event-stream' } },
        (res) => {
          assert.equal(res.headers['content-type'], 'text/event-stream');
          res.setEncoding('utf8');
          res.on('data', (c: string) => {
            text += c;
            signal.notify();
          });
          res.on('end', () => {
            ended = true;
            signal.notify();
          });
          signal.notify();
        },
      );
      req.end();
      await signal.until(
        () => text.startsWith(':') || undefined,
        waitLimitMs,
        () => 'open',
      );
      const sent = await call(
        s.base,
        'POST',
        `${hubPath}?id=${id}`,
        bearer(s.token),
        `{"protocol":"${protocol}","version":1}${RS}`,
      );
      assert.equal(sent.status, 200);
      await signal.until(
        () => expected.test(text.slice(3)) || undefined,
        waitLimitMs,
        () => `answer in ${text}`,
      );
      if (protocol === 'messagepack')
        await signal.until(
          () => ended || undefined,
          waitLimitMs,
          () => 'end',
        );
      else {
        // A second stream for the same id is refused.
        const again = await call(s.base, 'GET', `${hubPath}?id=${id}&access_token=${s.token}`, {
          accept: 'text/event-stream',
        });
        assert.equal(again.status, 409);
        assert.equal((await call(s.base, 'DELETE', `${hubPath}?id=${id}`, auth())).status, 202);
        await signal.until(
          () => ended || undefined,
          waitLimitMs,
          () => 'end',
        );
      }
    }
  });
});
