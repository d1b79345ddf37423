// Event streams take the token in `access_token` (a browser's EventSource cannot send an Authorization header):
// the notification SSE through the `eventsource` package without headers, the alarm streams per PLC and fleet-wide;
// the token appears in no log line, the access line's URL is redacted, nor in the admin listing or the audit trail.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { EventSource } from 'eventsource';
import { Signal } from '../../helpers/signal.ts';
import { mintToken } from '../../helpers/tokens.ts';
import { listen, startAlarmRig, type AlarmRig } from '../alarms/fixture.ts';
import { connections, RawSse, sseUrl, startStreamApp, waitLimitMs, type StreamApp } from './clients.ts';

const signatureOf = (jwt: string): string => jwt.split('.')[2]!;

describe('notification SSE with access_token in the query', () => {
  let s: StreamApp;
  const lines: string[] = [];
  const logged = new Signal();
  before(async () => {
    s = await startStreamApp('simulated', {
      logger: {
        level: 'trace',
        stream: {
          write: (line: string) => {
            lines.push(line);
            logged.notify();
          },
        },
      },
    });
  });
  after(() => s.close());

  it('EventSource without headers receives the stream; no log line, listing or audit record holds the token', async () => {
    const url = `${sseUrl(s.base, ['MAIN.nA'])}&access_token=${encodeURIComponent(s.token)}`;
    const received: string[] = [];
    const signal = new Signal();
    // The eventsource package's default fetch sends no Authorization header, as a browser's EventSource.
    const es = new EventSource(url);
    for (const type of ['subscribed', 'change']) {
      es.addEventListener(type, () => {
        received.push(type);
        signal.notify();
      });
    }
    try {
      await signal.until(
        () => received.length >= 2,
        waitLimitMs,
        () => `two events, got ${received.join(',')}`,
      );
      assert.deepEqual(received, ['subscribed', 'change']);
      const open = await connections(s);
      assert.equal(open.length, 1);
      assert.ok(!JSON.stringify(open).includes(signatureOf(s.token)), 'token in the admin listing');
    } finally {
      es.close();
    }
    // A stream refused before it opens (here: a PLC that does not exist) is answered JSON and gets an access line.
    const refused = await new RawSse(
      `${s.base}/api/plcs/nope/notifications/sse?symbols=MAIN.nA&access_token=${s.token}`,
      {},
    ).opened();
    assert.equal(refused.status, 404);
    const completed = (): Record<string, unknown> | undefined =>
      lines
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .find(
          (l) =>
            l.msg === 'request completed' &&
            String((l.req as { url?: string } | undefined)?.url).includes('/nope/notifications/sse'),
        );
    await logged.until(
      () => completed() !== undefined,
      waitLimitMs,
      () => 'the access line of the refused stream',
    );
    const accessUrl = String((completed()!.req as { url: string }).url);
    assert.equal(accessUrl, '/api/plcs/nope/notifications/sse?symbols=MAIN.nA&access_token=[REDACTED]');
    const output = lines.join('\n');
    assert.ok(!output.includes(signatureOf(s.token)), 'token signature in the log');
    const audit = await s.app.inject({
      url: '/api/admin/audit',
      headers: { authorization: `Bearer ${s.token}` },
    });
    assert.ok(!audit.body.includes(signatureOf(s.token)), 'token in the audit trail');
  });

  it('a bad token in the query: 401 as JSON before the stream opens; header and query together: 401', async () => {
    const bad = await new RawSse(`${sseUrl(s.base, ['MAIN.nA'])}&access_token=garbage`, {}).opened();
    assert.equal(bad.status, 401);
    assert.equal((await bad.json()).error?.code, 'UNAUTHORIZED');
    const both = await new RawSse(`${sseUrl(s.base, ['MAIN.nA'])}&access_token=${s.token}`, {
      authorization: `Bearer ${s.token}`,
    }).opened();
    assert.equal(both.status, 401);
    assert.match(String(both.headers['www-authenticate']), /invalid_request/);
  });

  it('a route that is not an event stream still refuses access_token', async () => {
    const res = await s.app.inject({ url: `/api/plcs?access_token=${s.token}` });
    assert.equal(res.statusCode, 401);
    assert.match(res.json<{ error: { message: string } }>().error.message, /WebSocket and event-stream/);
  });
});

describe('alarm SSE with access_token in the query', () => {
  let rig: AlarmRig;
  let base: string;
  let token: string;
  const open: RawSse[] = [];
  before(async () => {
    rig = await startAlarmRig('simulated', { settings: { RateLimiting: { NotificationConnections: 1000 } } });
    base = await listen(rig);
    token = await mintToken();
  });
  after(async () => {
    for (const s of open) s.close();
    await rig.close();
  });

  for (const path of ['/api/plcs/line1/alarms/stream', '/api/alarms/stream']) {
    it(`${path}: opened without headers, the token only in the query`, async () => {
      const stream = new RawSse(`${base}${path}?access_token=${token}`, {});
      open.push(stream);
      await stream.opened();
      assert.equal(stream.status, 200);
      assert.match(String(stream.headers['content-type']), /^text\/event-stream/);
      const refused = await new RawSse(`${base}${path}?access_token=${token}x`, {}).opened();
      assert.equal(refused.status, 401);
      assert.ok(!JSON.stringify(rig.logs).includes(signatureOf(token)), 'token in the log');
    });
  }
});
