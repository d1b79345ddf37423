// A key withdrawn from the identity provider's key set (Auth:Authority) ends, at the next key refresh, the
// streams its tokens opened: SSE with `event: error` TOKEN_REVOKED, hubs with a Close that allows a reconnect;
// streams of keys still in the set go on.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { exportJWK, generateKeyPair, type CryptoKey, type JWK } from 'jose';
import { RawHub } from '../../helpers/raw-hub.ts';
import { bearer, mintToken } from '../../helpers/tokens.ts';
import { RawSse, sseUrl, startStreamApp, type StreamApp } from '../../features/notifications/clients.ts';

describe('streams end when the key that signed their token leaves the key set', () => {
  let server: Server;
  let issuer: string;
  let s: StreamApp;
  let keys: JWK[] = [];
  const privateKeys: Record<string, CryptoKey> = {};
  const publicKeys: Record<string, JWK> = {};

  before(async () => {
    for (const kid of ['k1', 'k2', 'k3']) {
      const pair = await generateKeyPair('RS256', { extractable: true });
      privateKeys[kid] = pair.privateKey;
      publicKeys[kid] = { ...(await exportJWK(pair.publicKey)), kid, alg: 'RS256', use: 'sig' };
    }
    keys = [publicKeys.k1 as JWK, publicKeys.k2 as JWK];
    server = createServer((req, res) => {
      res.setHeader('content-type', 'application/json');
      if (req.url === '/.well-known/openid-configuration') {
        res.end(JSON.stringify({ issuer, jwks_uri: `${issuer}/keys` }));
      } else if (req.url === '/keys') res.end(JSON.stringify({ keys }));
      else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    s = await startStreamApp('simulated', {
      settings: { Auth: { SigningKey: undefined, Authority: issuer, JwksCooldownSeconds: 0 } },
    });
  });
  const clients: Array<{ close(): void }> = [];
  after(async () => {
    // A stream a failing test left open must not hold the server open.
    for (const c of clients) c.close();
    await s.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const tokenOf = (kid: string, sub = 'test-user') =>
    mintToken({ iss: issuer, sub }, { key: privateKeys[kid], alg: 'RS256', kid });

  it('k1 withdrawn: its SSE stream gets TOKEN_REVOKED, its hub a Close; the k2 stream goes on', async () => {
    const k1 = await tokenOf('k1');
    const k2 = await tokenOf('k2');
    const revoked = await new RawSse(sseUrl(s.base, ['MAIN.nA']), bearer(k1)).opened();
    const kept = await new RawSse(sseUrl(s.base, ['MAIN.nA']), bearer(k2)).opened();
    assert.equal(revoked.status, 200);
    assert.equal(kept.status, 200);
    const hub = await new RawHub(
      `${s.base.replace('http', 'ws')}/api/plcs/plc1/notifications/ws?access_token=${k1}`,
    ).handshake();
    clients.push(revoked, kept, hub);

    // The provider rotates: k1 leaves, k3 arrives; a token of k3 makes the gateway fetch the new set.
    keys = [publicKeys.k2 as JWK, publicKeys.k3 as JWK];
    const res = await s.app.inject({ url: '/api/plcs', headers: bearer(await tokenOf('k3', 'other')) });
    assert.equal(res.statusCode, 200);

    const last = await revoked.next((e) => e.event === 'error');
    assert.equal((last.data as { code: string }).code, 'TOKEN_REVOKED');
    await revoked.closedByServer();
    const close = await hub.next((m) => m.type === 7);
    assert.match(String(close.error), /^TOKEN_REVOKED: /);
    assert.equal(close.allowReconnect, true);
    await hub.closedWith();

    await s.plc.target.writeMany([{ symbol: 'MAIN.nA', value: 9191 }]);
    await kept.next((e) => e.event === 'change' && (e.data as { value: number }).value === 9191);
    assert.equal(kept.ended, false);
    assert.ok(!kept.events.some((e) => e.event === 'error'));
    kept.close();
  });
});
