// Entry point: read the gateway's console settings, take a token from the address bar, an OIDC callback or
// this tab's session, then render.
import { render } from 'preact';
import 'uplot/dist/uPlot.min.css';
import './styles/app.css';
import type { ConsoleSettings } from './api/types.ts';
import { resumeOidc } from './auth/oidc.ts';
import { restoreSession, settings, takeFragmentToken } from './auth/session.ts';
import { App } from './app.tsx';
import './live/recorder.ts';
import { startRouter } from './router.ts';
import { applyTheme } from './theme.ts';

async function start(): Promise<void> {
  applyTheme();
  const response = await fetch('settings.json', { cache: 'no-store' });
  settings.value = (await response.json()) as ConsoleSettings;
  restoreSession();
  takeFragmentToken();
  if (await resumeOidc()) return;
  // A link opened in this tab while the console is open changes only the fragment: no reload. Registered before
  // the router, which then sees the fragment without the token.
  window.addEventListener('hashchange', takeFragmentToken);
  startRouter();
  const root = document.getElementById('app');
  if (root !== null) render(<App />, root);
}

void start();
