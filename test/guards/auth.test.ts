// Bearer JWT validation through HTTP: every way a token can be wrong, and every key source.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { exportJWK, exportSPKI, generateKeyPair, type CryptoKey } from 'jose';
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { ConfigError } from '../../src/config/schema.ts';
import { developmentSigningKey } from '../../src/config/development-key.ts';
import { buildTestApp } from '../helpers/app.ts';
import { testConfig } from '../helpers/config.ts';
import { bearer, mintToken, unsignedToken } from '../helpers/tokens.ts';

const now = () => Math.floor(Date.now() / 1000);

async function plcs(app: FastifyInstance, headers: Record<string, string> = {}, query = '') {
  return app.inject({ url: `/api/plcs${query}`, headers });
}

function assertUnauthorized(
  res: Awaited<ReturnType<typeof plcs>>,
  wwwAuthenticate: string,
  message?: RegExp,
) {
  assert.equal(res.statusCode, 401, res.body);
  assert.equal(res.headers['www-authenticate'], wwwAuthenticate);
  const body = res.json<{ data: null; error: { code: string; message: string } }>();
  assert.equal(body.data, null);
  assert.equal(body.error.code, 'UNAUTHORIZED');
  if (message) assert.match(body.error.message, message);
}

describe('HS256 signing key', () => {
  let app: FastifyInstance;
  before(async () => {
    app = await buildTestApp({
      settings: { Auth: { Issuer: 'https://idp.example', Audience: 'plc-gateway', ClockSkewSeconds: 30 } },
      extend: (a) => {
        a.get('/api/test/ws', { config: { websocket: true } }, (request) => ({
          data: request.principal?.sub ?? null,
          error: null,
        }));
      },
    });
  });
  after(() => app.close());
  const good = { iss: 'https://idp.example', aud: 'plc-gateway' };

  test('a valid token passes', async () => {
    const res = await plcs(app, bearer(await mintToken(good)));
    assert.equal(res.statusCode, 200);
  });

  test('no token: 401 with WWW-Authenticate: Bearer', async () => {
    assertUnauthorized(await plcs(app), 'Bearer');
  });

  test('not a Bearer header: 401 invalid_request', async () => {
    assertUnauthorized(
      await plcs(app, { authorization: 'Basic dXNlcjpwYXNz' }),
      'Bearer error="invalid_request"',
    );
  });

  test('garbage token: 401 invalid_token', async () => {
    assertUnauthorized(
      await plcs(app, bearer('not-a-jwt')),
      'Bearer error="invalid_token"',
      /not a valid JWT/,
    );
  });

  test('wrong signature: 401 invalid_token', async () => {
    const token = await mintToken(good, { key: 'another-key-of-sufficient-length-0123456789' });
    assertUnauthorized(await plcs(app, bearer(token)), 'Bearer error="invalid_token"', /signature/);
  });

  test('expired beyond the clock skew: 401; within the skew: accepted', async () => {
    const expired = await mintToken(good, { now: now() - 3600, expiresIn: 3600 - 31 });
    assertUnauthorized(await plcs(app, bearer(expired)), 'Bearer error="invalid_token"', /expired/);
    const withinSkew = await mintToken(good, { now: now() - 3600, expiresIn: 3600 - 20 });
    assert.equal((await plcs(app, bearer(withinSkew))).statusCode, 200);
  });

  test('not yet valid beyond the clock skew: 401', async () => {
    const future = await mintToken({ ...good, nbf: now() + 120 });
    assertUnauthorized(await plcs(app, bearer(future)), 'Bearer error="invalid_token"', /not valid yet/);
    const soon = await mintToken({ ...good, nbf: now() + 10 });
    assert.equal((await plcs(app, bearer(soon))).statusCode, 200);
  });

  test('wrong or missing issuer: 401', async () => {
    for (const iss of ['https://evil.example', undefined]) {
      const token = await mintToken({ ...good, iss });
      assertUnauthorized(await plcs(app, bearer(token)), 'Bearer error="invalid_token"', /iss/);
    }
  });

  test('wrong audience: 401', async () => {
    const token = await mintToken({ ...good, aud: 'other-api' });
    assertUnauthorized(await plcs(app, bearer(token)), 'Bearer error="invalid_token"', /aud/);
  });

  test('no sub: 401', async () => {
    const token = await mintToken({ ...good, sub: undefined });
    assertUnauthorized(await plcs(app, bearer(token)), 'Bearer error="invalid_token"', /sub/);
  });

  test('alg none: 401', async () => {
    assertUnauthorized(await plcs(app, bearer(unsignedToken(good))), 'Bearer error="invalid_token"');
  });

  test('an RS256 token against the HS256 key: 401 (algorithm not accepted)', async () => {
    const { privateKey } = await generateKeyPair('RS256');
    const token = await mintToken(good, { key: privateKey, alg: 'RS256' });
    assertUnauthorized(await plcs(app, bearer(token)), 'Bearer error="invalid_token"', /algorithm/);
  });

  test('an HS512 token signed with the right secret: 401 (only HS256)', async () => {
    const token = await mintToken(good, { alg: 'HS512' });
    assertUnauthorized(await plcs(app, bearer(token)), 'Bearer error="invalid_token"', /algorithm/);
  });

  test('access_token in the query string of a non-WebSocket route: refused even with a valid header', async () => {
    const token = await mintToken(good);
    assertUnauthorized(
      await plcs(app, {}, `?access_token=${token}`),
      'Bearer error="invalid_request"',
      /WebSocket/,
    );
    assertUnauthorized(
      await plcs(app, bearer(token), `?access_token=${token}`),
      'Bearer error="invalid_request"',
    );
    // Percent-encoding the parameter name does not slip past the rule.
    assertUnauthorized(await plcs(app, {}, `?access%5Ftoken=${token}`), 'Bearer error="invalid_request"');
  });

  test('access_token in the query string of a WebSocket route: accepted', async () => {
    const token = await mintToken(good);
    const res = await app.inject({ url: `/api/test/ws?access_token=${token}` });
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().data, 'test-user');
    const twice = await app.inject({ url: `/api/test/ws?access_token=${token}&access_token=${token}` });
    assert.equal(twice.statusCode, 401);
    const bad = await app.inject({ url: '/api/test/ws?access_token=garbage' });
    assert.equal(bad.statusCode, 401);
  });
});

describe('the claim rules jose applies', () => {
  test('a token without exp is refused', async () => {
    const app = await buildTestApp();
    try {
      const { SignJWT } = await import('jose');
      const { testSigningKey } = await import('../helpers/config.ts');
      const token = await new SignJWT({ sub: 'u', role: 'admin', scope: 'ads:read', plc_access: ['*'] })
        .setProtectedHeader({ alg: 'HS256' })
        .sign(new TextEncoder().encode(testSigningKey));
      assertUnauthorized(await plcs(app, bearer(token)), 'Bearer error="invalid_token"', /exp/);
    } finally {
      await app.close();
    }
  });
});

describe('key files', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'plc-gateway-auth-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  test('PublicKeyFile (RS256 PEM): RS256 accepted, HS256 with the PEM as secret refused', async () => {
    const { publicKey, privateKey } = await generateKeyPair('RS256', { extractable: true });
    const pem = await exportSPKI(publicKey);
    await writeFile(join(dir, 'rsa.pem'), pem);
    const app = await buildTestApp({
      config: testConfig({ Auth: { SigningKey: undefined, PublicKeyFile: 'rsa.pem' } }, dir),
    });
    try {
      const good = await mintToken({}, { key: privateKey, alg: 'RS256' });
      assert.equal((await plcs(app, bearer(good))).statusCode, 200);
      // The classic key-confusion attack: HMAC keyed with the public key text.
      const confused = await mintToken({}, { key: pem, alg: 'HS256' });
      assertUnauthorized(await plcs(app, bearer(confused)), 'Bearer error="invalid_token"', /algorithm/);
      const other = await generateKeyPair('RS256');
      const forged = await mintToken({}, { key: other.privateKey, alg: 'RS256' });
      assertUnauthorized(await plcs(app, bearer(forged)), 'Bearer error="invalid_token"', /signature/);
    } finally {
      await app.close();
    }
  });

  test('PublicKeyFile (ES256 PEM) picks ES256', async () => {
    const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
    await writeFile(join(dir, 'ec.pem'), await exportSPKI(publicKey));
    const app = await buildTestApp({
      config: testConfig({ Auth: { SigningKey: undefined, PublicKeyFile: join(dir, 'ec.pem') } }),
    });
    try {
      const good = await mintToken({}, { key: privateKey, alg: 'ES256' });
      assert.equal((await plcs(app, bearer(good))).statusCode, 200);
    } finally {
      await app.close();
    }
  });

  test('JwksFile: a token whose kid is in the set passes, another key fails', async () => {
    const { publicKey, privateKey } = await generateKeyPair('RS256', { extractable: true });
    const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
    await writeFile(join(dir, 'jwks.json'), JSON.stringify({ keys: [jwk] }));
    const app = await buildTestApp({
      config: testConfig({ Auth: { SigningKey: undefined, JwksFile: 'jwks.json' } }, dir),
    });
    try {
      const good = await mintToken({}, { key: privateKey, alg: 'RS256', kid: 'k1' });
      assert.equal((await plcs(app, bearer(good))).statusCode, 200);
      const other = await generateKeyPair('RS256');
      const wrongKid = await mintToken({}, { key: other.privateKey, alg: 'RS256', kid: 'k2' });
      assertUnauthorized(await plcs(app, bearer(wrongKid)), 'Bearer error="invalid_token"');
      const hs = await mintToken({}, { kid: 'k1' });
      assertUnauthorized(await plcs(app, bearer(hs)), 'Bearer error="invalid_token"', /algorithm/);
    } finally {
      await app.close();
    }
  });

  test('bad key settings fail start-up with ConfigError', async () => {
    await writeFile(join(dir, 'not-a-key.pem'), 'hello');
    await writeFile(join(dir, 'secret-jwks.json'), JSON.stringify({ keys: [{ kty: 'oct', k: 'c2VjcmV0' }] }));
    const cases: Array<Record<string, unknown>> = [
      { SigningKey: undefined },
      { PublicKeyFile: 'rsa.pem' },
      { SigningKey: undefined, PublicKeyFile: 'missing.pem' },
      { SigningKey: undefined, PublicKeyFile: 'not-a-key.pem' },
      { SigningKey: undefined, JwksFile: 'secret-jwks.json' },
      { SigningKey: undefined, Authority: 'http://idp.example.com' },
    ];
    for (const auth of cases) {
      await assert.rejects(
        buildTestApp({ config: testConfig({ Auth: auth }, dir) }),
        ConfigError,
        JSON.stringify(auth),
      );
    }
  });

  test('UseDevelopmentKey verifies tokens signed with the built-in key only', async () => {
    const app = await buildTestApp({
      settings: { Auth: { SigningKey: undefined, UseDevelopmentKey: true } },
    });
    try {
      assert.equal(
        (await plcs(app, bearer(await mintToken({}, { key: developmentSigningKey })))).statusCode,
        200,
      );
      assert.equal((await plcs(app, bearer(await mintToken()))).statusCode, 401);
    } finally {
      await app.close();
    }
  });
});

describe('Authority (OIDC discovery against a local issuer)', () => {
  let server: Server;
  let issuer: string;
  let privateKey: CryptoKey;
  const hits = { discovery: 0, jwks: 0 };
  let discoveryDown = false;

  before(async () => {
    const pair = await generateKeyPair('RS256', { extractable: true });
    privateKey = pair.privateKey;
    const jwk = { ...(await exportJWK(pair.publicKey)), kid: 'idp-1', alg: 'RS256', use: 'sig' };
    server = createServer((req, res) => {
      if (req.url === '/realms/plant/.well-known/openid-configuration') {
        hits.discovery += 1;
        if (discoveryDown) {
          res.writeHead(503).end();
          return;
        }
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ issuer, jwks_uri: `${issuer}/protocol/openid-connect/certs` }));
      } else if (req.url === '/realms/plant/protocol/openid-connect/certs') {
        hits.jwks += 1;
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ keys: [jwk] }));
      } else {
        res.writeHead(404).end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}/realms/plant`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  test('discovers the JWKS, checks the issuer, caches the keys', async () => {
    const app = await buildTestApp({ settings: { Auth: { SigningKey: undefined, Authority: issuer } } });
    try {
      const good = await mintToken({ iss: issuer }, { key: privateKey, alg: 'RS256', kid: 'idp-1' });
      assert.equal((await plcs(app, bearer(good))).statusCode, 200);
      assert.equal((await plcs(app, bearer(good))).statusCode, 200);
      assert.equal(hits.discovery, 1);
      assert.equal(hits.jwks, 1);
      const wrongIssuer = await mintToken(
        { iss: 'https://elsewhere' },
        { key: privateKey, alg: 'RS256', kid: 'idp-1' },
      );
      assertUnauthorized(await plcs(app, bearer(wrongIssuer)), 'Bearer error="invalid_token"', /iss/);
      const hs = await mintToken({ iss: issuer });
      assertUnauthorized(await plcs(app, bearer(hs)), 'Bearer error="invalid_token"', /algorithm/);
    } finally {
      await app.close();
    }
  });

  test('an unreachable discovery answers 401 and is retried on the next request', async () => {
    const app = await buildTestApp({
      settings: { Auth: { SigningKey: undefined, Authority: `${issuer}/` } },
    });
    try {
      const good = await mintToken({ iss: issuer }, { key: privateKey, alg: 'RS256', kid: 'idp-1' });
      discoveryDown = true;
      const before = hits.discovery;
      assertUnauthorized(
        await plcs(app, bearer(good)),
        'Bearer error="invalid_token"',
        /keys are unavailable/,
      );
      discoveryDown = false;
      assert.equal((await plcs(app, bearer(good))).statusCode, 200);
      assert.equal(hits.discovery, before + 2);
    } finally {
      await app.close();
    }
  });
});

describe('the token never reaches the log', () => {
  test('Authorization header and access_token query values are redacted', async () => {
    const lines: string[] = [];
    const stream = { write: (line: string) => void lines.push(line) };
    const app = await buildTestApp({
      logger: { stream, level: 'trace' },
      extend: (a) => {
        a.get('/api/test/ws', { config: { websocket: true } }, () => ({ data: null, error: null }));
        a.get('/api/test/query', { schema: { querystring: Type.Object({ n: Type.Integer() }) } }, () => ({
          data: null,
          error: null,
        }));
      },
    });
    try {
      const token = await mintToken();
      await app.inject({ url: '/api/plcs', headers: bearer(token) });
      await app.inject({ url: `/api/test/ws?x=1&access_token=${token}` });
      await app.inject({ url: `/api/plcs?access_token=${token}` });
      await app.inject({ url: `/api/test/query?n=x&access%5ftoken=${token}` });
      await app.inject({ url: `/nowhere?access_token=${token}` });
      assert.ok(lines.length > 5);
      const all = lines.join('\n');
      assert.ok(!all.includes(token), 'a token appeared in the log');
      assert.ok(!all.includes(token.split('.')[2]!), 'a token signature appeared in the log');
      assert.match(all, /access_token=\[REDACTED\]/);
    } finally {
      await app.close();
    }
  });
});
