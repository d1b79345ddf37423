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

/** A usable token's claims, or the problem to show (not a JWT, expired). */
function checkToken(token: string): { token: string; claims: Claims } | string {
  const trimmed = token.trim().replace(/^Bearer\s+/i, '');
  const claims = decodeClaims(trimmed);
  if (claims === undefined) return 'That is not a JWT (three base64url parts separated by dots).';
  if (typeof claims.exp === 'number' && claims.exp * 1000 <= Date.now()) return 'That token has expired.';
  return { token: trimmed, claims };
}

/** How a user is named: `name` claim, else `sub`. */
function userOf(claims: Claims): string {
  return typeof claims.name === 'string' ? claims.name : typeof claims.sub === 'string' ? claims.sub : '';
}

/** Signs in with a token; answers a problem to show, or undefined. */
export function signIn(token: string, via: Session['via'] = 'token'): string | undefined {
  const checked = checkToken(token);
  if (typeof checked === 'string') return checked;
  const { token: trimmed, claims } = checked;
  sessionStorage.setItem(storageKey, trimmed);
  signOutReason.value = undefined;
  session.value = {
    token: trimmed,
    claims,
    user: userOf(claims),
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

/** A `#token=` link for another user than the one signed in, waiting for the user's answer. */
export interface PendingSwitch {
  token: string;
  /** The signed-in user and the link's, each as `name (sub)`, or `sub`. */
  current: string;
  next: string;
}

export const pendingSwitch = signal<PendingSwitch | undefined>(undefined);

/** `Alice (alice)`, or `alice` when the token has no other name: two users may share a display name. */
function describeUser(claims: Claims): string {
  const sub = typeof claims.sub === 'string' ? claims.sub : '';
  const name = userOf(claims);
  return name !== sub && sub !== '' ? `${name} (${sub})` : name;
}

/**
 * A token in the address bar's fragment (`#token=<JWT>`, as `serve` prints it): taken, then removed from the
 * address bar and the history at once. A fragment never reaches the server. A link for another user (another
 * `sub`) than the one signed in waits for the user to confirm the switch: a link must not swap the person whose
 * name the console shows, and whose rights it acts with, unnoticed. The same user's new token just replaces it.
 */
export function takeFragmentToken(): void {
  const match = /^#token=([^&]+)/.exec(location.hash);
  if (match?.[1] === undefined) return;
  history.replaceState(null, '', `${location.pathname}${location.search}#/`);
  const checked = checkToken(decodeURIComponent(match[1]));
  const current = session.value;
  if (typeof checked === 'string') {
    // Shown on the sign-in page when nobody is signed in; a signed-in user just keeps the session.
    signOutReason.value = checked;
    return;
  }
  if (current !== undefined && current.claims.sub !== checked.claims.sub) {
    pendingSwitch.value = {
      token: checked.token,
      current: describeUser(current.claims),
      next: describeUser(checked.claims),
    };
    return;
  }
  pendingSwitch.value = undefined;
  signIn(checked.token);
}

/** The user confirmed the link's user: the current session ends (its live connections close) first. */
export function acceptSwitch(): void {
  const pending = pendingSwitch.value;
  pendingSwitch.value = undefined;
  if (pending === undefined) return;
  signOut();
  const problem = signIn(pending.token);
  if (problem !== undefined) signOutReason.value = problem;
}

/** The user keeps the current session; the link's token is forgotten. */
export function declineSwitch(): void {
  pendingSwitch.value = undefined;
}
