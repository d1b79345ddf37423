// The signed-in user: the token (kept in sessionStorage only, so it ends with the tab and never outlives a
// sign-out), its claims and what they permit. Cleared on sign-out and on any 401 from the gateway.
import { signal } from '@preact/signals';
import type { ConsoleSettings } from '../api/types.ts';
import { decodeClaims, permissionsOf, type Claims, type Permissions } from './permissions.ts';

export interface Session {
  token: string;
  claims: Claims;
  /** `name` claim, else `sub`. */
  user: string;
  permissions: Permissions;
  /** How the token was obtained: pasted (or from a link), or the OIDC issuer. */
  via: 'token' | 'oidc';
}

const storageKey = 'plc-console.token';

export const settings = signal<ConsoleSettings>({ oidc: null, roleClaim: 'role', features: {} });
export const session = signal<Session | undefined>(undefined);
/** Why the last session ended, shown on the sign-in page. */
export const signOutReason = signal<string | undefined>(undefined);
const signOutHooks: Array<() => void> = [];

/** Runs `hook` on every sign-out (OIDC removes its user; live connections close). */
export function onSignOut(hook: () => void): void {
  signOutHooks.push(hook);
}

/** Signs in with a token; answers a problem to show, or undefined. */
export function signIn(token: string, via: Session['via'] = 'token'): string | undefined {
  const trimmed = token.trim().replace(/^Bearer\s+/i, '');
  const claims = decodeClaims(trimmed);
  if (claims === undefined) return 'That is not a JWT (three base64url parts separated by dots).';
  if (typeof claims.exp === 'number' && claims.exp * 1000 <= Date.now()) return 'That token has expired.';
  const user =
    typeof claims.name === 'string' ? claims.name : typeof claims.sub === 'string' ? claims.sub : '';
  sessionStorage.setItem(storageKey, trimmed);
  signOutReason.value = undefined;
  session.value = {
    token: trimmed,
    claims,
    user,
    permissions: permissionsOf(claims, settings.value.roleClaim),
    via,
  };
  return undefined;
}

export function signOut(reason?: string): void {
  sessionStorage.removeItem(storageKey);
  if (session.value === undefined) return;
  session.value = undefined;
  signOutReason.value = reason;
  for (const hook of signOutHooks) hook();
}

/** The token this tab signed in with before a reload, if any. */
export function restoreSession(): void {
  const token = sessionStorage.getItem(storageKey);
  if (token !== null && signIn(token) !== undefined) sessionStorage.removeItem(storageKey);
}

/**
 * A token in the address bar's fragment (`#token=<JWT>`, as `serve` prints it): taken, then removed from the
 * address bar and the history at once. A fragment never reaches the server.
 */
export function takeFragmentToken(): void {
  const match = /^#token=([^&]+)/.exec(location.hash);
  if (match?.[1] === undefined) return;
  history.replaceState(null, '', `${location.pathname}${location.search}#/`);
  const problem = signIn(decodeURIComponent(match[1]));
  if (problem !== undefined) signOutReason.value = problem;
}
