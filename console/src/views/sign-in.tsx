// Sign-in: paste a token, or sign in through the OIDC issuer when the gateway names one.
import { useState } from 'preact/hooks';
import { oidcAvailable, startOidcSignIn } from '../auth/oidc.ts';
import { signIn, signOutReason } from '../auth/session.ts';

export function SignIn() {
  const [token, setToken] = useState('');
  const [problem, setProblem] = useState<string | undefined>(undefined);
  const submit = (event: Event): void => {
    event.preventDefault();
    setProblem(signIn(token));
  };
  const reason = problem ?? signOutReason.value;
  return (
    <main id="main" class="sign-in">
      <h1>Sign in to plc-gateway</h1>
      {reason !== undefined && (
        <p role="alert" class="error-text">
          {reason}
        </p>
      )}
      {oidcAvailable() && (
        <p>
          <button type="button" class="primary" onClick={() => void startOidcSignIn()}>
            Sign in
          </button>
        </p>
      )}
      <form onSubmit={submit}>
        <label for="token">Access token (JWT)</label>
        <textarea
          id="token"
          rows={5}
          spellcheck={false}
          autoComplete="off"
          value={token}
          onInput={(e) => setToken(e.currentTarget.value)}
        />
        <p class="muted">
          Kept in this browser tab only, until you sign out or close the tab. <code>plc-gateway token</code>{' '}
          mints one.
        </p>
        <button type="submit" class={oidcAvailable() ? '' : 'primary'}>
          Use token
        </button>
      </form>
    </main>
  );
}
