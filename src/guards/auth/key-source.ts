// Resolves the one configured token-signing key source (Auth settings) into what jose verifies against.
import { createPublicKey, createSecretKey, type KeyObject } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { createLocalJWKSet, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose';
import { ConfigError, type AuthConfig } from '../../config/schema.ts';
import { keySourceProblem } from '../../config/cross-checks.ts';
import { developmentSigningKey } from '../../config/development-key.ts';
import { createOidcKeyResolver, type FetchLike } from './oidc-discovery.ts';

/** Signature algorithms a key can verify; HS* and `none` never appear for public keys. */
export const asymmetricAlgorithms = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
] as const;

export interface KeySource {
  /** Which setting supplied the key, for logs. */
  readonly kind: 'SigningKey' | 'UseDevelopmentKey' | 'PublicKeyFile' | 'JwksFile' | 'Authority';
  /** Imported once: jose keeps the WebCrypto form of a KeyObject, so no request imports a key again. */
  readonly key: KeyObject | JWTVerifyGetKey;
  /** The only algorithms accepted: those of the configured key. */
  readonly algorithms: readonly string[];
  /** Issuer expected when `Auth.Issuer` is not set (the Authority), else undefined. */
  readonly defaultIssuer?: readonly string[];
  /** Changes when the keys change (a JWKS rotation); absent for keys fixed at start-up. */
  readonly generation?: () => number;
  /** Key sets that can change (Authority): runs with the JWK thumbprints of each new set's keys. */
  readonly onKeySet?: (listener: (thumbprints: ReadonlySet<string>) => void) => void;
}

export interface KeySourceOptions {
  readonly contentRoot: string;
  /** Used for OIDC discovery; tests and proxies can replace it. */
  readonly fetch?: FetchLike;
}

export async function resolveKeySource(auth: AuthConfig, options: KeySourceOptions): Promise<KeySource> {
  // The loader checks this too; an Auth section built in code must not slip past it.
  const problem = keySourceProblem(auth);
  if (problem !== undefined) throw new ConfigError([problem]);
  if (auth.Authority !== undefined) {
    const resolver = createOidcKeyResolver(auth.Authority, options.fetch ?? fetch, {
      cooldownSeconds: auth.JwksCooldownSeconds,
    });
    return {
      kind: 'Authority',
      key: resolver.getKey,
      algorithms: asymmetricAlgorithms,
      defaultIssuer: resolver.issuers,
      generation: resolver.generation,
      onKeySet: resolver.onKeySet,
    };
  }
  if (auth.JwksFile !== undefined) return jwksFileSource(resolve(options.contentRoot, auth.JwksFile));
  if (auth.PublicKeyFile !== undefined) {
    return publicKeySource(resolve(options.contentRoot, auth.PublicKeyFile));
  }
  const secret = auth.SigningKey ?? developmentSigningKey;
  return {
    kind: auth.SigningKey !== undefined ? 'SigningKey' : 'UseDevelopmentKey',
    key: createSecretKey(Buffer.from(secret, 'utf8')),
    algorithms: ['HS256'],
  };
}

async function publicKeySource(file: string): Promise<KeySource> {
  const pem = await readSetting(file, 'Auth.PublicKeyFile');
  let key: KeyObject;
  try {
    key = createPublicKey(pem);
  } catch (err) {
    throw new ConfigError([`Auth.PublicKeyFile: not a PEM public key (${(err as Error).message})`]);
  }
  return { kind: 'PublicKeyFile', key, algorithms: [algorithmFor(key)] };
}

function algorithmFor(key: KeyObject): string {
  const type = key.asymmetricKeyType;
  if (type === 'rsa') return 'RS256';
  if (type === 'ed25519') return 'EdDSA';
  if (type === 'ec') {
    const curve = key.asymmetricKeyDetails?.namedCurve;
    if (curve === 'prime256v1') return 'ES256';
    if (curve === 'secp384r1') return 'ES384';
    if (curve === 'secp521r1') return 'ES512';
  }
  throw new ConfigError([
    `Auth.PublicKeyFile: unsupported key type ${type ?? 'unknown'} (use RSA or EC P-256)`,
  ]);
}

async function jwksFileSource(file: string): Promise<KeySource> {
  const text = await readSetting(file, 'Auth.JwksFile');
  let jwks: JSONWebKeySet;
  try {
    jwks = JSON.parse(text) as JSONWebKeySet;
    if (!Array.isArray(jwks.keys)) throw new Error('no "keys" array');
  } catch (err) {
    throw new ConfigError([`Auth.JwksFile: not a JSON Web Key Set (${(err as Error).message})`]);
  }
  const symmetric = jwks.keys.filter((k) => k.kty === 'oct');
  if (symmetric.length > 0) {
    throw new ConfigError(['Auth.JwksFile: symmetric (oct) keys are not accepted; use SigningKey']);
  }
  return { kind: 'JwksFile', key: createLocalJWKSet(jwks), algorithms: asymmetricAlgorithms };
}

async function readSetting(file: string, setting: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    throw new ConfigError([
      `${setting}: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
    ]);
  }
}
