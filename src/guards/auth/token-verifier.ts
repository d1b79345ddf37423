// Verifies bearer JWTs strictly: only the configured key's algorithms, issuer/audience when set, exp required.
import {
  calculateJwkThumbprint,
  errors,
  exportJWK,
  jwtVerify,
  type JWTPayload,
  type JWTVerifyOptions,
} from 'jose';
import type { AuthConfig } from '../../config/schema.ts';
import { AppError } from '../../errors.ts';
import type { KeySource } from './key-source.ts';
import { VerifiedTokens } from './verified-tokens.ts';

/** Verified tokens remembered, and for how long at most before the signature is checked again. */
const cacheEntries = 10_000;
const cacheTtlMs = 60_000;

/** Verifies one compact JWT; throws 401 UNAUTHORIZED (invalid_token) with a caller-safe reason. */
export interface TokenVerifier {
  readonly source: KeySource['kind'];
  verify(token: string): Promise<JWTPayload>;
  /** The claims of a token verified earlier and still valid, without waiting; undefined when it must be verified. */
  known(token: string): JWTPayload | undefined;
  /**
   * The JWK thumbprint of the key that verified these claims (as returned by verify or known) when the key set can
   * change (Auth:Authority); undefined otherwise. Streams remember it to end when the key is withdrawn.
   */
  keyOf(claims: JWTPayload): string | undefined;
}

// Compact JWS: three base64url segments, no padding. jose's decoder tolerates '=', so the shape is checked first.
const compactJws = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/** `now`: milliseconds clock for exp, nbf and iat; tests inject one. */
export function createTokenVerifier(
  auth: AuthConfig,
  source: KeySource,
  now: () => number = Date.now,
): TokenVerifier {
  const skew = auth.ClockSkewSeconds;
  const issuer = auth.Issuer ?? source.defaultIssuer;
  const options: JWTVerifyOptions = {
    algorithms: [...source.algorithms],
    clockTolerance: skew,
    requiredClaims: ['exp', 'sub'],
    ...(issuer !== undefined ? { issuer: typeof issuer === 'string' ? issuer : [...issuer] } : {}),
    ...(auth.Audience !== undefined ? { audience: auth.Audience } : {}),
  };
  const key = source.key;
  const verified = new VerifiedTokens({
    maxEntries: cacheEntries,
    ttlMs: cacheTtlMs,
    clockSkewMs: skew * 1000,
  });
  const keys = new WeakMap<JWTPayload, string>();
  return {
    source: source.kind,
    keyOf: (claims) => keys.get(claims),
    known(token) {
      return compactJws.test(token) ? verified.get(token, now(), source.generation?.()) : undefined;
    },
    async verify(token) {
      if (!compactJws.test(token))
        throw invalidToken('The token is not a valid JWT (compact form, base64url).');
      const current = now();
      const generation = source.generation?.();
      const known = verified.get(token, current, generation);
      if (known !== undefined) return known;
      let payload: JWTPayload;
      let thumbprint: string | undefined;
      try {
        const at = { ...options, currentDate: new Date(current) };
        if (typeof key === 'function') {
          const result = await jwtVerify(token, key, at);
          payload = result.payload;
          // Public keys always export; the thumbprint names the key whether or not the token carries a kid.
          if (
            source.generation !== undefined &&
            result.key !== undefined &&
            !(result.key instanceof Uint8Array)
          )
            thumbprint = await calculateJwkThumbprint(await exportJWK(result.key));
        } else payload = (await jwtVerify(token, key, at)).payload;
      } catch (err) {
        throw invalidToken(reasonFor(err));
      }
      if (thumbprint !== undefined) keys.set(payload, thumbprint);
      // jose checks iat only against a maximum age; a token from the future is refused too.
      if (typeof payload.iat === 'number' && payload.iat > current / 1000 + skew) {
        throw invalidToken('The token is issued in the future.');
      }
      // Keys that changed during this verification (a rotation): the next request verifies again.
      if (source.generation?.() === generation) verified.set(token, payload, current, generation);
      return payload;
    },
  };
}

export function invalidToken(message: string): AppError {
  return new AppError('UNAUTHORIZED', message, { 'WWW-Authenticate': 'Bearer error="invalid_token"' });
}

// jose's own messages are precise but name internals; these say what the caller can act on.
function reasonFor(err: unknown): string {
  if (err instanceof errors.JWTExpired) return 'The token has expired.';
  if (err instanceof errors.JWTClaimValidationFailed) {
    if (err.claim === 'nbf') return 'The token is not valid yet.';
    if (err.reason === 'missing') return `The token has no ${err.claim} claim.`;
    return `The token's ${err.claim} claim is not accepted.`;
  }
  if (err instanceof errors.JOSEAlgNotAllowed || err instanceof errors.JOSENotSupported) {
    return 'The token is signed with an algorithm this gateway does not accept.';
  }
  if (err instanceof errors.JWSSignatureVerificationFailed) return 'The token signature is not valid.';
  if (err instanceof errors.JWKSNoMatchingKey) return 'No configured key matches the token.';
  if (err instanceof errors.JOSEError) return 'The token is not a valid JWT.';
  return 'The token could not be validated: the signing keys are unavailable.';
}
