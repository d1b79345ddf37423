// bench:fanout: one simulated PLC, 50 LREAL symbols changing every 100 ms scan, N SSE clients and N SignalR (JSON
// hub protocol over ws) clients each subscribed to all 50, for N = 100, 500, 1000. Prints events delivered per
// second, PLC-change-to-client latency p50/p99 (sampled on every 10th client), gateway CPU and RSS growth per
// client, drops; and the same load (2N ws clients) from a bare `ws` broadcast of pre-serialised frames: the ceiling,
// as a ratio. Gateway and ceiling run interleaved, each server in a fresh child process, and the clients are spread
// over several client processes (bench/fanout-clients.ts), so machine load hits both alike and the client side
// does not measure itself.
// Run: npm run bench:fanout [-- --seconds 5 --sizes 100,500,1000 --client-processes 3 --cpu-prof-dir DIR]
//      (targets at N = 500: no drops, p99 < 100 ms, RSS growth < 50 KiB per client, throughput >= 0.5 of ceiling)
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { performance } from 'node:perf_hooks';
import { sampleEvery, type OpenCommand, type Report } from './fanout-clients.ts';

const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const seconds = Number(arg('seconds') ?? 5);
const sizes = (arg('sizes') ?? '100,500,1000').split(',').map(Number);
const clientProcesses = Number(arg('client-processes') ?? 3);
// --cpu-prof-dir DIR: every server and client process writes a V8 CPU profile there (for finding the bottleneck).
const profileDir = arg('cpu-prof-dir');
const execArgv = ['--import', 'tsx', ...(profileDir ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : [])];
const now = (): number => performance.timeOrigin + performance.now();

interface Ready {
  url: string;
  token: string;
  symbols: string[];
}

async function startServer(mode: 'gateway' | 'ceiling'): Promise<{ proc: ChildProcess; ready: Ready }> {
  const proc = fork(new URL('./fanout-server.ts', import.meta.url).pathname, [mode], {
    execArgv,
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const [ready] = (await once(proc, 'message')) as [Ready];
  return { proc, ready };
}

async function stats(proc: ChildProcess): Promise<{ cpu: NodeJS.CpuUsage; rss: number }> {
  proc.send('stats');
  const [s] = (await once(proc, 'message')) as [{ cpu: NodeJS.CpuUsage; rss: number }];
  return s;
}

/** Sends a command to every client process and waits for each one's answer. */
async function all<T>(procs: readonly ChildProcess[], command: (i: number) => unknown): Promise<T[]> {
  return Promise.all(
    procs.map(async (p, i) => {
      const answer = once(p, 'message') as Promise<[T]>;
      p.send(command(i) as string);
      const [message] = await answer;
      if (typeof message === 'object' && message !== null && 'failed' in message) {
        throw new Error(`client process: ${String((message as { failed: unknown }).failed)}`);
      }
      return message;
    }),
  );
}

interface Result {
  eventsPerSecond: number;
  expectedPerSecond: number;
  p50: number;
  p99: number;
  cpuPercent: number;
  rssPerClientKiB: number;
  dropped: number;
}

const percentile = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
};

async function run(mode: 'gateway' | 'ceiling', n: number): Promise<Result> {
  const { proc, ready } = await startServer(mode);
  const clients = Array.from({ length: clientProcesses }, () =>
    fork(new URL('./fanout-clients.ts', import.meta.url).pathname, [], {
      execArgv,
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    }),
  );
  try {
    const base = await stats(proc);
    // Client i of 2N goes to process i mod P's share: contiguous ranges, the SSE/hub mix kept in each.
    const share = Math.ceil((2 * n) / clientProcesses);
    await all(clients, (i): { open: OpenCommand } => ({
      open: {
        ...ready,
        mode,
        from: i * share,
        count: Math.max(0, Math.min(share, 2 * n - i * share)),
      },
    }));
    // Warm-up: initial values and JIT, not measured.
    await new Promise((r) => setTimeout(r, 1000));
    await all(clients, () => 'reset');
    const before = await stats(proc);
    const started = now();
    await new Promise((r) => setTimeout(r, seconds * 1000));
    const reports = await all<Report>(clients, () => 'report');
    const after = await stats(proc);
    const elapsed = (now() - started) / 1000;
    const events = reports.reduce((sum, r) => sum + r.events, 0);
    const latencies = reports.flatMap((r) => r.latencies);
    let dropped = 0;
    if (mode === 'gateway') {
      const res = await fetch(`${ready.url}/metrics`);
      const m = /stream_events_dropped_total\{[^}]*\} (\d+)/g;
      for (const hit of (await res.text()).matchAll(m)) dropped += Number(hit[1]);
    }
    const cpu = after.cpu.user + after.cpu.system - (before.cpu.user + before.cpu.system);
    return {
      eventsPerSecond: events / elapsed,
      expectedPerSecond: 2 * n * 50 * 10,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      cpuPercent: cpu / 1e4 / elapsed,
      rssPerClientKiB: (Math.max(after.rss, before.rss) - base.rss) / 1024 / (2 * n),
      dropped,
    };
  } finally {
    for (const c of clients) {
      c.send('close');
      await once(c, 'exit');
    }
    proc.kill('SIGTERM');
    await once(proc, 'exit');
  }
}

const f = (x: number, d = 0): string => x.toFixed(d);
console.log(
  `bench:fanout: 50 symbols x 10 scans/s, ${seconds} s per run, clients in ${clientProcesses} processes, latency sampled on 1 client in ${sampleEvery}`,
);
console.log(
  'N     server    clients  events/s   expected/s  p50 ms  p99 ms  CPU %   RSS KiB/client  dropped',
);
let pass = true;
for (const n of sizes) {
  const g = await run('gateway', n);
  const c = await run('ceiling', n);
  for (const [name, r] of [
    ['gateway', g],
    ['ceiling', c],
  ] as const) {
    console.log(
      `${String(n).padEnd(5)} ${name.padEnd(9)} ${String(2 * n).padStart(7)} ${f(r.eventsPerSecond).padStart(9)} ` +
        `${f(r.expectedPerSecond).padStart(12)} ${f(r.p50, 1).padStart(7)} ${f(r.p99, 1).padStart(7)} ` +
        `${f(r.cpuPercent).padStart(5)} ${f(r.rssPerClientKiB, 1).padStart(15)} ${String(name === 'gateway' ? r.dropped : '-').padStart(8)}`,
    );
  }
  const ratio = g.eventsPerSecond / c.eventsPerSecond;
  console.log(`N=${n}: throughput gateway / ceiling ${f(ratio, 2)}`);
  if (n === 500) {
    const checks = [
      ['no drops', g.dropped === 0],
      ['p99 < 100 ms', g.p99 < 100],
      ['RSS growth < 50 KiB per client', g.rssPerClientKiB < 50],
      ['throughput >= 0.5 of ceiling', ratio >= 0.5],
    ] as const;
    for (const [what, ok] of checks) {
      console.log(`  target ${what}: ${ok ? 'PASS' : 'FAIL'}`);
      if (!ok) pass = false;
    }
  }
}
process.exitCode = pass ? 0 : 1;
