// CPU cost of the read path: the gateway as shipped (`plc-gateway serve`, Logging.Level info), the gateway with
// request logging off (Logging.Level warn), and a bare fastify 5 server with one shared ads-client connection (no
// auth, no logging), all three against the same `sim-ads` PLC over loopback. Workloads: one variable per request
// and a batch of 100. Rounds interleave the three servers so that load from elsewhere on the machine hits them
// alike; CPU per request comes from process.cpuUsage() of the loaded server process (user + system).
// Run: npm run bench:read-path [-- --rounds 5 --seconds 3]
//      (targets, median CPU per request gateway / bare: single read <= 1.5, batch of 100 <= 1.3)
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { mintToken } from '../src/cli/mint-token.ts';
import { serveBare } from './read-path-bare.ts';
import { runCli } from '../src/main.ts';

const argValue = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  const n = i > 0 ? Number(process.argv[i + 1]) : fallback;
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a positive integer`);
  return n;
};

const rounds = argValue('rounds', 5);
const seconds = argValue('seconds', 3);
const connections = 50;
const signingKey = 'bench-signing-key-0123456789-0123456789';
const variables = Array.from({ length: 100 }, (_, i) => `GVL.n${i}`);
const targets = { single: 1.5, batch: 1.3 } as const;

type ServerName = 'gateway' | 'no-log' | 'bare';
type Workload = 'single' | 'batch';
const servers: readonly ServerName[] = ['gateway', 'no-log', 'bare'];
const workloads: readonly Workload[] = ['single', 'batch'];

interface Sample {
  readonly cpuMicros: number;
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
  readonly failed: number;
}

function simSettings(): object {
  const initial = Object.fromEntries(
    variables.map((p, i) => [p, i % 2 ? { value: i, type: 'DINT' } : { value: i + 0.5, type: 'LREAL' }]),
  );
  return {
    Auth: { SigningKey: signingKey },
    PlcTargets: { sim: { Mode: 'Simulated', InitialValues: initial } },
  };
}

function gatewaySettings(adsPort: number, level: 'info' | 'warn'): object {
  return {
    Logging: { Level: level },
    Auth: { SigningKey: signingKey },
    // The limiter still runs on every request; only its ceiling is raised above what 50 connections reach.
    RateLimiting: { GlobalPerUser: 1_000_000_000 },
    PlcTargets: {
      line1: { Mode: 'Real', AmsNetId: '127.0.0.1.1.1', Address: '127.0.0.1', TcpPort: adsPort, Port: 851 },
    },
  };
}

interface Child {
  readonly proc: ChildProcess;
  readonly url: string;
}

async function startChild(args: readonly string[]): Promise<Child> {
  const proc = fork(new URL(import.meta.url).pathname, args, {
    execArgv: ['--import', 'tsx'],
    // The gateway's log lines go to /dev/null: real writes, nothing kept.
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const [message] = (await Promise.race([
    once(proc, 'message'),
    once(proc, 'exit').then(([code]) => {
      throw new Error(`${args.join(' ')} exited with ${String(code)}`);
    }),
  ])) as [{ url: string }];
  return { proc, url: message.url };
}

async function cpuMicros(proc: ChildProcess): Promise<number> {
  proc.send('cpu');
  const [usage] = (await once(proc, 'message')) as [NodeJS.CpuUsage];
  return usage.user + usage.system;
}

async function stop(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null) return;
  proc.kill('SIGTERM');
  await once(proc, 'exit');
}

function pathFor(workload: Workload): string {
  return workload === 'single'
    ? `/api/plcs/line1/variables/${variables[1]}`
    : `/api/plcs/line1/variables?${variables.map((p) => `paths=${encodeURIComponent(p)}`).join('&')}`;
}

/** One answer checked before any load: the same value from every server. */
async function check(child: Child, workload: Workload, headers: Record<string, string>): Promise<string> {
  const res = await fetch(child.url + pathFor(workload), { headers });
  const body = (await res.json()) as { data: Record<string, unknown> | null; error: unknown };
  if (res.status !== 200 || body.error !== null || body.data === null) {
    throw new Error(`${child.url}${pathFor(workload)}: ${res.status} ${JSON.stringify(body)}`);
  }
  if (workload === 'single') return JSON.stringify(body.data.value);
  const values = body.data.values as Record<string, { value: unknown }>;
  return JSON.stringify(variables.map((p) => values[p]?.value));
}

async function measure(child: Child, workload: Workload, headers: Record<string, string>): Promise<Sample> {
  const before = await cpuMicros(child.proc);
  const r = await autocannon({ url: child.url + pathFor(workload), connections, headers, duration: seconds });
  const after = await cpuMicros(child.proc);
  const ok = r['2xx'];
  return {
    cpuMicros: ok > 0 ? (after - before) / ok : NaN,
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    failed: r.non2xx + r.errors,
  };
}

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};
const f = (n: number, digits = 0): string => n.toFixed(digits);

function report(samples: Map<string, Sample[]>): boolean {
  let pass = true;
  for (const workload of workloads) {
    console.log(
      `\n${workload === 'single' ? 'Single read: GET variables/{path}' : 'Batch of 100: GET variables?paths=... (100 paths)'}`,
    );
    console.log('server       CPU µs/req (min/median/max)    req/s (median)   p50 ms   p99 ms   failed');
    for (const server of servers) {
      const s = samples.get(`${server}/${workload}`)!;
      const cpu = s.map((x) => x.cpuMicros);
      console.log(
        `${server.padEnd(12)} ${`${f(Math.min(...cpu))} / ${f(median(cpu))} / ${f(Math.max(...cpu))}`.padEnd(30)} ` +
          `${f(median(s.map((x) => x.rps))).padStart(14)} ${f(median(s.map((x) => x.p50))).padStart(8)} ` +
          `${f(median(s.map((x) => x.p99))).padStart(8)} ${String(s.reduce((n, x) => n + x.failed, 0)).padStart(8)}`,
      );
    }
    const bare = samples.get(`bare/${workload}`)!;
    for (const server of ['gateway', 'no-log'] as const) {
      // Ratios pair each round's samples, so a round slowed by outside load slows both sides of its ratio.
      const ratios = samples.get(`${server}/${workload}`)!.map((x, i) => x.cpuMicros / bare[i]!.cpuMicros);
      const mid = median(ratios);
      const judged = server === 'gateway';
      const verdict = judged
        ? `  (target <= ${targets[workload]}: ${mid <= targets[workload] ? 'PASS' : 'FAIL'})`
        : '';
      if (judged && !(mid <= targets[workload])) pass = false;
      console.log(
        `ratio ${server}/bare CPU per request: min ${f(Math.min(...ratios), 2)}  median ${f(mid, 2)}  max ${f(Math.max(...ratios), 2)}${verdict}`,
      );
    }
  }
  return pass;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'plc-gateway-bench-'));
  const children: Child[] = [];
  try {
    const write = (name: string, settings: object): string => {
      const file = join(dir, name);
      writeFileSync(file, JSON.stringify(settings));
      return file;
    };
    const sim = await startChild([
      'cli',
      'sim-ads',
      '--config',
      write('sim.json', simSettings()),
      '--plc',
      'sim',
      '--port',
      '0',
    ]);
    children.push(sim);
    const adsPort = Number(new URL(sim.url).port);
    const started: Record<ServerName, Child> = {
      gateway: await startChild([
        'cli',
        'serve',
        '--config',
        write('gateway.json', gatewaySettings(adsPort, 'info')),
        '--port',
        '0',
      ]),
      'no-log': await startChild([
        'cli',
        'serve',
        '--config',
        write('no-log.json', gatewaySettings(adsPort, 'warn')),
        '--port',
        '0',
      ]),
      bare: await startChild(['bare', String(adsPort)]),
    };
    children.push(...Object.values(started));

    const token = await mintToken(
      { sub: 'bench', role: 'viewer', scope: 'ads:read', plcAccess: ['*'], ttlSeconds: 3600 },
      { key: signingKey, roleClaim: 'role' },
    );
    const headers = { authorization: `Bearer ${token}` };
    for (const workload of workloads) {
      const answers = await Promise.all(servers.map((s) => check(started[s], workload, headers)));
      if (new Set(answers).size !== 1)
        throw new Error(`${workload}: the servers disagree: ${answers.join(' | ')}`);
      // Warm-up: JIT, symbol caches and connections, not measured.
      for (const s of servers) {
        await autocannon({ url: started[s].url + pathFor(workload), connections, headers, duration: 1 });
      }
    }

    console.log(
      `Read path, ${connections} connections, ${rounds} interleaved rounds of ${seconds} s per server and workload, ` +
        'CPU from process.cpuUsage() of each server process',
    );
    const samples = new Map<string, Sample[]>();
    for (let round = 0; round < rounds; round++) {
      for (const workload of workloads) {
        // Rotate the order each round so that no server always runs first or last.
        const order = servers.map((_, i) => servers[(i + round) % servers.length]!);
        for (const server of order) {
          const sample = await measure(started[server], workload, headers);
          const key = `${server}/${workload}`;
          samples.set(key, [...(samples.get(key) ?? []), sample]);
        }
      }
      process.stderr.write(`round ${round + 1}/${rounds} done\n`);
    }
    if (!report(samples)) process.exitCode = 1;
  } finally {
    for (const child of children.reverse()) await stop(child.proc);
    rmSync(dir, { recursive: true, force: true });
  }
}

function answerCpu(): void {
  process.on('message', (message) => {
    if (message === 'cpu') process.send?.(process.cpuUsage());
  });
}

const mode = process.argv[2];
if (mode === 'cli') {
  answerCpu();
  const stopped = new AbortController();
  process.once('SIGTERM', () => stopped.abort());
  process.exitCode = await runCli(process.argv.slice(3), {
    signal: stopped.signal,
    onListening: (url) => process.send?.({ url }),
  });
  if (process.connected) process.disconnect();
} else if (mode === 'bare') {
  answerCpu();
  const url = await serveBare(Number(process.argv[3]));
  process.send?.({ url });
} else {
  await main();
}
