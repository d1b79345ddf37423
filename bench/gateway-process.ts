// A gateway serving examples/appsettings.json in a child process, for the benches that attack or soak it: its URL,
// development-key tokens of each role, its memory and CPU, and a probe timing `GET /health/live` as any other
// client would see it.
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { performance } from 'node:perf_hooks';
import { mintToken } from '../src/cli/mint-token.ts';
import { developmentSigningKey } from '../src/config/development-key.ts';

export interface GatewayStats {
  rss: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
  cpu: NodeJS.CpuUsage;
}

export interface Gateway {
  readonly url: string;
  readonly proc: ChildProcess;
  /** With `afterGc`, a full collection first (the gateway runs with --expose-gc), so heap figures compare. */
  stats(afterGc?: boolean): Promise<GatewayStats>;
  heapSnapshot(file: string): Promise<string>;
  stop(): Promise<void>;
}

const configFile = new URL('../examples/appsettings.json', import.meta.url).pathname;

/** Starts a gateway on a free loopback port; `env` adds settings as `Section__Key` overrides. */
export async function startGateway(
  env: Record<string, string> = {},
  execArgv: string[] = [],
): Promise<Gateway> {
  const proc = fork(
    new URL('./hostile-gateway.ts', import.meta.url).pathname,
    ['serve', '--config', configFile, '--port', '0', '--host', '127.0.0.1'],
    {
      execArgv: ['--import', 'tsx', ...execArgv],
      env: { ...process.env, Logging__Level: 'warn', ...env },
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    },
  );
  const [{ url }] = (await once(proc, 'message')) as [{ url: string }];
  const ask = async <T>(message: unknown, key: string): Promise<T> => {
    const answer = new Promise<T>((resolve) => {
      const on = (m: unknown): void => {
        if (typeof m === 'object' && m !== null && key in m) {
          proc.off('message', on);
          resolve((m as Record<string, T>)[key] as T);
        }
      };
      proc.on('message', on);
    });
    proc.send(message as string);
    return answer;
  };
  return {
    url,
    proc,
    stats: (afterGc = false) => ask<GatewayStats>(afterGc ? 'stats-after-gc' : 'stats', 'stats'),
    heapSnapshot: (file) => ask<string>({ heapSnapshot: file }, 'snapshot'),
    async stop() {
      if (proc.exitCode !== null) return;
      const exited = once(proc, 'exit');
      proc.kill('SIGTERM');
      await exited;
    },
  };
}

export type Role = 'viewer' | 'operator' | 'admin';

const scopes: Record<Role, string> = {
  viewer: 'ads:read',
  operator: 'ads:read ads:write',
  admin: 'ads:read ads:write ads:lifecycle',
};

/** A development-key token of `role` on every PLC, as the example's `serve` accepts. */
export function tokenFor(role: Role, sub: string = role, ttlSeconds = 6 * 3600): Promise<string> {
  return mintToken(
    { sub, role, scope: scopes[role], plcAccess: ['*'], ttlSeconds },
    { key: developmentSigningKey, roleClaim: 'role' },
  );
}

export const mib = (bytes: number): string => (bytes / 1024 / 1024).toFixed(1);

export const percentile = (xs: readonly number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
};

/** Times `GET /health/live` every `everyMs` until stopped: what everyone else sees while the gateway is busy. */
export function probeLiveness(url: string, everyMs = 100): { stop(): Promise<LivenessFigures> } {
  const times: number[] = [];
  let failures = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      const t0 = performance.now();
      try {
        const res = await fetch(`${url}/health/live`, { signal: AbortSignal.timeout(30_000) });
        await res.arrayBuffer();
        if (!res.ok) failures++;
      } catch {
        failures++;
      }
      const took = performance.now() - t0;
      times.push(took);
      if (took < everyMs) await new Promise((r) => setTimeout(r, everyMs - took));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return {
        p50: percentile(times, 50),
        p99: percentile(times, 99),
        max: Math.max(...times),
        n: times.length,
        failures,
      };
    },
  };
}

export interface LivenessFigures {
  p50: number;
  p99: number;
  max: number;
  n: number;
  failures: number;
}

export const formatLiveness = (f: LivenessFigures): string =>
  `/health/live p50 ${f.p50.toFixed(1)} ms p99 ${f.p99.toFixed(1)} ms max ${f.max.toFixed(1)} ms` +
  (f.failures > 0 ? ` (${f.failures} of ${f.n} failed)` : '');

/** Samples the gateway's RSS every `everyMs` until stopped; answers the peak. */
export function sampleRss(
  gateway: Gateway,
  everyMs = 250,
): { stop(): Promise<{ peak: number; last: number }> } {
  let peak = 0;
  let last = 0;
  let running = true;
  const loop = (async () => {
    while (running && gateway.proc.exitCode === null) {
      const { rss } = await gateway.stats();
      peak = Math.max(peak, rss);
      last = rss;
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return { peak, last };
    },
  };
}
