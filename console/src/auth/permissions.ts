// What the signed-in token allows, computed from its claims exactly as the gateway's guards do (role ∩ scope),
// so the console hides or disables what the gateway would refuse. The gateway still decides every request.

export interface Permissions {
  read: boolean;
  write: boolean;
  lifecycle: boolean;
  admin: boolean;
}

export interface Claims {
  sub?: string;
  name?: string;
  exp?: number;
  scope?: unknown;
  scp?: unknown;
  [claim: string]: unknown;
}

const roleRank: Record<string, number> = { viewer: 1, operator: 2, admin: 3 };

/** The claim at a dotted path (`realm_access.roles`), as the gateway's RoleClaimType allows. */
function claimAt(claims: Claims, path: string): unknown {
  if (Object.hasOwn(claims, path)) return claims[path];
  let value: unknown = claims;
  for (const part of path.split('.')) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

function strings(value: unknown, splitSpaces: boolean): string[] {
  if (typeof value === 'string') return splitSpaces ? value.split(' ').filter(Boolean) : [value];
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string');
  return [];
}

export function permissionsOf(claims: Claims, roleClaim: string): Permissions {
  const rank = Math.max(0, ...strings(claimAt(claims, roleClaim), false).map((r) => roleRank[r] ?? 0));
  // `scope` is a space-separated string (an array there grants nothing); `scp` an array or a string.
  const scopes = new Set([
    ...(typeof claims.scope === 'string' ? strings(claims.scope, true) : []),
    ...strings(claims.scp, true),
  ]);
  return {
    read: rank >= 1 && scopes.has('ads:read'),
    write: rank >= 2 && scopes.has('ads:write'),
    lifecycle: rank >= 3 && scopes.has('ads:lifecycle'),
    admin: rank >= 3,
  };
}

/** The JWT's payload, undecoded by nothing but base64url: the signature is the gateway's business. */
export function decodeClaims(token: string): Claims | undefined {
  const payload = token.split('.')[1];
  if (payload === undefined) return undefined;
  try {
    const base64 = payload.replace(/-/g, '+').replace(/_/g, '/');
    const json = new TextDecoder().decode(Uint8Array.from(atob(base64), (c) => c.charCodeAt(0)));
    const claims: unknown = JSON.parse(json);
    return typeof claims === 'object' && claims !== null ? (claims as Claims) : undefined;
  } catch {
    return undefined;
  }
}
