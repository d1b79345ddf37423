// The console's frame: header with navigation, the signed-in user, theme and sign-out; the current view below.
import { session, signOut, settings } from './auth/session.ts';
import { route } from './router.ts';
import { toggleTheme, theme } from './theme.ts';
import { SwitchUser } from './components/switch-user.tsx';
import { SignIn } from './views/sign-in.tsx';
import { views } from './views/index.ts';

function NotFound() {
  return (
    <section>
      <h1>Not found</h1>
      <p>
        There is no such page, or your token does not permit it. <a href="#/">Back to the overview</a>.
      </p>
    </section>
  );
}

export function App() {
  const current = session.value;
  if (current === undefined) return <SignIn />;
  const { segments } = route.value;
  const features = settings.value.features;
  const id = segments[0] ?? '';
  const view = views.find((v) => v.id === id && v.allowed(current, features));
  return (
    <>
      <a
        class="skip"
        href="#main"
        onClick={(e) => (e.preventDefault(), document.getElementById('main')?.focus())}
      >
        Skip to content
      </a>
      <header class="top">
        <span class="brand">plc-gateway</span>
        <nav aria-label="Views">
          <ul>
            {views
              .filter((v) => v.nav && v.allowed(current, features))
              .map((v) => (
                <li key={v.id}>
                  <a href={`#/${v.id}`} aria-current={v === view ? 'page' : undefined}>
                    {v.title}
                  </a>
                </li>
              ))}
          </ul>
        </nav>
        <span class="user">
          Signed in as <strong data-testid="user">{current.user}</strong>
        </span>
        <button
          type="button"
          onClick={toggleTheme}
          aria-label={`Switch to ${theme.value === 'dark' ? 'light' : 'dark'} theme`}
        >
          {theme.value === 'dark' ? 'Light' : 'Dark'}
        </button>
        <button type="button" onClick={() => signOut()}>
          Sign out
        </button>
      </header>
      <main id="main" tabIndex={-1}>
        {view ? view.render(segments.slice(1)) : <NotFound />}
      </main>
      <SwitchUser />
    </>
  );
}
