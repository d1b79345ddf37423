// Sign-in through the OIDC issuer (authorization code with PKCE, by oidc-client-ts) when the gateway names one
// (Auth.Authority and Console.ClientId). Its state and user live in sessionStorage, like a pasted token;
// silent renewal replaces the session's token before it expires.
import { UserManager, WebStorageStateStore, type User } from 'oidc-client-ts';
import { onSignOut, settings, signIn, signOutReason } from './session.ts';

let manager: UserManager | undefined;

function consoleUrl(): string {
  return `${location.origin}${location.pathname}`;
}

function userManager(): UserManager | undefined {
  const oidc = settings.value.oidc;
  if (oidc === null) return undefined;
  if (manager !== undefined) return manager;
  const store = new WebStorageStateStore({ store: sessionStorage });
  manager = new UserManager({
    authority: oidc.authority,
    client_id: oidc.clientId,
    scope: oidc.scope,
    redirect_uri: consoleUrl(),
    silent_redirect_uri: consoleUrl(),
    response_type: 'code',
    automaticSilentRenew: true,
    stateStore: store,
    userStore: store,
  });
  const adopt = (user: User): void => {
    const problem = signIn(user.access_token, 'oidc');
    if (problem !== undefined) signOutReason.value = problem;
  };
  manager.events.addUserLoaded(adopt);
  onSignOut(() => void manager?.removeUser());
  return manager;
}

export function oidcAvailable(): boolean {
  return settings.value.oidc !== null;
}

export async function startOidcSignIn(): Promise<void> {
  await userManager()?.signinRedirect();
}

function isCallback(): boolean {
  const params = new URLSearchParams(location.search);
  return params.has('state') && (params.has('code') || params.has('error'));
}

/**
 * Finishes a sign-in the issuer redirected back to (the page, or the hidden renewal frame), or resumes the
 * issuer's user of this tab. Answers true when this window is only the renewal frame and must render nothing.
 */
export async function resumeOidc(): Promise<boolean> {
  const users = userManager();
  if (users === undefined) return false;
  if (isCallback()) {
    if (window.parent !== window) {
      await users.signinSilentCallback();
      return true;
    }
    try {
      await users.signinRedirectCallback();
    } catch (err) {
      signOutReason.value = `Sign-in failed: ${err instanceof Error ? err.message : String(err)}`;
    }
    history.replaceState(null, '', `${location.pathname}#/`);
    return false;
  }
  const user = await users.getUser();
  if (user !== null && !user.expired) signIn(user.access_token, 'oidc');
  return false;
}
