// Requests Node would answer without the envelope (no Host, two Hosts, an unknown Expect, CONNECT), and slow
// clients cut off by the Http timeouts, on raw sockets.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { buildTestApp } from '../helpers/app.ts';

interface Parsed {
  status: number;
  head: string;
  body: { data: unknown; error: { code: string; message: string } | null };
}

function parse(answer: string): Parsed {
  const split = answer.indexOf('\r\n\r\n');
  const head = answer.slice(0, split);
  return {
    status: Number(head.split(' ')[1]),
    head,
    body: JSON.parse(answer.slice(split + 4)) as Parsed['body'],
  };
}

async function listen(app: FastifyInstance): Promise<number> {
  await app.listen({ host: '127.0.0.1', port: 0 });
  return (app.server.address() as { port: number }).port;
}

/** Opens a socket and collects everything the server sends until it closes the connection. */
function open(port: number): { socket: Socket; closed: Promise<string> } {
  const socket = connect(port, '127.0.0.1');
  let answer = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (answer += chunk));
  // A reset after the answer (the client still writing as the server closes) ends the exchange like a close: the
  // assertions are on the answer received.
  socket.on('error', () => undefined);
  const closed = new Promise<string>((resolve) => socket.once('close', () => resolve(answer)));
  return { socket, closed };
}

describe('every answer in the envelope', () => {
  let app: FastifyInstance;
  let port: number;
  before(async () => {
    app = await buildTestApp();
    port = await listen(app);
  });
  after(() => app.close());

  const exchange = async (request: string): Promise<Parsed> => {
    const { socket, closed } = open(port);
    socket.end(request);
    return parse(await closed);
  };

  test('HTTP/1.1 without a Host header: 400 VALIDATION_ERROR in the envelope', async () => {
    const answer = await exchange('GET /health/live HTTP/1.1\r\nConnection: close\r\n\r\n');
    assert.equal(answer.status, 400);
    assert.match(answer.head, /content-type: application\/json/i);
    assert.equal(answer.body.data, null);
    assert.equal(answer.body.error?.code, 'VALIDATION_ERROR');
    assert.match(answer.body.error?.message ?? '', /Host/);
  });

  test('two Host headers: 400 in the envelope', async () => {
    const answer = await exchange(
      'GET /health/live HTTP/1.1\r\nHost: a\r\nHost: b\r\nConnection: close\r\n\r\n',
    );
    assert.equal(answer.status, 400);
    assert.equal(answer.body.error?.code, 'VALIDATION_ERROR');
  });

  test('HTTP/1.0 may omit Host and is served', async () => {
    const answer = await exchange('GET /health/live HTTP/1.0\r\n\r\n');
    assert.equal(answer.status, 200);
  });

  test('an Expect other than 100-continue: 417 in the envelope', async () => {
    const answer = await exchange(
      'POST /api/plcs HTTP/1.1\r\nHost: x\r\nExpect: something-else\r\nContent-Length: 0\r\nConnection: close\r\n\r\n',
    );
    assert.equal(answer.status, 417);
    assert.equal(answer.body.error?.code, 'VALIDATION_ERROR');
  });

  test('CONNECT: 405 in the envelope', async () => {
    const answer = await exchange('CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n');
    assert.equal(answer.status, 405);
    assert.equal(answer.body.error?.code, 'METHOD_NOT_ALLOWED');
  });
});

describe('slow clients cut off (Http timeouts)', () => {
  let app: FastifyInstance;
  let port: number;
  before(async () => {
    app = await buildTestApp({
      settings: { Http: { HeadersTimeoutMs: 300, RequestTimeoutMs: 600, KeepAliveTimeoutMs: 200 } },
    });
    port = await listen(app);
  });
  after(() => app.close());

  /** Writes `first`, then `next()` every 50 ms until the server closes the connection; returns its answer. */
  async function trickle(first: string, next: () => string): Promise<string> {
    const { socket, closed } = open(port);
    socket.write(first);
    const timer = setInterval(() => {
      if (!socket.destroyed && socket.writable) socket.write(next());
    }, 50);
    // Once the answer starts, writing more would only meet a closed socket.
    socket.once('data', () => clearInterval(timer));
    try {
      return await closed;
    } finally {
      clearInterval(timer);
    }
  }

  test(
    'headers trickled one line at a time: 408 in the envelope, connection closed',
    { timeout: 20_000 },
    async () => {
      let n = 0;
      const answer = await trickle('GET /health/live HTTP/1.1\r\nHost: x\r\n', () => `X-Slow-${n++}: a\r\n`);
      const parsed = parse(answer);
      assert.equal(parsed.status, 408);
      assert.equal(parsed.body.error?.code, 'VALIDATION_ERROR');
    },
  );

  test(
    'a body trickled one byte at a time: 408 in the envelope, connection closed',
    { timeout: 20_000 },
    async () => {
      const answer = await trickle(
        'POST /health/live HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n',
        () => ' ',
      );
      const parsed = parse(answer);
      assert.equal(parsed.status, 408);
      assert.equal(parsed.body.error?.code, 'VALIDATION_ERROR');
    },
  );

  test('an idle kept-alive connection is closed after KeepAliveTimeoutMs', { timeout: 20_000 }, async () => {
    const { socket, closed } = open(port);
    socket.write('GET /health/live HTTP/1.1\r\nHost: x\r\n\r\n');
    const answer = await closed;
    assert.match(answer, /^HTTP\/1\.1 200/);
    assert.match(answer, /keep-alive/i);
  });
});
