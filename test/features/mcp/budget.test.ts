// What one MCP client may spend, over plain JSON-RPC POSTs: every message of a batch spends GlobalPerUser, each
// tool call its route's limit, sessions initialized at the same moment stay within Mcp.MaxSessionsPerUser, and the
// POST body is bounded in size (Mcp.MaxBodyBytes) and in time (Http.RequestTimeoutMs).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { manualClock } from '../../helpers/app.ts';
import { mintToken } from '../../helpers/tokens.ts';
import { startMcpRig, viewer, type McpRig } from './fixture.ts';
import { initialize, openSession, ping, postRpc, toolCall } from './raw-rpc.ts';

const clock = manualClock(Date.UTC(2026, 10, 28, 8, 0, 0));
/** Starts a fresh one-second window of every limit. */
const nextWindow = () => clock.advance(1000 - (clock.now() % 1000));
const maxBodyBytes = 4096;

let rig: McpRig;
before(async () => {
  rig = await startMcpRig({
    now: clock.now,
    settings: {
      RateLimiting: { GlobalPerUser: 6, SymbolBrowsing: 2 },
      Mcp: { MaxSessionsPerUser: 2, MaxBodyBytes: maxBodyBytes },
      Http: { HeadersTimeoutMs: 300, RequestTimeoutMs: 600 },
    },
  });
});
after(() => rig.close());

const pings = (n: number) => Array.from({ length: n }, (_, i) => ping(i + 1));

test('a batch spends GlobalPerUser once per message: GlobalPerUser messages pass, one more is 429', async () => {
  const { token, session } = await openSession(rig.url, { ...viewer, sub: 'batcher' });
  nextWindow();
  const full = await postRpc(rig.url, token, pings(6), session);
  assert.equal(full.status, 200);
  assert.deepEqual(
    full.messages.map((m) => [m.id, m.result]),
    [1, 2, 3, 4, 5, 6].map((id) => [id, {}]),
  );
  // The batch spent the whole window: even a single message is refused now.
  const after = await postRpc(rig.url, token, ping(7), session);
  assert.equal(after.status, 429);
  assert.equal(after.envelope?.error.code, 'RATE_LIMITED');

  nextWindow();
  const over = await postRpc(rig.url, token, pings(7), session);
  assert.equal(over.status, 429);
  assert.equal(over.envelope?.error.code, 'RATE_LIMITED');
  assert.match(over.envelope?.error.message ?? '', /GlobalPerUser/);
  assert.equal(over.headers.get('retry-after'), '1');
  assert.equal(over.messages.length, 0, 'no message of a refused batch runs');
  nextWindow();
  assert.equal((await postRpc(rig.url, token, ping(8), session)).status, 200);
});

test('each tool call of a batch spends the limit of the route it mirrors (SymbolBrowsing at its edge)', async () => {
  const { token, session } = await openSession(rig.url, { ...viewer, sub: 'browser' });
  nextWindow();
  const browse = (id: number) => toolCall(id, 'browse_symbols', { plcId: 'line1', depth: 0 });
  const answered = await postRpc(rig.url, token, [browse(1), browse(2), browse(3)], session);
  assert.equal(answered.status, 200);
  const outcomes = answered.messages
    .map((m) => {
      const result = m.result as { isError?: boolean; content: Array<{ text: string }> };
      return result.isError === true
        ? (JSON.parse(result.content[0]!.text) as { error: { code: string } }).error.code
        : 'ok';
    })
    .sort();
  assert.deepEqual(outcomes, ['RATE_LIMITED', 'ok', 'ok']);
});

test('initializations sent at the same moment stay within Mcp.MaxSessionsPerUser', async () => {
  const token = await mintToken({ ...viewer, sub: 'racer' });
  nextWindow();
  const answers = await Promise.all([1, 2, 3].map((id) => postRpc(rig.url, token, initialize(id))));
  assert.deepEqual(answers.map((a) => a.status).sort(), [200, 200, 429]);
  const refused = answers.find((a) => a.status === 429);
  assert.equal(refused?.envelope?.error.code, 'CONNECTION_LIMIT');
  assert.match(refused?.envelope?.error.message ?? '', /Mcp\.MaxSessionsPerUser/);
  // The refused one left no place behind: the two sessions are all this user holds.
  nextWindow();
  assert.equal((await postRpc(rig.url, token, initialize(4))).status, 429);
});

test('Mcp.MaxBodyBytes: a body of exactly the bound is served, one byte more is 413 in the envelope', async () => {
  const { token, session } = await openSession(rig.url, { ...viewer, sub: 'sender' });
  const sized = (bytes: number) => {
    const text = JSON.stringify(ping(1));
    return text.slice(0, -1) + ' '.repeat(bytes - text.length) + '}';
  };
  assert.equal(Buffer.byteLength(sized(maxBodyBytes)), maxBodyBytes);
  nextWindow();
  const fits = await postRpc(rig.url, token, sized(maxBodyBytes), session);
  assert.equal(fits.status, 200);
  assert.deepEqual(fits.messages[0]?.result, {});
  const over = await postRpc(rig.url, token, sized(maxBodyBytes + 1), session);
  assert.equal(over.status, 413);
  assert.equal(over.envelope?.error.code, 'PAYLOAD_TOO_LARGE');
});

test('a POST /mcp body that never completes is cut at Http.RequestTimeoutMs: 408, connection closed', async () => {
  const token = await mintToken({ ...viewer, sub: 'trickler' });
  nextWindow();
  const socket = connect(Number(rig.url.port), '127.0.0.1');
  let answer = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (answer += chunk));
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.write(
    'POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
      `Accept: application/json, text/event-stream\r\nAuthorization: Bearer ${token}\r\n` +
      'Content-Length: 1000\r\n\r\n{"jsonrpc":"2.0",',
  );
  await closed;
  assert.match(answer, /^HTTP\/1\.1 408 /);
  const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as { error: { code: string } };
  assert.equal(body.error.code, 'VALIDATION_ERROR');
});
