// mintToken(claims, opts): a signed JWT for tests; by default an admin with every scope and every PLC, HS256 with
// the test key, valid for an hour.
import { SignJWT, type CryptoKey, type JWTPayload, type KeyObject } from 'jose';
import { testSigningKey } from './config.ts';

export interface MintOptions {
  /** Signing key: a secret string (HS256 by default) or a private key (give `alg`). */
  key?: string | KeyObject | CryptoKey;
  alg?: string;
  kid?: string;
  /** Seconds since the epoch; defaults to now. */
  now?: number;
  /** Lifetime in seconds from `now`; default 3600. Negative gives an expired token. */
  expiresIn?: number;
}

/** Claims a default token carries; a claim given as `undefined` is left out. */
export const defaultClaims: JWTPayload = {
  sub: 'test-user',
  role: 'admin',
  scope: 'ads:read ads:write ads:lifecycle',
  plc_access: ['*'],
};

export async function mintToken(
  claims: Record<string, unknown> = {},
  opts: MintOptions = {},
): Promise<string> {
  const now = opts.now ?? Math.floor(Date.now() / 1000);
  const payload: Record<string, unknown> = {
    iat: now,
    exp: now + (opts.expiresIn ?? 3600),
    ...defaultClaims,
  };
  for (const [k, v] of Object.entries(claims)) {
    if (v === undefined) delete payload[k];
    else payload[k] = v;
  }
  const key = opts.key ?? testSigningKey;
  const alg = opts.alg ?? 'HS256';
  const jwt = new SignJWT(payload).setProtectedHeader({
    alg,
    typ: 'JWT',
    ...(opts.kid ? { kid: opts.kid } : {}),
  });
  return jwt.sign(typeof key === 'string' ? new TextEncoder().encode(key) : key);
}

/** An unsigned `alg: none` token, which the gateway must refuse. */
export function unsignedToken(claims: Record<string, unknown> = {}): string {
  const now = Math.floor(Date.now() / 1000);
  const encode = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
  return `${encode({ alg: 'none', typ: 'JWT' })}.${encode({ iat: now, exp: now + 3600, ...defaultClaims, ...claims })}.`;
}

export function bearer(token: string): { authorization: string } {
  return { authorization: `Bearer ${token}` };
}
