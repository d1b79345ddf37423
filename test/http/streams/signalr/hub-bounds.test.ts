// What one hub client can make the gateway hold or do, over real sockets: bytes without a record separator (held
// up to Hubs:MaxUnparsedBytes, then a Close naming the bound), the WebSocket message size, a handshake that must
// complete in time whatever the client sends, the invocation rate per connection, and pending negotiations per
// user and in all (one user's flood never evicts another's).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { manualClock } from '../../../helpers/app.ts';
import { RawHub } from '../../../helpers/raw-hub.ts';
import { bearer, mintToken } from '../../../helpers/tokens.ts';
import { startStreamApp, type StreamApp } from '../../../features/notifications/clients.ts';

const hubPath = '/api/plcs/plc1/notifications/ws';

function wsUrl(s: StreamApp, token: string, extra = ''): string {
  return `${s.base.replace('http', 'ws')}${hubPath}?access_token=${token}${extra}`;
}

/** An invocation record of exactly `bytes` bytes (no separator), padded in a string argument. */
function invocationOf(bytes: number, id: string): string {
  const head = `{"type":1,"invocationId":"${id}","target":"NoSuchMethod","arguments":[],"pad":"`;
  const tail = '"}';
  return head + 'x'.repeat(bytes - head.length - tail.length) + tail;
}

describe('hub connection: bytes held unparsed and the message size', () => {
  let s: StreamApp;
  before(async () => {
    s = await startStreamApp('simulated', {
      settings: { Hubs: { MaxUnparsedBytes: 1000, MaxMessageBytes: 800 } },
    });
  });
  after(async () => {
    await s.close();
  });

  it('a record of MaxUnparsedBytes arriving in parts is held and parsed', async () => {
    const c = await new RawHub(wsUrl(s, s.token)).handshake();
    const record = invocationOf(1000, 'held');
    await c.sendRaw(record.slice(0, 600));
    await c.sendRaw(record.slice(600));
    await c.sendRaw('\u001e');
    const done = await c.next((m) => m.invocationId === 'held');
    assert.equal(done.error, "Unknown hub method 'NoSuchMethod'.");
    assert.equal(c.closed, undefined);
    c.close();
  });

  it('one byte more without a separator: Close with an error naming the bound, then the socket closes', async () => {
    const c = await new RawHub(wsUrl(s, s.token)).handshake();
    const record = invocationOf(1001, 'over');
    await c.sendRaw(record.slice(0, 600));
    await c.sendRaw(record.slice(600));
    const close = await c.next((m) => m.type === 7);
    assert.match(String(close.error), /^PAYLOAD_TOO_LARGE: .*1001 bytes.*Hubs:MaxUnparsedBytes/);
    assert.equal(close.allowReconnect, undefined);
    assert.equal((await c.closedWith()).code, 1000);
    assert.ok(c.messages.every((m) => m.invocationId !== 'over'));
  });

  it('many messages without a separator cannot pile up: the connection closes at the bound', async () => {
    const c = await new RawHub(wsUrl(s, s.token)).handshake();
    // Each message alone is allowed; together they pass MaxUnparsedBytes on the third.
    for (let i = 0; i < 3; i++) await c.sendRaw('{' + ' '.repeat(399));
    const close = await c.next((m) => m.type === 7);
    assert.match(String(close.error), /1200 bytes.*at most 1000/);
    await c.closedWith();
  });

  it('Hubs:MaxMessageBytes is the WebSocket message limit: at it parsed, one byte over closed with 1009', async () => {
    const c = await new RawHub(wsUrl(s, s.token)).handshake();
    await c.sendRaw(invocationOf(799, 'max') + '\u001e');
    assert.equal((await c.next((m) => m.invocationId === 'max')).error, "Unknown hub method 'NoSuchMethod'.");
    await c.sendRaw(invocationOf(800, 'too big') + '\u001e');
    assert.equal((await c.closedWith()).code, 1009);
    assert.ok(c.messages.every((m) => m.invocationId !== 'too big'));
  });
});

describe('hub connection: the handshake timeout', () => {
  let s: StreamApp;
  before(async () => {
    s = await startStreamApp('simulated', {
      streamTimings: { handshakeTimeoutMs: 200, clientTimeoutMs: 60_000, pingIntervalMs: 60_000 },
    });
  });
  after(async () => {
    await s.close();
  });

  it('a client that keeps sending without completing the handshake is closed when the handshake times out', async () => {
    const c = await new RawHub(wsUrl(s, s.token)).open();
    await c.sendRaw('{');
    // Traffic for as long as the connection lasts: it must not extend the wait for the handshake.
    let sent = 0;
    const trickle = setInterval(() => {
      if (c.closed === undefined) {
        sent += 1;
        c.socket.send(' ');
      }
    }, 20);
    try {
      assert.equal((await c.closedWith()).code, 1000);
    } finally {
      clearInterval(trickle);
    }
    assert.ok(sent > 0);
    assert.deepEqual(c.messages, []);
  });

  it('a handshake within the timeout is answered and the client timeout applies from then on', async () => {
    const c = await new RawHub(wsUrl(s, s.token)).handshake();
    assert.deepEqual(c.messages[0], {});
    c.close();
  });
});

describe('hub connection: invocations per second per connection', () => {
  let s: StreamApp;
  const clock = manualClock();
  before(async () => {
    s = await startStreamApp('simulated', {
      now: clock.now,
      settings: { Hubs: { InvocationsPerSecond: 3, MaxRefusedInvocations: 2 } },
    });
  });
  after(async () => {
    await s.close();
  });

  it('N invocations run, N+1 completes with RATE_LIMITED; refusals past the maximum in a row close', async () => {
    const c = await new RawHub(wsUrl(s, s.token)).handshake();
    const unknown = "Unknown hub method 'NoSuchMethod'.";
    for (const id of ['1', '2', '3']) assert.equal((await c.invoke(id, 'NoSuchMethod')).error, unknown);
    for (const id of ['4', '5']) {
      assert.match(
        String((await c.invoke(id, 'NoSuchMethod')).error),
        /^RATE_LIMITED: At most 3 invocations per second per connection \(Hubs:InvocationsPerSecond\)/,
      );
    }
    // A second later the budget is full again, and the refusals in a row start over.
    clock.advance(1000);
    for (const id of ['6', '7', '8']) assert.equal((await c.invoke(id, 'NoSuchMethod')).error, unknown);
    for (const id of ['9', '10'])
      assert.match(String((await c.invoke(id, 'NoSuchMethod')).error), /^RATE_LIMITED/);
    assert.equal(c.closed, undefined);
    c.send({ type: 1, invocationId: '11', target: 'NoSuchMethod', arguments: [] });
    const close = await c.next((m) => m.type === 7);
    assert.match(String(close.error), /^RATE_LIMITED: .*Hubs:MaxRefusedInvocations/);
    await c.closedWith();
    assert.ok(c.messages.every((m) => m.invocationId !== '11'));
  });

  it('each connection has its own budget', async () => {
    const a = await new RawHub(wsUrl(s, s.token)).handshake();
    const b = await new RawHub(wsUrl(s, s.token)).handshake();
    for (const id of ['1', '2', '3']) await a.invoke(id, 'NoSuchMethod');
    assert.match(String((await a.invoke('4', 'NoSuchMethod')).error), /^RATE_LIMITED/);
    assert.equal((await b.invoke('1', 'NoSuchMethod')).error, "Unknown hub method 'NoSuchMethod'.");
    a.close();
    b.close();
  });
});

describe('hub negotiation: pending negotiations per user and in all', () => {
  let s: StreamApp;
  const clock = manualClock();
  const tokens: Record<string, string> = {};
  before(async () => {
    s = await startStreamApp('simulated', {
      now: clock.now,
      settings: { Hubs: { MaxPendingNegotiationsPerUser: 2, MaxPendingNegotiations: 3 } },
    });
    for (const sub of ['alice', 'bob', 'carol']) tokens[sub] = await mintToken({ sub });
  });
  after(async () => {
    await s.close();
  });

  const negotiate = async (sub: string) => {
    const res = await s.app.inject({
      method: 'POST',
      url: `${hubPath}/negotiate?negotiateVersion=1`,
      headers: bearer(tokens[sub] ?? ''),
    });
    return {
      status: res.statusCode,
      body: res.json<{ connectionToken?: string; error?: { code: string; message: string } }>(),
    };
  };

  it("one user's flood is refused at the per-user bound and evicts no other user's negotiation", async () => {
    const first = await negotiate('alice');
    assert.equal(first.status, 200);
    assert.equal((await negotiate('alice')).status, 200);
    const refused = await negotiate('alice');
    assert.equal(refused.status, 429);
    assert.equal(refused.body.error?.code, 'NEGOTIATION_LIMIT');
    assert.match(refused.body.error?.message ?? '', /Hubs:MaxPendingNegotiationsPerUser 2/);

    assert.equal((await negotiate('bob')).status, 200);
    const full = await negotiate('carol');
    assert.equal(full.status, 429);
    assert.equal(full.body.error?.code, 'NEGOTIATION_LIMIT');
    assert.match(full.body.error?.message ?? '', /Hubs:MaxPendingNegotiations 3/);

    // Alice's first negotiation still connects; using it frees her place.
    const c = await new RawHub(
      wsUrl(s, tokens.alice ?? '', `&id=${first.body.connectionToken ?? ''}`),
    ).handshake();
    assert.deepEqual(c.messages[0], {});
    c.close();
    assert.equal((await negotiate('alice')).status, 200);

    // Expired negotiations free their places.
    clock.advance(60_000);
    assert.equal((await negotiate('carol')).status, 200);
    assert.equal((await negotiate('alice')).status, 200);
  });
});
