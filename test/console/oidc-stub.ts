// A stub OIDC issuer on loopback for the console's sign-in test: discovery, JWKS, an authorize endpoint that
// signs the user in at once, and a token endpoint that checks the PKCE verifier before issuing RS256 tokens.
import { createHash, generateKeyPairSync, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, SignJWT } from 'jose';

export interface OidcStub {
  readonly issuer: string;
  /** Token requests whose PKCE verifier matched the authorize request's challenge. */
  readonly verifiedExchanges: number;
  close(): Promise<void>;
}

interface Grant {
  clientId: string;
  redirectUri: string;
  challenge: string;
  nonce: string | undefined;
}

async function readForm(request: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString());
}

export async function startOidcStub(claims: Record<string, unknown>): Promise<OidcStub> {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = { ...(await exportJWK(publicKey)), kid: 'stub-1', alg: 'RS256', use: 'sig' };
  const grants = new Map<string, Grant>();
  let verified = 0;
  let issuer = '';
  const sign = (payload: Record<string, unknown>, audience: string): Promise<string> =>
    new SignJWT(payload)
      .setProtectedHeader({ alg: 'RS256', kid: 'stub-1', typ: 'JWT' })
      .setIssuer(issuer)
      .setAudience(audience)
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(privateKey);

  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', issuer);
    response.setHeader('access-control-allow-origin', '*');
    response.setHeader('access-control-allow-headers', '*');
    const json = (status: number, body: unknown): void => {
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    if (request.method === 'OPTIONS') return void response.writeHead(204).end();
    if (url.pathname === '/.well-known/openid-configuration') {
      return json(200, {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        jwks_uri: `${issuer}/jwks`,
        response_types_supported: ['code'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256'],
        code_challenge_methods_supported: ['S256'],
      });
    }
    if (url.pathname === '/jwks') return json(200, { keys: [jwk] });
    if (url.pathname === '/authorize') {
      const q = url.searchParams;
      if (q.get('code_challenge_method') !== 'S256' || !q.get('code_challenge')) {
        return json(400, { error: 'invalid_request', error_description: 'PKCE required' });
      }
      const code = randomUUID();
      grants.set(code, {
        clientId: q.get('client_id') ?? '',
        redirectUri: q.get('redirect_uri') ?? '',
        challenge: q.get('code_challenge') ?? '',
        nonce: q.get('nonce') ?? undefined,
      });
      const back = new URL(q.get('redirect_uri') ?? '');
      back.searchParams.set('code', code);
      back.searchParams.set('state', q.get('state') ?? '');
      return void response.writeHead(302, { location: back.href }).end();
    }
    if (url.pathname === '/token' && request.method === 'POST') {
      void readForm(request).then(async (form) => {
        const grant = grants.get(form.get('code') ?? '');
        grants.delete(form.get('code') ?? '');
        const verifier = form.get('code_verifier') ?? '';
        const challenge = createHash('sha256').update(verifier).digest('base64url');
        if (
          grant === undefined ||
          grant.challenge !== challenge ||
          grant.redirectUri !== form.get('redirect_uri')
        ) {
          return json(400, { error: 'invalid_grant' });
        }
        verified++;
        const accessToken = await sign({ ...claims }, 'plc-gateway');
        const idToken = await sign(
          { sub: claims.sub, name: claims.name, ...(grant.nonce ? { nonce: grant.nonce } : {}) },
          grant.clientId,
        );
        json(200, {
          access_token: accessToken,
          id_token: idToken,
          token_type: 'Bearer',
          expires_in: 3600,
          scope: 'openid profile',
        });
      });
      return undefined;
    }
    return json(404, { error: 'not_found' });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    issuer,
    get verifiedExchanges() {
      return verified;
    },
    close: () => new Promise<void>((done) => server.close(() => done())),
  };
}
