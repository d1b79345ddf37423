// The web console at /console/ (and / redirecting there): the page, its hashed assets and the sign-in settings
// the page needs. The console has no privileges of its own: it calls the public API with the user's token.
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config/schema.ts';
import { defaultConsoleDir, loadBuiltConsole } from './built-console.ts';
import { pageHeaders } from './security-headers.ts';

export interface ConsoleOptions {
  readonly config: Config;
  /** Folder holding the built console (index.html, assets/); default dist/console. */
  readonly dir?: string;
}

/** What the page reads before signing in: how to sign in, and which claim carries the role. */
function clientSettings(config: Config): object {
  const { Auth, Console } = config.settings;
  const oidc =
    Auth.Authority !== undefined && Console.ClientId !== undefined
      ? { authority: Auth.Authority, clientId: Console.ClientId, scope: Console.Scope }
      : null;
  return { oidc, roleClaim: Auth.RoleClaimType, features: config.features };
}

export async function consoleRoutes(app: FastifyInstance, { config, dir }: ConsoleOptions): Promise<void> {
  if (!config.settings.Console.Enabled) return;
  const built = loadBuiltConsole(dir ?? defaultConsoleDir);
  if (built === undefined) {
    app.log.warn('The web console is not built (npm run build): /console/ answers 404');
    return;
  }
  const headers = pageHeaders(config.settings);
  const settingsJson = JSON.stringify(clientSettings(config));

  app.get('/', { schema: { hide: true } }, (_request, reply) => reply.redirect('/console/', 302));
  app.get('/console', { schema: { hide: true } }, (_request, reply) => reply.redirect('/console/', 301));
  app.get('/console/', { schema: { hide: true } }, (_request, reply) =>
    reply
      .headers(headers)
      .header('cache-control', 'no-cache')
      .type('text/html; charset=utf-8')
      .send(built.indexHtml),
  );
  app.get('/console/settings.json', { schema: { hide: true } }, (_request, reply) =>
    reply.headers(headers).header('cache-control', 'no-cache').type('application/json').send(settingsJson),
  );
  await app.register(fastifyStatic, {
    root: built.assetsDir,
    prefix: '/console/assets/',
    decorateReply: false,
    index: false,
    list: false,
    dotfiles: 'deny',
    // The build writes .gz beside each asset.
    preCompressed: true,
    cacheControl: false,
    // Names carry a content hash: a changed file is a new URL.
    setHeaders: (reply) =>
      void reply.headers(headers).header('cache-control', 'public, max-age=31536000, immutable'),
  });
}
