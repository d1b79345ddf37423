// Verified tokens are remembered, never beyond what a full verification would accept: an expired token is refused
// while cached, and a key rotation drops what the old keys verified. Plus the cache's own bounds.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type CryptoKey, type JWK } from 'jose';
import type { FastifyInstance } from 'fastify';
import { VerifiedTokens } from '../../src/guards/auth/verified-tokens.ts';
import { buildTestApp, manualClock } from '../helpers/app.ts';
import { bearer, mintToken } from '../helpers/tokens.ts';

async function status(app: FastifyInstance, token: string): Promise<number> {
  return (await app.inject({ url: '/api/plcs', headers: bearer(token) })).statusCode;
}

describe('a cached token is refused once expired', () => {
  test('served while valid, 401 once exp plus the clock skew has passed', async () => {
    const clock = manualClock(Date.now());
    const app = await buildTestApp({ tokenNow: clock.now });
    try {
      const token = await mintToken({}, { now: Math.floor(clock.now() / 1000), expiresIn: 5 });
      assert.equal(await status(app, token), 200);
      assert.equal(await status(app, token), 200);
      clock.advance(5_000 + 29_000); // within ClockSkewSeconds (30)
      assert.equal(await status(app, token), 200);
      clock.advance(2_000);
      const res = await app.inject({ url: '/api/plcs', headers: bearer(token) });
      assert.equal(res.statusCode, 401);
      assert.match(res.json<{ error: { message: string } }>().error.message, /expired/);
    } finally {
      await app.close();
    }
  });
});

describe('a key rotation drops the tokens the old keys verified', () => {
  let server: Server;
  let issuer: string;
  let keys: JWK[] = [];
  let rotated: JWK[] = [];
  const hits = { jwks: 0 };
  let first: CryptoKey;
  let second: CryptoKey;

  before(async () => {
    const a = await generateKeyPair('RS256', { extractable: true });
    const b = await generateKeyPair('RS256', { extractable: true });
    first = a.privateKey;
    second = b.privateKey;
    keys = [{ ...(await exportJWK(a.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' }];
    rotated = [{ ...(await exportJWK(b.publicKey)), kid: 'k2', alg: 'RS256', use: 'sig' }];
    server = createServer((req, res) => {
      res.setHeader('content-type', 'application/json');
      if (req.url === '/.well-known/openid-configuration') {
        res.end(JSON.stringify({ issuer, jwks_uri: `${issuer}/keys` }));
      } else if (req.url === '/keys') {
        hits.jwks += 1;
        res.end(JSON.stringify({ keys }));
      } else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  test('after the identity provider rotates its keys, a token of the old key is refused', async () => {
    const app = await buildTestApp({
      settings: { Auth: { SigningKey: undefined, Authority: issuer, JwksCooldownSeconds: 0 } },
    });
    try {
      const old = await mintToken({ iss: issuer }, { key: first, alg: 'RS256', kid: 'k1' });
      assert.equal(await status(app, old), 200);
      assert.equal(await status(app, old), 200);
      assert.equal(hits.jwks, 1);
      keys = rotated;
      // A token of the new key makes the gateway fetch the new key set: a new key generation.
      const fresh = await mintToken({ iss: issuer }, { key: second, alg: 'RS256', kid: 'k2' });
      assert.equal(await status(app, fresh), 200);
      assert.equal(hits.jwks, 2);
      assert.equal(await status(app, old), 401);
      assert.equal(await status(app, fresh), 200);
    } finally {
      await app.close();
    }
  });
});

describe('VerifiedTokens bounds', () => {
  const payload = { sub: 'u', exp: 2_000 };
  const options = { maxEntries: 3, ttlMs: 60_000, clockSkewMs: 30_000 };

  test('at most maxEntries tokens, the oldest dropped first', () => {
    const cache = new VerifiedTokens(options);
    for (const t of ['a', 'b', 'c', 'd']) cache.set(t, payload, 1_000_000, undefined);
    assert.equal(cache.size, 3);
    assert.equal(cache.get('a', 1_000_000, undefined), undefined);
    assert.deepEqual(cache.get('d', 1_000_000, undefined), payload);
  });

  test('valid until the earlier of exp plus skew and the TTL', () => {
    const cache = new VerifiedTokens(options);
    cache.set('short', { sub: 'u', exp: 1_010 }, 1_000_000, undefined); // exp 1,010 s, skew 30 s
    assert.ok(cache.get('short', 1_039_999, undefined));
    assert.equal(cache.get('short', 1_040_000, undefined), undefined);
    cache.set('long', { sub: 'u', exp: 9_000 }, 1_000_000, undefined);
    assert.ok(cache.get('long', 1_059_999, undefined));
    assert.equal(cache.get('long', 1_060_000, undefined), undefined);
  });

  test('a new key generation empties it', () => {
    const cache = new VerifiedTokens(options);
    cache.get('x', 0, 1);
    cache.set('x', payload, 1_000_000, 1);
    assert.ok(cache.get('x', 1_000_000, 1));
    assert.equal(cache.get('x', 1_000_000, 2), undefined);
    assert.equal(cache.size, 0);
  });
});
