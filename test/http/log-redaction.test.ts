// No token in any log line: requests carrying a JWT in every place a client or an attacker might put one, refused
// or served, and the captured log output searched for the token.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { buildTestApp } from '../helpers/app.ts';
import { FakeTarget } from '../helpers/fake-target.ts';
import { bearer, mintToken } from '../helpers/tokens.ts';

describe('request logs never carry a token', () => {
  let app: FastifyInstance;
  let lines: string[];
  let token: string;
  before(async () => {
    lines = [];
    app = await buildTestApp({
      targets: [new FakeTarget('line1')],
      logger: { level: 'trace', stream: { write: (line: string) => void lines.push(line) } },
      extend: (a) => {
        a.get('/api/test/ws', { config: { websocket: true } }, () => ({ data: null, error: null }));
      },
    });
    token = await mintToken({ sub: 'log-test-user' });
  });
  after(() => app.close());

  const signatureOf = (jwt: string): string => jwt.split('.')[2]!;

  const urls = (t: string): string[] => {
    const enc = encodeURIComponent(t);
    return [
      `/api/plcs?access_token=${t}`,
      `/api/plcs?access_token[]=${t}`,
      `/api/plcs?access_token[0]=${t}`,
      `/api/plcs?access_token%00=${t}`,
      `/api/plcs?%20access_token=${t}`,
      `/api/plcs?Access-Token=${t}`,
      `/api/plcs?token=${t}`,
      `/api/plcs?id_token=${t}`,
      `/api/plcs?refresh_token=${t}`,
      `/api/plcs?jwt=${t}`,
      `/api/plcs?bearer=${t}`,
      `/api/plcs?authorization=Bearer%20${t}`,
      `/api/plcs?q=${t}`,
      `/api/plcs?q=Bearer%20${enc}`,
      `/api/plcs?q=${t.replace(/\./g, '%2E')}`,
      `/api/plcs?q=x&q=${t}`,
      `/api/plcs?${t}`,
      `/api/plcs/${t}/status`,
      `/api/plcs/line1/variables/${t}`,
      `/api/test/ws?access_token=${t}`,
      `/api/test/ws?access_token=${t}&access_token=${t}`,
      `/no/such/route?access_token=${t}`,
      `/api/plcs/%E0%A4%A/status?access_token=${t}`,
      `/health/live?token=${t}`,
      `/api/plcs?${'x'.repeat(3000)}&access_token=${t}`,
    ];
  };

  test('served and refused requests alike: the token is nowhere in the output', async () => {
    const statuses = new Set<number>();
    for (const url of urls(token)) {
      for (const headers of [{}, bearer(token)]) {
        const res = await app.inject({ url, headers });
        statuses.add(res.statusCode);
      }
    }
    const res = await app.inject({
      method: 'DELETE',
      url: `/api/plcs?access_token=${token}`,
      headers: bearer(token),
    });
    statuses.add(res.statusCode);
    // The table reaches served, refused, unknown-route, bad-URL and wrong-method answers.
    for (const status of [200, 400, 401, 404, 405]) assert.ok(statuses.has(status), `no ${status} answer`);

    const output = lines.join('');
    assert.ok(output.includes('/api/plcs'), 'requests were logged');
    assert.ok(output.includes('[REDACTED]'), 'redactions were logged');
    assert.equal(output.includes(signatureOf(token)), false, 'the token signature appears in the log');
    assert.equal(output.includes(token.split('.')[1]!), false, 'the token payload appears in the log');
  });

  test('a URL logged before is logged alike again: a clean one as it is, one holding a token redacted', async () => {
    const logged = (from: number): string[] =>
      lines
        .slice(from)
        .map((l) => JSON.parse(l) as { msg?: string; req?: { url?: string } })
        .filter((l) => l.msg === 'request completed')
        .map((l) => l.req?.url ?? '');
    const from = lines.length;
    const clean = '/api/plcs?q=GVL_HMI.aAxes%5B3%5D.rPosition';
    const holding = `/api/plcs?q=${token}`;
    for (let i = 0; i < 3; i++) {
      await app.inject({ url: clean, headers: bearer(token) });
      await app.inject({ url: holding, headers: bearer(token) });
    }
    // More distinct clean URLs than the logger remembers, then both again.
    for (let i = 0; i < 1100; i++) await app.inject({ url: `/api/plcs?q=${i}`, headers: bearer(token) });
    await app.inject({ url: clean, headers: bearer(token) });
    await app.inject({ url: holding, headers: bearer(token) });
    const urls = logged(from);
    assert.equal(urls.length, 1108);
    assert.deepEqual(
      urls.filter((u) => u.startsWith('/api/plcs?q=GVL')),
      Array.from({ length: 4 }, () => clean),
    );
    assert.deepEqual(
      urls.filter((u) => u.includes('REDACTED')),
      Array.from({ length: 4 }, () => '/api/plcs?q=[REDACTED]'),
    );
    assert.equal(lines.slice(from).join('').includes(signatureOf(token)), false);
  });
});

describe('lines that carry headers', () => {
  test('credential headers are masked wherever a line logs a header set or a request', async () => {
    const lines: string[] = [];
    const app = await buildTestApp({
      logger: { level: 'trace', stream: { write: (line: string) => void lines.push(line) } },
      extend: (a) => {
        a.get('/api/test/headers', (request) => {
          request.log.warn({ headers: request.headers, req: request }, 'diagnostic line');
          return { data: null, error: null };
        });
      },
    });
    try {
      const token = await mintToken({ sub: 'header-test-user' });
      await app.inject({
        url: '/api/test/headers',
        headers: { ...bearer(token), cookie: `session=${token}`, 'x-trace': 'kept' },
      });
      const line = lines
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .find((l) => l.msg === 'diagnostic line');
      assert.ok(line, 'the diagnostic line was written');
      const headers = line.headers as Record<string, unknown>;
      assert.equal(headers.authorization, '[REDACTED]');
      assert.equal(headers.cookie, '[REDACTED]');
      assert.equal(headers['x-trace'], 'kept');
      assert.equal(
        lines.join('').includes(token.split('.')[2]!),
        false,
        'the token signature appears in the log',
      );
    } finally {
      await app.close();
    }
  });
});
