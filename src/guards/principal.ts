// The caller as the guards see it: subject, roles, scopes and the PLCs the token may reach, from JWT claims.
import { AppError } from '../errors.ts';

/** `ids` are lower case: compare through canAccessPlc. */
export type PlcAccess = { readonly all: true } | { readonly all: false; readonly ids: ReadonlySet<string> };

export interface Principal {
  /** The token's `sub`: the user every per-user limit is keyed by. */
  readonly sub: string;
  readonly roles: ReadonlySet<string>;
  readonly scopes: ReadonlySet<string>;
  readonly plcAccess: PlcAccess;
  /** The token the principal came from; absent for principals not built from a verified request token. */
  readonly token?: TokenLifetime;
}

/** How long the token behind a principal is accepted, and which key signed it; streams end with it. */
export interface TokenLifetime {
  /** Token clock, ms: `exp` plus Auth:ClockSkewSeconds, when verification starts refusing the token. */
  readonly expiresAt: number;
  /** JWK thumbprint of the signing key when the key set can change (Auth:Authority); else absent. */
  readonly key?: string;
}

/** Whether `next` grants nothing that `current` does not: roles, scopes and plc_access each a subset. */
export function isNarrowerOrSame(next: Principal, current: Principal): boolean {
  const subset = (a: ReadonlySet<string>, b: ReadonlySet<string>): boolean => [...a].every((x) => b.has(x));
  if (!subset(next.roles, current.roles) || !subset(next.scopes, current.scopes)) return false;
  if (current.plcAccess.all) return true;
  return !next.plcAccess.all && subset(next.plcAccess.ids, current.plcAccess.ids);
}

export interface PrincipalOptions {
  /** Claim carrying roles; a dotted name (`realm_access.roles`) walks nested objects. */
  readonly roleClaimType: string;
  /** Applied when the token carries no `plc_access` claim. */
  readonly defaultPlcAccess: 'none' | '*';
  /** `JsonArrayOrString` also accepts the array JSON-encoded in a string claim (identity providers that cannot emit arrays). */
  readonly plcAccessClaimFormat: PlcAccessClaimFormat;
}

export type PlcAccessClaimFormat = 'JsonArray' | 'JsonArrayOrString';

const noPlcs: PlcAccess = { all: false, ids: new Set() };

/** Builds the principal from verified claims; a token without a usable `sub` is refused. */
export function principalFromClaims(
  claims: Readonly<Record<string, unknown>>,
  options: PrincipalOptions,
): Principal {
  const sub = claims.sub;
  if (typeof sub !== 'string' || sub.length === 0) {
    throw new AppError('UNAUTHORIZED', 'The token has no sub claim.', {
      'WWW-Authenticate': 'Bearer error="invalid_token"',
    });
  }
  return {
    sub,
    roles: new Set(stringList(claimAt(claims, options.roleClaimType), /[\s,]+/)),
    // RFC 8693: `scope` is one space-separated string; arrays belong in `scp` (which some providers send as a string).
    scopes: new Set([
      ...(typeof claims.scope === 'string' ? stringList(claims.scope, /\s+/) : []),
      ...stringList(claims.scp, /\s+/),
    ]),
    plcAccess: plcAccessFrom(claims.plc_access, options.defaultPlcAccess, options.plcAccessClaimFormat),
  };
}

/** plcIds are matched ignoring case, in the claim as in routes. */
export function canAccessPlc(principal: Pick<Principal, 'plcAccess'>, plcId: string): boolean {
  return principal.plcAccess.all || principal.plcAccess.ids.has(plcId.toLowerCase());
}

function claimAt(claims: Readonly<Record<string, unknown>>, name: string): unknown {
  if (Object.hasOwn(claims, name)) return claims[name];
  let current: unknown = claims;
  for (const part of name.split('.')) {
    if (typeof current !== 'object' || current === null || !Object.hasOwn(current, part)) return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

// Identity providers disagree: some send arrays, some one space-separated string.
function stringList(value: unknown, separator: RegExp): string[] {
  if (typeof value === 'string') return value.split(separator).filter((s) => s.length > 0);
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string' && v.length > 0);
  return [];
}

/**
 * `plc_access` is a JSON array of plcIds (`["*"]` for all). Only when the format allows it, the array may come
 * JSON-encoded in a string. Anything else grants nothing: a malformed claim never widens access.
 */
export function plcAccessFrom(
  claim: unknown,
  fallback: 'none' | '*',
  format: PlcAccessClaimFormat = 'JsonArray',
): PlcAccess {
  if (claim === undefined) return fallback === '*' ? { all: true } : noPlcs;
  let value: unknown = claim;
  if (typeof value === 'string') {
    if (format !== 'JsonArrayOrString') return noPlcs;
    try {
      value = JSON.parse(value) as unknown;
    } catch {
      return noPlcs;
    }
  }
  if (!Array.isArray(value) || !value.every((v): v is string => typeof v === 'string')) return noPlcs;
  if (value.includes('*')) return { all: true };
  return { all: false, ids: new Set(value.map((id) => id.toLowerCase())) };
}
