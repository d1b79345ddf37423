// The headers every console page and asset is served with: a strict Content-Security-Policy (no inline script
// or style, nothing from outside the gateway but the OIDC issuer) and the usual hardening headers.
import type { Settings } from '../../config/schema.ts';

/** The OIDC issuer's origin when the console signs in through it, else undefined. */
function issuerOrigin(settings: Readonly<Settings>): string | undefined {
  const authority = settings.Auth.Authority;
  if (authority === undefined || settings.Console.ClientId === undefined) return undefined;
  return new URL(authority).origin;
}

function contentSecurityPolicy(settings: Readonly<Settings>): string {
  const issuer = issuerOrigin(settings);
  const withIssuer = (base: string): string => (issuer ? `${base} ${issuer}` : base);
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data: blob:",
    "font-src 'self'",
    // Discovery and the token endpoint are fetched from the issuer; 'self' covers the hub's same-origin ws:.
    withIssuer("connect-src 'self'"),
    // Silent renewal runs the issuer's authorize endpoint in a hidden frame that returns to the console.
    withIssuer("frame-src 'self'"),
    "frame-ancestors 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    "object-src 'none'",
  ].join('; ');
}

export function pageHeaders(settings: Readonly<Settings>): Record<string, string> {
  return {
    'content-security-policy': contentSecurityPolicy(settings),
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cross-origin-opener-policy': 'same-origin',
    'permissions-policy': 'camera=(), microphone=(), geolocation=()',
  };
}
