// Browser helpers for the console tests: a signed-in page, accessibility checks with axe-core, screenshots.
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { screenshotsDir } from './harness.ts';

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface ConsolePage {
  readonly page: Page;
  readonly context: BrowserContext;
  /** Console messages of level error, and page errors (a CSP refusal shows here). */
  readonly errors: string[];
  close(): Promise<void>;
}

export interface OpenOptions {
  /** `#token=` link; without it the sign-in page opens. */
  token?: string;
  /** Hash route to open after sign-in, e.g. `/plc/line1`. */
  route?: string;
  viewport?: { width: number; height: number };
  colorScheme?: 'light' | 'dark';
}

export async function openConsole(
  browser: Browser,
  baseUrl: string,
  options: OpenOptions = {},
): Promise<ConsolePage> {
  const context = await browser.newContext({
    viewport: options.viewport ?? { width: 1280, height: 720 },
    colorScheme: options.colorScheme ?? 'light',
  });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (m) => {
    // A failed load names its URL in the location, not the text: keep it, so a test can tell which load failed.
    if (m.type() === 'error') errors.push(m.location().url ? `${m.text()} (${m.location().url})` : m.text());
  });
  page.on('pageerror', (e) => errors.push(e.message));
  const fragment = options.token ? `#token=${options.token}` : '';
  await page.goto(`${baseUrl}/console/${fragment}`);
  if (options.token) {
    await page.getByTestId('user').waitFor();
    if (options.route) await page.evaluate(`location.hash = ${JSON.stringify(`#${options.route}`)}`);
  }
  return { page, context, errors, close: () => context.close() };
}

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: string[] }>;
}

/** Runs axe-core on the page (through DevTools, so the page's CSP does not apply) and fails on serious ones. */
export async function assertAccessible(page: Page, what: string): Promise<void> {
  await page.evaluate(axeSource);
  const violations = await page.evaluate<AxeViolation[]>(
    `axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })) })))`,
  );
  const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepEqual(
    serious.map(
      (v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`,
    ),
    [],
    `axe on ${what}`,
  );
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(screenshotsDir, { recursive: true });
  await page.screenshot({ path: join(screenshotsDir, `${name}.png`) });
}
