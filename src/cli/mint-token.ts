// Mints HS256 bearer tokens with the gateway's claims (role, scope, plc_access) for development and CI.
import { SignJWT } from 'jose';
import { developmentSigningKey } from '../config/development-key.ts';
import type { AuthConfig } from '../config/schema.ts';

export interface TokenClaims {
  sub: string;
  /** One role or several; written under Auth.RoleClaimType. */
  role: string | string[];
  /** Space-separated scopes, for example `ads:read ads:write`. */
  scope: string;
  /** plcIds the token may reach; `['*']` for every PLC. */
  plcAccess: string[];
  ttlSeconds: number;
  issuer?: string;
  audience?: string;
}

export interface SigningSetup {
  key: string;
  roleClaim: string;
}

/** The HS256 key tokens must be signed with for this Auth section, or the reason there is none. */
export function signingSetup(auth: AuthConfig): SigningSetup | { problem: string } {
  if (auth.SigningKey !== undefined) return { key: auth.SigningKey, roleClaim: auth.RoleClaimType };
  if (auth.UseDevelopmentKey) return { key: developmentSigningKey, roleClaim: auth.RoleClaimType };
  const source =
    auth.Authority !== undefined
      ? 'Auth.Authority'
      : auth.JwksFile !== undefined
        ? 'Auth.JwksFile'
        : 'Auth.PublicKeyFile';
  return {
    problem: `this configuration verifies tokens through ${source}; only Auth.SigningKey or Auth.UseDevelopmentKey can be used to mint tokens here`,
  };
}

export async function mintToken(claims: TokenClaims, setup: SigningSetup, now = new Date()): Promise<string> {
  const issuedAt = Math.floor(now.getTime() / 1000);
  let jwt = new SignJWT({
    [setup.roleClaim]: claims.role,
    scope: claims.scope,
    plc_access: claims.plcAccess,
  })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(claims.sub)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + claims.ttlSeconds);
  if (claims.issuer !== undefined) jwt = jwt.setIssuer(claims.issuer);
  if (claims.audience !== undefined) jwt = jwt.setAudience(claims.audience);
  return jwt.sign(new TextEncoder().encode(setup.key));
}

/** The admin token `serve` prints when the development key is in use: everything, every PLC, 12 hours. */
export function developmentAdminClaims(auth: AuthConfig): TokenClaims {
  return {
    sub: 'dev-admin',
    role: 'admin',
    scope: 'ads:read ads:write ads:lifecycle',
    plcAccess: ['*'],
    ttlSeconds: 12 * 3600,
    ...(auth.Issuer === undefined ? {} : { issuer: auth.Issuer }),
    ...(auth.Audience === undefined ? {} : { audience: auth.Audience }),
  };
}
