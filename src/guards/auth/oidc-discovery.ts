// OIDC discovery for `Auth.Authority`: fetches the metadata once, then verifies against its JWKS (cached by jose,
// refetched when a token names an unknown key id, at most once per cooldown). Counts key generations: a JWKS
// that comes back different is a key rotation, and the tokens verified before it must be verified again; the
// thumbprints of the keys it still holds go to the listeners, which end the streams of withdrawn keys.
import {
  calculateJwkThumbprint,
  createRemoteJWKSet,
  customFetch,
  type JWK,
  type JWTVerifyGetKey,
} from 'jose';
import { ConfigError } from '../../config/schema.ts';

export interface FetchInit {
  readonly signal: AbortSignal;
  readonly headers?: Headers;
  /** jose fetches the JWKS without following redirects. */
  readonly redirect?: 'manual';
}

export type FetchLike = (url: URL, init: FetchInit) => Promise<Response>;

export interface OidcKeyResolver {
  readonly getKey: JWTVerifyGetKey;
  /** Changes whenever the JWKS fetched differs from the one before (a key rotation). */
  readonly generation: () => number;
  /** The issuer values accepted when `Auth.Issuer` is not set: the Authority with and without a trailing slash. */
  readonly issuers: readonly string[];
  /** Runs after each key set that differs from the one before, with the JWK thumbprints of its keys. */
  readonly onKeySet: (listener: (thumbprints: ReadonlySet<string>) => void) => void;
}

const discoveryTimeoutMs = 5000;

export interface OidcOptions {
  /** Seconds between JWKS refetches caused by tokens with an unknown key id. */
  readonly cooldownSeconds: number;
}

export function createOidcKeyResolver(
  authority: string,
  fetchImpl: FetchLike,
  options: OidcOptions,
): OidcKeyResolver {
  const base = parseAuthority(authority);
  const discoveryUrl = new URL('.well-known/openid-configuration', base);
  let jwks: Promise<JWTVerifyGetKey> | undefined;
  let generation = 0;
  let lastKeySet: string | undefined;
  const listeners: Array<(thumbprints: ReadonlySet<string>) => void> = [];

  const fetchKeySet = async (url: string, init: FetchInit): Promise<Response> => {
    const response = await fetchImpl(new URL(url), init);
    if (response.ok) {
      const text = await response.clone().text();
      const changed = lastKeySet !== undefined && text !== lastKeySet;
      if (changed) generation++;
      lastKeySet = text;
      if (changed && listeners.length > 0) {
        // A set that cannot be read names no key: jose refuses it too, and no stream is ended for it.
        const present = await thumbprintsOf(text);
        if (present !== undefined) for (const l of listeners) l(present);
      }
    }
    return response;
  };

  const load = async (): Promise<JWTVerifyGetKey> => {
    const response = await fetchImpl(discoveryUrl, { signal: AbortSignal.timeout(discoveryTimeoutMs) });
    if (!response.ok) throw new Error(`OIDC discovery answered HTTP ${response.status}`);
    const metadata = (await response.json()) as { jwks_uri?: unknown };
    if (typeof metadata.jwks_uri !== 'string') throw new Error('OIDC discovery has no jwks_uri');
    return createRemoteJWKSet(checkedUrl(metadata.jwks_uri, 'jwks_uri'), {
      timeoutDuration: discoveryTimeoutMs,
      cooldownDuration: options.cooldownSeconds * 1000,
      [customFetch]: fetchKeySet,
    });
  };

  const trimmed = authority.replace(/\/+$/, '');
  return {
    issuers: [trimmed, `${trimmed}/`],
    generation: () => generation,
    onKeySet: (listener) => void listeners.push(listener),
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

async function thumbprintsOf(text: string): Promise<ReadonlySet<string> | undefined> {
  try {
    const set = JSON.parse(text) as { keys?: unknown };
    if (!Array.isArray(set.keys)) return undefined;
    const present = new Set<string>();
    for (const key of set.keys as JWK[]) {
      try {
        present.add(await calculateJwkThumbprint(key));
      } catch {
        // A key jose cannot name cannot have verified a token either.
      }
    }
    return present;
  } catch {
    return undefined;
  }
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
