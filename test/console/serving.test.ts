// Serving the console: the page and its hashed assets with their cache and security headers, the redirect from
// /, Console.Enabled, the sign-in settings, and the bundle budget of the build `npm run build` runs.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { relative } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../../src/config/load.ts';
import { buildTestApp } from '../helpers/app.ts';
import { problemsOf, writeSettings } from '../config/helpers.ts';
import { testSigningKey } from '../helpers/config.ts';
import { builtConsole } from './harness.ts';

const budgetBytes = 250 * 1024;

async function consoleApp(settings: Record<string, unknown> = {}): Promise<FastifyInstance> {
  const build = await builtConsole();
  return buildTestApp({ settings, consoleDir: build.outDir });
}

describe('console serving', () => {
  let app: FastifyInstance;
  before(async () => (app = await consoleApp()));
  after(() => app.close());

  it('redirects / and /console to /console/', async () => {
    const root = await app.inject({ url: '/' });
    assert.equal(root.statusCode, 302);
    assert.equal(root.headers.location, '/console/');
    const bare = await app.inject({ url: '/console' });
    assert.equal(bare.headers.location, '/console/');
  });

  it('serves the page uncached under a strict CSP, with no inline script or style', async () => {
    const page = await app.inject({ url: '/console/' });
    assert.equal(page.statusCode, 200);
    assert.match(String(page.headers['content-type']), /^text\/html/);
    assert.equal(page.headers['cache-control'], 'no-cache');
    const csp = String(page.headers['content-security-policy']);
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.match(csp, /style-src 'self'(;|$)/);
    assert.match(csp, /connect-src 'self'(;|$)/);
    assert.doesNotMatch(csp, /unsafe|\*/);
    assert.equal(page.headers['x-content-type-options'], 'nosniff');
    // Every script and stylesheet comes from a hashed file; nothing inline.
    const scripts = [...page.body.matchAll(/<script([^>]*)>/g)].map((m) => m[1] ?? '');
    assert.equal(scripts.length, 1);
    assert.match(scripts[0] ?? '', /src="assets\/app-[A-Z0-9]{8}\.js"/);
    assert.doesNotMatch(page.body, /<style|style=/);
    assert.match(page.body, /<link rel="stylesheet" href="assets\/app-[A-Z0-9]{8}\.css">/);
  });

  it('serves hashed assets immutable, gzipped when accepted, and 404 for anything else', async () => {
    const page = await app.inject({ url: '/console/' });
    const script = /src="(assets\/[^"]+)"/.exec(page.body)?.[1];
    const style = /href="(assets\/[^"]+\.css)"/.exec(page.body)?.[1];
    for (const asset of [script, style]) {
      const res = await app.inject({ url: `/console/${asset}` });
      assert.equal(res.statusCode, 200, asset);
      assert.equal(res.headers['cache-control'], 'public, max-age=31536000, immutable');
      assert.ok(res.headers['content-security-policy']);
    }
    const js = await app.inject({ url: `/console/${script}` });
    assert.match(String(js.headers['content-type']), /javascript/);
    const gz = await app.inject({ url: `/console/${script}`, headers: { 'accept-encoding': 'gzip' } });
    assert.equal(gz.headers['content-encoding'], 'gzip');
    for (const url of ['/console/assets/missing.js', '/console/index.html']) {
      const res = await app.inject({ url });
      assert.equal(res.statusCode, 404, url);
      assert.equal(res.json<{ error: { code: string } }>().error.code, 'NOT_FOUND');
    }
    // Out of the assets folder: refused, never the file.
    for (const url of ['/console/assets/..%2Findex.html', '/console/assets/%2e%2e/index.html']) {
      const res = await app.inject({ url });
      assert.ok([403, 404].includes(res.statusCode), `${url}: ${res.statusCode}`);
      assert.doesNotMatch(res.body, /<html/);
      assert.ok(res.json<{ error: { code: string } }>().error.code, res.body);
    }
  });

  it('tells the page there is no OIDC sign-in unless Auth.Authority and Console.ClientId are set', async () => {
    const res = await app.inject({ url: '/console/settings.json' });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['cache-control'], 'no-cache');
    const body = res.json<{ oidc: unknown; roleClaim: string; features: Record<string, boolean> }>();
    assert.equal(body.oidc, null);
    assert.equal(body.roleClaim, 'role');
    assert.equal(body.features.Symbols, true);
  });

  it('names the issuer in the settings and lets the page reach it through the CSP', async () => {
    const oidc = await consoleApp({
      Auth: { SigningKey: undefined, Authority: 'http://127.0.0.1:9/realms/plant' },
      Console: { ClientId: 'plc-console', Scope: 'openid profile ads:read' },
    });
    try {
      const res = await oidc.inject({ url: '/console/settings.json' });
      assert.deepEqual(res.json<{ oidc: unknown }>().oidc, {
        authority: 'http://127.0.0.1:9/realms/plant',
        clientId: 'plc-console',
        scope: 'openid profile ads:read',
      });
      const csp = String((await oidc.inject({ url: '/console/' })).headers['content-security-policy']);
      assert.match(csp, /connect-src 'self' http:\/\/127\.0\.0\.1:9(;|$)/);
      assert.match(csp, /frame-src 'self' http:\/\/127\.0\.0\.1:9(;|$)/);
    } finally {
      await oidc.close();
    }
  });

  it('is not served when Console.Enabled is false', async () => {
    const off = await consoleApp({ Console: { Enabled: false } });
    try {
      for (const url of ['/', '/console/', '/console/settings.json']) {
        assert.equal((await off.inject({ url })).statusCode, 404, url);
      }
      const build = await builtConsole();
      const script = build.assets.find((a) => a.name.endsWith('.js'))?.name;
      assert.equal((await off.inject({ url: `/console/assets/${script}` })).statusCode, 404);
    } finally {
      await off.close();
    }
  });

  it('refuses Console.ClientId without Auth.Authority at start-up', () => {
    const file = writeSettings({
      Auth: { SigningKey: testSigningKey },
      Console: { ClientId: 'plc-console' },
    });
    assert.deepEqual(
      problemsOf(() => loadConfig(file, {})),
      ['Console.ClientId: needs Auth.Authority (the OIDC issuer the console signs in with)'],
    );
  });
});

describe('console bundle', () => {
  it('stays within 250 KB gzip for all its JS and CSS together', async () => {
    const build = await builtConsole();
    const counted = build.assets.filter((a) => a.name.endsWith('.js') || a.name.endsWith('.css'));
    assert.equal(counted.length, 2);
    const total = counted.reduce((sum, a) => sum + a.gzipBytes, 0);
    assert.ok(total <= budgetBytes, `console bundle is ${total} B gzip, over the ${budgetBytes} B budget`);
  });

  it('bundles nothing of the gateway: from src/ it takes only types', async () => {
    const build = await builtConsole();
    const fromSrc = build.inputs.filter((input) => relative('.', input).startsWith('src/'));
    assert.deepEqual(fromSrc, []);
  });
});
