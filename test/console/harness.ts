// The console's test rig: the console built once into a temporary folder, a real gateway over two simulated
// PLCs listening on 127.0.0.1 port 0, and Debian's Chromium driven by playwright-core.
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { chromium, type Browser } from 'playwright-core';
import { buildConsole, type ConsoleBuild } from '../../console/build.ts';
import { buildApp, type AppDeps } from '../../src/app.ts';
import { loadConfig } from '../../src/config/load.ts';
import { buildTargets } from '../../src/targets/build-targets.ts';
import { createRegistry, type TargetRegistry } from '../../src/targets/registry.ts';
import { testSigningKey } from '../helpers/config.ts';
import { writeSettings } from '../config/helpers.ts';

const repo = resolve(import.meta.dirname, '..', '..');
/**
 * Where the browser tests save a screenshot of each view: .tmp/console-screenshots, or CONSOLE_SCREENSHOTS
 * (`npm run docs:screenshots` refreshes the ones README shows). Never the tracked files by default, so a test
 * run leaves the checkout clean.
 */
export const screenshotsDir = resolve(
  repo,
  process.env.CONSOLE_SCREENSHOTS ?? join('.tmp', 'console-screenshots'),
);

let built: Promise<ConsoleBuild> | undefined;

/** The console built by the same function `npm run build` runs, once per test process. */
export function builtConsole(): Promise<ConsoleBuild> {
  built ??= buildConsole(mkdtempSync(join(tmpdir(), 'plc-console-')));
  return built;
}

/** Two simulated PLCs with every area on: line1 (the console scenario, alarms monitored) and line2. */
export function gatewaySettings(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const fileRoot = mkdtempSync(join(tmpdir(), 'plc-console-files-'));
  mkdirSync(join(fileRoot, 'recipes'));
  writeFileSync(join(fileRoot, 'recipes', 'r1.csv'), 'speed;60\nlayers;6\n');
  return {
    Logging: { Level: 'silent' },
    Auth: { SigningKey: testSigningKey },
    Features: {
      TypeMetadata: true,
      Rpc: true,
      Files: true,
      Lifecycle: true,
      Alarms: true,
      Simulation: true,
    },
    PlcTargets: {
      line1: {
        DisplayName: 'Packaging line 1',
        Mode: 'Simulated',
        Scenario: join(import.meta.dirname, 'scenario'),
        FileRoot: fileRoot,
        InitialValues: {
          'MAIN.nSpeed': { value: 1500, type: 'INT' },
          'MAIN.bRunning': { value: true, type: 'BOOL' },
          'MAIN.sRecipe': { value: 'Standard', type: 'STRING(20)' },
          'MAIN.dStart': { type: 'DATE' },
        },
      },
      line2: {
        DisplayName: 'Palletizer',
        Mode: 'Simulated',
        Scenario: join(repo, 'examples', 'scenarios', 'small'),
      },
    },
    PlcAlarms: {
      Targets: { line1: { SymbolPath: 'GVL_HMI.fbAlarms.aAlarms', CycleTimeMs: 50, PlcClock: 'Utc' } },
    },
    RateLimiting: { NotificationConnections: 100 },
    ...overrides,
  };
}

export interface Gateway {
  readonly url: string;
  readonly app: FastifyInstance;
  readonly registry: TargetRegistry;
  close(): Promise<void>;
}

export async function startGateway(
  settings: Record<string, unknown> = gatewaySettings(),
  deps: Partial<AppDeps> = {},
): Promise<Gateway> {
  const config = loadConfig(writeSettings(settings), {});
  const registry = createRegistry(await buildTargets(config));
  const consoleBuild = await builtConsole();
  const app = await buildApp(config, { registry, consoleDir: consoleBuild.outDir, ...deps });
  await registry.startAll();
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    app,
    registry,
    close: async () => {
      await app.close();
      await registry.closeAll();
    },
  };
}

/**
 * Chromium from Debian; without these flags its connections are refused in containers like CI's. Playwright
 * gives every launch a fresh --user-data-dir of its own (and refuses one passed in args).
 */
export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
