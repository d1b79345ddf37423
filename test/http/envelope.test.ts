// The envelope on every outcome: success, 404, 405, malformed JSON, 415, 413, validation, 500 without leaks,
// and requests Node itself refuses (oversized headers, malformed HTTP) on a real socket.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { buildTestApp } from '../helpers/app.ts';
import { FakeTarget } from '../helpers/fake-target.ts';
import { bearer, mintToken } from '../helpers/tokens.ts';

let app: FastifyInstance;
let auth: { authorization: string };

before(async () => {
  auth = bearer(await mintToken());
  app = await buildTestApp({
    targets: [new FakeTarget('line1')],
    extend: (a) => {
      a.post(
        '/api/test/echo',
        { schema: { body: Type.Object({ value: Type.Integer() }) }, config: { policy: 'ReadAccess' } },
        (request) => ({ data: request.body, error: null }),
      );
      a.post('/api/test/action', { config: { policy: 'ReadAccess' } }, (request) => ({
        data: { body: request.body ?? null },
        error: null,
      }));
      a.get(
        '/api/test/cycles',
        { schema: { querystring: Type.Object({ cycles: Type.Integer({ minimum: 1, maximum: 100000 }) }) } },
        (request) => ({ data: request.query, error: null }),
      );
      a.get('/api/test/boom', () =>
        Promise.reject(new Error('secret internal detail at /srv/plc/driver.ts:42')),
      );
    },
  });
});
after(() => app.close());

function assertErrorEnvelope(body: unknown, code: string): void {
  assert.deepEqual(Object.keys(body as object).sort(), ['data', 'error']);
  const { data, error } = body as { data: unknown; error: { code: string; message: string } };
  assert.equal(data, null);
  assert.equal(error.code, code);
  assert.equal(typeof error.message, 'string');
  assert.ok(error.message.length > 0);
}

describe('envelope', () => {
  test('success has data and error null', async () => {
    const res = await app.inject({ url: '/api/plcs', headers: auth });
    assert.equal(res.statusCode, 200);
    assert.match(res.headers['content-type'] as string, /^application\/json/);
    const body = res.json();
    assert.equal(body.error, null);
    assert.ok(Array.isArray(body.data));
  });

  test('unknown route: 404 NOT_FOUND in the envelope, JSON not HTML', async () => {
    for (const url of ['/nowhere', '/api/nowhere', '/api/plcs/line1/nothing']) {
      const res = await app.inject({ url, headers: auth });
      assert.equal(res.statusCode, 404, url);
      assert.match(res.headers['content-type'] as string, /^application\/json/);
      assertErrorEnvelope(res.json(), 'NOT_FOUND');
    }
  });

  test('wrong method on a known path: 405 METHOD_NOT_ALLOWED with Allow', async () => {
    const res = await app.inject({ method: 'DELETE', url: '/api/plcs/line1/status', headers: auth });
    assert.equal(res.statusCode, 405);
    assert.equal(res.headers.allow, 'GET, HEAD');
    assertErrorEnvelope(res.json(), 'METHOD_NOT_ALLOWED');
  });

  test('malformed JSON: 400 VALIDATION_ERROR', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/api/test/echo',
      headers: { ...auth, 'content-type': 'application/json' },
      payload: '{"value": 1,',
    });
    assert.equal(res.statusCode, 400);
    assertErrorEnvelope(res.json(), 'VALIDATION_ERROR');
  });

  test('empty JSON body: 400 VALIDATION_ERROR', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/api/test/echo',
      headers: { ...auth, 'content-type': 'application/json' },
    });
    assert.equal(res.statusCode, 400);
    assertErrorEnvelope(res.json(), 'VALIDATION_ERROR');
  });

  test('empty body under a JSON content type is no body: a bodiless POST answers 200', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/api/test/action',
      headers: { ...auth, 'content-type': 'application/json' },
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), { data: { body: null }, error: null });
    // A body that is there is still parsed, and prototype keys are still refused.
    const sent = await app.inject({
      method: 'POST',
      url: '/api/test/action',
      headers: { ...auth, 'content-type': 'application/json' },
      payload: '{"a":1}',
    });
    assert.deepEqual(sent.json(), { data: { body: { a: 1 } }, error: null });
    const poisoned = await app.inject({
      method: 'POST',
      url: '/api/test/action',
      headers: { ...auth, 'content-type': 'application/json' },
      payload: '{"__proto__":{"a":1}}',
    });
    assert.equal(poisoned.statusCode, 400);
    assertErrorEnvelope(poisoned.json(), 'VALIDATION_ERROR');
  });

  test('unsupported content type: 415 UNSUPPORTED_MEDIA_TYPE (text/plain included)', async () => {
    for (const type of ['application/xml', 'text/plain']) {
      const res = await app.inject({
        method: 'POST',
        url: '/api/test/echo',
        headers: { ...auth, 'content-type': type },
        payload: '<value>1</value>',
      });
      assert.equal(res.statusCode, 415, type);
      assertErrorEnvelope(res.json(), 'UNSUPPORTED_MEDIA_TYPE');
    }
  });

  test('body over 1 MiB: 413 PAYLOAD_TOO_LARGE; just under is parsed', async () => {
    const big = JSON.stringify({ value: 1, pad: 'x'.repeat(1024 * 1024) });
    const res = await app.inject({
      method: 'POST',
      url: '/api/test/echo',
      headers: { ...auth, 'content-type': 'application/json' },
      payload: big,
    });
    assert.equal(res.statusCode, 413);
    assertErrorEnvelope(res.json(), 'PAYLOAD_TOO_LARGE');

    const fits = JSON.stringify({ value: 7, pad: 'x'.repeat(1024 * 1024 - 40) });
    const okRes = await app.inject({
      method: 'POST',
      url: '/api/test/echo',
      headers: { ...auth, 'content-type': 'application/json' },
      payload: fits,
    });
    assert.equal(okRes.statusCode, 200);
    assert.equal(okRes.json().data.value, 7);
  });

  test('schema validation: 400 VALIDATION_ERROR naming the failing field', async () => {
    const cases: Array<[string, RegExp]> = [
      ['/api/test/cycles?cycles=abc', /^querystring\/cycles must be integer/],
      ['/api/test/cycles?cycles=0', /^querystring\/cycles must be >= 1/],
      ['/api/test/cycles?cycles=100001', /^querystring\/cycles must be <= 100000/],
      ['/api/test/cycles', /^querystring must have required property 'cycles'/],
      // Duplicate parameters arrive as an array, which an integer field refuses.
      ['/api/test/cycles?cycles=1&cycles=2', /^querystring\/cycles must be integer/],
    ];
    for (const [url, message] of cases) {
      const res = await app.inject({ url, headers: auth });
      assert.equal(res.statusCode, 400, url);
      assertErrorEnvelope(res.json(), 'VALIDATION_ERROR');
      assert.match(res.json<{ error: { message: string } }>().error.message, message, url);
    }
    const body = await app.inject({
      method: 'POST',
      url: '/api/test/echo',
      headers: auth,
      payload: { value: 'x' },
    });
    assert.equal(body.json().error.message, 'body/value must be integer');
  });

  test('duplicate query parameters on a route without a query schema are harmless', async () => {
    const res = await app.inject({ url: '/api/plcs?x=1&x=2&x=3', headers: auth });
    assert.equal(res.statusCode, 200);
  });

  test('unexpected failure: 500 INTERNAL_ERROR without stack or internal message', async () => {
    const res = await app.inject({ url: '/api/test/boom', headers: auth });
    assert.equal(res.statusCode, 500);
    assertErrorEnvelope(res.json(), 'INTERNAL_ERROR');
    assert.doesNotMatch(res.body, /secret|driver\.ts|at |stack/);
  });

  test('a malformed URL escape: 400 VALIDATION_ERROR, not 500', async () => {
    const res = await app.inject({ url: '/api/plcs/%E0%A4%A/status', headers: auth });
    assert.equal(res.statusCode, 400);
    assertErrorEnvelope(res.json(), 'VALIDATION_ERROR');
  });
});

describe('requests Node refuses before routing', () => {
  let port: number;
  before(async () => {
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    port = typeof address === 'object' && address !== null ? address.port : 0;
  });

  /** Sends raw bytes and resolves with everything the server answers before it closes the socket. */
  function rawExchange(request: string): Promise<string> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => socket.write(request));
      let answer = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => (answer += chunk));
      socket.on('close', () => resolve(answer));
      socket.on('error', reject);
    });
  }

  function parse(answer: string): { status: number; headers: string; body: unknown } {
    const split = answer.indexOf('\r\n\r\n');
    const head = answer.slice(0, split);
    return { status: Number(head.split(' ')[1]), headers: head, body: JSON.parse(answer.slice(split + 4)) };
  }

  test('headers over the limit: 431 in the envelope', async () => {
    const answer = parse(
      await rawExchange(`GET /api/plcs HTTP/1.1\r\nHost: x\r\nX-Pad: ${'a'.repeat(20_000)}\r\n\r\n`),
    );
    assert.equal(answer.status, 431);
    assert.match(answer.headers, /content-type: application\/json/i);
    assertErrorEnvelope(answer.body, 'VALIDATION_ERROR');
  });

  test('malformed HTTP: 400 in the envelope', async () => {
    const answer = parse(await rawExchange('GET /api/plcs HTTP/1.1\r\nHost x\r\n\r\n'));
    assert.equal(answer.status, 400);
    assertErrorEnvelope(answer.body, 'VALIDATION_ERROR');
  });
});
