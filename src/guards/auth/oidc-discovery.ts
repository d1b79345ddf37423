// OIDC discovery for `Auth.Authority`: fetches the metadata once, then verifies against its JWKS (cached by jose).
import { createRemoteJWKSet, type JWTVerifyGetKey } from 'jose';
import { ConfigError } from '../../config/schema.ts';

export type FetchLike = (url: URL, init: { signal: AbortSignal }) => Promise<Response>;

export interface OidcKeyResolver {
  readonly getKey: JWTVerifyGetKey;
  /** The issuer values accepted when `Auth.Issuer` is not set: the Authority with and without a trailing slash. */
  readonly issuers: readonly string[];
}

const discoveryTimeoutMs = 5000;

export function createOidcKeyResolver(authority: string, fetchImpl: FetchLike): OidcKeyResolver {
  const base = parseAuthority(authority);
  const discoveryUrl = new URL('.well-known/openid-configuration', base);
  let jwks: Promise<JWTVerifyGetKey> | undefined;

  const load = async (): Promise<JWTVerifyGetKey> => {
    const response = await fetchImpl(discoveryUrl, { signal: AbortSignal.timeout(discoveryTimeoutMs) });
    if (!response.ok) throw new Error(`OIDC discovery answered HTTP ${response.status}`);
    const metadata = (await response.json()) as { jwks_uri?: unknown };
    if (typeof metadata.jwks_uri !== 'string') throw new Error('OIDC discovery has no jwks_uri');
    return createRemoteJWKSet(checkedUrl(metadata.jwks_uri, 'jwks_uri'), {
      timeoutDuration: discoveryTimeoutMs,
    });
  };

  const trimmed = authority.replace(/\/+$/, '');
  return {
    issuers: [trimmed, `${trimmed}/`],
    getKey: async (header, token) => {
      // A failed discovery is not cached, so the next request tries again once the provider is back.
      jwks ??= load().catch((err: unknown) => {
        jwks = undefined;
        throw err;
      });
      const getKey = await jwks;
      return getKey(header, token);
    },
  };
}

function parseAuthority(authority: string): URL {
  const url = checkedUrl(authority, 'Auth.Authority');
  if (!url.pathname.endsWith('/')) url.pathname += '/';
  return url;
}

// Metadata and keys must come over TLS, except from the local machine (development and tests).
function checkedUrl(value: string, what: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError([`${what}: not a URL`]);
  }
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) {
    throw new ConfigError([`${what}: must be an https URL (http is allowed only for localhost)`]);
  }
  return url;
}
