// One caller per request and claims exactly as documented, through HTTP: repeated Authorization headers, a
// header together with access_token on WebSocket routes, plc_access and scope forms, iat in the future, nbf,
// and base64 padding in the signature.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { buildTestApp } from '../helpers/app.ts';
import { FakeTarget } from '../helpers/fake-target.ts';
import { bearer, mintToken } from '../helpers/tokens.ts';

const nowSeconds = () => Math.floor(Date.now() / 1000);

interface Answer {
  status: number;
  code: string | null;
  data: unknown;
}

async function get(app: FastifyInstance, url: string, headers: Record<string, string | string[]> = {}) {
  const res = await app.inject({ url, headers });
  const body = res.json<{ data: unknown; error: { code: string } | null }>();
  return { status: res.statusCode, code: body.error?.code ?? null, data: body.data } satisfies Answer;
}

/** A real request over a socket, so the repeated headers reach Node's parser as a client sends them. */
function overSocket(port: number, path: string, headers: Record<string, string | string[]>): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        const body = JSON.parse(text) as { data: unknown; error: { code: string } | null };
        resolve({ status: res.statusCode ?? 0, code: body.error?.code ?? null, data: body.data });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

describe('one caller per request', () => {
  let app: FastifyInstance;
  let port: number;
  let viewer: string;
  let operator: string;
  before(async () => {
    app = await buildTestApp({
      targets: [new FakeTarget('line1')],
      extend: (a) => {
        const whoAmI = (request: { principal: { sub: string } | null }) => ({
          data: request.principal?.sub ?? null,
          error: null,
        });
        a.get('/api/test/whoami', whoAmI);
        a.get('/api/test/ws-config', { config: { websocket: true } }, whoAmI);
        // Declared as @fastify/websocket declares a route serving both plain HTTP and upgrades: a wsHandler
        // option, not a config entry (a `websocket: true` route answers plain HTTP with 404).
        a.route({
          method: 'GET',
          url: '/api/test/ws-option',
          handler: whoAmI,
          wsHandler: (socket) => socket.close(),
        });
      },
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    port = (app.server.address() as { port: number }).port;
    viewer = await mintToken({ sub: 'viewer-user', role: 'viewer', scope: 'ads:read' });
    operator = await mintToken({ sub: 'operator-user', role: 'operator', scope: 'ads:read ads:write' });
  });
  after(() => app.close());

  test('one Authorization header is served as its caller', async () => {
    const answer = await overSocket(port, '/api/test/whoami', bearer(viewer));
    assert.deepEqual(answer, { status: 200, code: null, data: 'viewer-user' });
  });

  const pairs: Array<[string, () => string[]]> = [
    ['viewer then operator', () => [`Bearer ${viewer}`, `Bearer ${operator}`]],
    ['operator then viewer', () => [`Bearer ${operator}`, `Bearer ${viewer}`]],
    ['valid then garbage', () => [`Bearer ${viewer}`, 'Bearer garbage']],
    ['the same token twice', () => [`Bearer ${viewer}`, `Bearer ${viewer}`]],
  ];
  for (const [name, values] of pairs) {
    test(`two Authorization headers (${name}): 401 in the envelope, never served`, async () => {
      for (const answer of [
        await overSocket(port, '/api/test/whoami', { authorization: values() }),
        await get(app, '/api/test/whoami', { authorization: values() }),
        await get(app, '/api/plcs/line1/status', { authorization: values() }),
      ]) {
        assert.equal(answer.status, 401);
        assert.equal(answer.code, 'UNAUTHORIZED');
        assert.equal(answer.data, null);
      }
    });
  }

  for (const route of ['/api/test/ws-config', '/api/test/ws-option']) {
    test(`${route}: the query token alone is served; with a bearer header as well, 401`, async () => {
      const alone = await get(app, `${route}?access_token=${viewer}`);
      assert.deepEqual(alone, { status: 200, code: null, data: 'viewer-user' });
      const header = await get(app, route, bearer(operator));
      assert.deepEqual(header, { status: 200, code: null, data: 'operator-user' });
      for (const [query, headerToken] of [
        [viewer, operator],
        [operator, viewer],
        [viewer, viewer],
        ['garbage', viewer],
      ] as const) {
        const both = await get(app, `${route}?access_token=${query}`, bearer(headerToken));
        assert.deepEqual(both, { status: 401, code: 'UNAUTHORIZED', data: null });
      }
    });
  }
});

describe('claims exactly as documented', () => {
  const plcStatus = '/api/plcs/line1/status';
  let strict: FastifyInstance;
  let lenient: FastifyInstance;
  before(async () => {
    strict = await buildTestApp({ targets: [new FakeTarget('line1')] });
    lenient = await buildTestApp({
      targets: [new FakeTarget('line1')],
      settings: { Auth: { PlcAccessClaimFormat: 'JsonArrayOrString' } },
    });
  });
  after(async () => {
    await strict.close();
    await lenient.close();
  });

  test('plc_access as a JSON array grants its PLCs', async () => {
    const token = await mintToken({ plc_access: ['line1'] });
    assert.equal((await get(strict, plcStatus, bearer(token))).status, 200);
  });

  test('plc_access as a string, even one holding a JSON array, grants nothing by default', async () => {
    for (const claim of ['["line1"]', '["*"]', 'line1', '*']) {
      const token = await mintToken({ plc_access: claim });
      const answer = await get(strict, plcStatus, bearer(token));
      assert.equal(answer.code, 'PLC_ACCESS_DENIED', claim);
      const list = await get(strict, '/api/plcs', bearer(token));
      assert.equal(list.code, 'PLC_ACCESS_DENIED', claim);
    }
  });

  test('Auth.PlcAccessClaimFormat JsonArrayOrString accepts the array JSON-encoded in a string', async () => {
    for (const claim of ['["line1"]', '["*"]']) {
      const token = await mintToken({ plc_access: claim });
      assert.equal((await get(lenient, plcStatus, bearer(token))).status, 200, claim);
    }
    const plain = await mintToken({ plc_access: 'line1' });
    assert.equal((await get(lenient, plcStatus, bearer(plain))).code, 'PLC_ACCESS_DENIED');
  });

  test('scope is a space-separated string; an array there grants nothing; scp may be an array', async () => {
    const cases: Array<[Record<string, unknown>, number]> = [
      [{ role: 'viewer', scope: 'ads:read' }, 200],
      [{ role: 'viewer', scope: ['ads:read'] }, 403],
      [{ role: 'viewer', scope: undefined, scp: ['ads:read'] }, 200],
      [{ role: 'viewer', scope: undefined, scp: 'ads:read' }, 200],
    ];
    for (const [claims, status] of cases) {
      const token = await mintToken(claims);
      assert.equal((await get(strict, plcStatus, bearer(token))).status, status, JSON.stringify(claims));
    }
  });

  test('iat more than ClockSkewSeconds (30) in the future: 401; within the skew: served', async () => {
    const future = await mintToken({ iat: nowSeconds() + 120 });
    assert.equal((await get(strict, plcStatus, bearer(future))).code, 'UNAUTHORIZED');
    const withinSkew = await mintToken({ iat: nowSeconds() + 10 });
    assert.equal((await get(strict, plcStatus, bearer(withinSkew))).status, 200);
  });

  test('nbf is honoured', async () => {
    const notYet = await mintToken({ nbf: nowSeconds() + 120 });
    assert.equal((await get(strict, plcStatus, bearer(notYet))).code, 'UNAUTHORIZED');
  });

  test('a signature (or any segment) with base64 padding is refused', async () => {
    const token = await mintToken();
    assert.equal((await get(strict, plcStatus, bearer(token))).status, 200);
    const [header, payload, signature] = token.split('.') as [string, string, string];
    for (const padded of [
      `${header}.${payload}.${signature}=`,
      `${header}.${payload}.${signature}==`,
      `${header}=.${payload}.${signature}`,
      `${header}.${payload}=.${signature}`,
    ]) {
      assert.deepEqual(await get(strict, plcStatus, bearer(padded)), {
        status: 401,
        code: 'UNAUTHORIZED',
        data: null,
      });
    }
  });
});
