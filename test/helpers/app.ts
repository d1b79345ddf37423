// buildTestApp({ targets, settings }): the real app over fake PLC targets, silent, with an optional manual clock.
import type { FastifyInstance } from 'fastify';
import { buildApp, type AppDeps } from '../../src/app.ts';
import type { Config } from '../../src/config/schema.ts';
import { createRegistry } from '../../src/targets/registry.ts';
import type { PlcTarget } from '../../src/targets/target.ts';
import { testConfig, type SettingsOverrides } from './config.ts';

export interface TestAppOptions {
  targets?: readonly PlcTarget[];
  settings?: SettingsOverrides;
  /** A ready Config instead of `settings`. */
  config?: Config;
  now?: () => number;
  /** Waits between samples of long-running operations (watch_variables). */
  sleep?: AppDeps['sleep'];
  /** Clock for token times (exp, nbf, iat). */
  tokenNow?: () => number;
  /** Token clock with its timers (streams ending with their tokens); see manualDeadlineClock. */
  tokenClock?: AppDeps['tokenClock'];
  /** Gateway clock with its timers (alarm shelves running out); see manualDeadlineClock. */
  deadlines?: AppDeps['deadlines'];
  logger?: AppDeps['logger'];
  /** Shorter stream timers (hub ping and timeout, SSE heartbeat). */
  streamTimings?: AppDeps['streamTimings'];
  /** Folder of a built web console. */
  consoleDir?: string;
  /** Clock and sweeps of the send timeout. */
  sendWatch?: AppDeps['sendWatch'];
  /** Publishes services before the features register (a stand-in for one a feature would publish). */
  provide?: AppDeps['provide'];
  /** Runs before the app is made ready: add test-only routes here. */
  extend?: (app: FastifyInstance) => void | Promise<void>;
}

export async function buildTestApp(options: TestAppOptions = {}): Promise<FastifyInstance> {
  const config = options.config ?? testConfig(options.settings);
  const app = await buildApp(config, {
    registry: createRegistry(options.targets ?? []),
    ...(options.now ? { now: options.now } : {}),
    ...(options.sleep ? { sleep: options.sleep } : {}),
    ...(options.tokenNow ? { tokenNow: options.tokenNow } : {}),
    ...(options.tokenClock ? { tokenClock: options.tokenClock } : {}),
    ...(options.deadlines ? { deadlines: options.deadlines } : {}),
    ...(options.logger !== undefined ? { logger: options.logger } : {}),
    ...(options.streamTimings ? { streamTimings: options.streamTimings } : {}),
    ...(options.consoleDir ? { consoleDir: options.consoleDir } : {}),
    ...(options.sendWatch ? { sendWatch: options.sendWatch } : {}),
    ...(options.provide ? { provide: options.provide } : {}),
  });
  await options.extend?.(app);
  await app.ready();
  return app;
}

/** A clock the test moves by hand. */
export function manualClock(start = 1_000_000): { now: () => number; advance: (ms: number) => void } {
  let t = start;
  return { now: () => t, advance: (ms) => void (t += ms) };
}

/** A token clock the test moves by hand; what is due runs as `advance` passes its instant. */
export function manualDeadlineClock(start = Date.now()): {
  now: () => number;
  at: (at: number, fn: () => void) => () => void;
  advance: (ms: number) => void;
  /** Callbacks waiting for a later instant. */
  readonly pending: number;
} {
  let t = start;
  const due = new Set<{ at: number; fn: () => void }>();
  return {
    now: () => t,
    at: (at, fn) => {
      const entry = { at, fn };
      due.add(entry);
      return () => void due.delete(entry);
    },
    advance: (ms) => {
      t += ms;
      for (const entry of [...due].sort((a, b) => a.at - b.at)) {
        if (entry.at <= t && due.delete(entry)) entry.fn();
      }
    },
    get pending() {
      return due.size;
    },
  };
}
