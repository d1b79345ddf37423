// bench:fanout: one simulated PLC, 50 LREAL symbols changing every 100 ms scan, N SSE clients and N SignalR (JSON
// hub protocol over ws) clients each subscribed to all 50, for N = 100, 500, 1000. Prints events delivered per
// second, PLC-change-to-client latency p50/p99 (sampled on every 10th client), gateway CPU and RSS growth per
// client, drops; and the same load (2N ws clients) from a bare `ws` broadcast of pre-serialised frames: the ceiling,
// as a ratio. Gateway and ceiling run interleaved, each server in a fresh child process, and the clients are spread
// over several client processes (bench/fanout-clients.ts), so machine load hits both alike and the client side
// does not measure itself.
// Run: npm run bench:fanout [-- --seconds 5 --sizes 100,500,1000 --client-processes 3 --cpu-prof-dir DIR]
//      (targets at N = 500: no drops, p99 < 100 ms, RSS growth < 50 KiB per client, throughput >= 0.5 of ceiling)
// The notification budget: npm run bench:fanout -- --budget [--rounds 2 --seconds 5]: a Real PLC (sim-ads in its
// own process, bench/fanout-plc.ts) with 500 LREAL symbols all on ADS notifications, against 2,000 symbols with
// NotificationBudget 500 (1,500 polled with sum reads), each symbol changing every 100 ms scan and watched by one
// SSE and one hub client (50 symbols per client); interleaved rounds; delivered events/s, latency p50/p99 and the
// ADS requests per second the PLC serves (counted in sim-ads), with the ratios.
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

/** Per client: the notification route's default MaxSymbolsPerClient. */
const symbolsPerClient = 50;

interface BudgetResult {
  eventsPerSecond: number;
  expectedPerSecond: number;
  p50: number;
  p99: number;
  adsRequestsPerSecond: number;
  clients: number;
}

async function budgetRun(symbols: number): Promise<BudgetResult> {
  const plc = fork(new URL('./fanout-plc.ts', import.meta.url).pathname, [String(symbols)], {
    execArgv,
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const [{ port }] = (await once(plc, 'message')) as [{ port: number }];
  const plcRequests = async (): Promise<number> => {
    plc.send('stats');
    const [m] = (await once(plc, 'message')) as [{ requests: number }];
    return m.requests;
  };
  const server = fork(
    new URL('./fanout-server.ts', import.meta.url).pathname,
    ['budget', String(port), String(symbols)],
    {
      execArgv,
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    },
  );
  const clients = Array.from({ length: clientProcesses }, () =>
    fork(new URL('./fanout-clients.ts', import.meta.url).pathname, [], {
      execArgv,
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    }),
  );
  try {
    const [ready] = (await once(server, 'message')) as [Ready];
    const total = 2 * Math.ceil(symbols / symbolsPerClient);
    // Whole pairs per process, so each pair's SSE and hub client share a slice.
    const share = 2 * Math.ceil(total / 2 / clientProcesses);
    await all(clients, (i): { open: OpenCommand } => ({
      open: {
        ...ready,
        mode: 'gateway',
        slice: symbolsPerClient,
        from: i * share,
        count: Math.max(0, Math.min(share, total - i * share)),
      },
    }));
    // Warm-up: initial values, the re-registration of the notifications together (2 s after them), JIT.
    await new Promise((r) => setTimeout(r, 4000));
    await all(clients, () => 'reset');
    const requestsBefore = await plcRequests();
    const started = now();
    await new Promise((r) => setTimeout(r, seconds * 1000));
    const reports = await all<Report>(clients, () => 'report');
    const requestsAfter = await plcRequests();
    const elapsed = (now() - started) / 1000;
    const latencies = reports.flatMap((r) => r.latencies);
    return {
      eventsPerSecond: reports.reduce((sum, r) => sum + r.events, 0) / elapsed,
      expectedPerSecond: 2 * symbols * (1000 / 100),
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      adsRequestsPerSecond: (requestsAfter - requestsBefore) / elapsed,
      clients: total,
    };
  } finally {
    for (const c of clients) {
      c.send('close');
      await once(c, 'exit');
    }
    for (const p of [server, plc]) {
      p.kill('SIGTERM');
      await once(p, 'exit');
    }
  }
}

const f = (x: number, d = 0): string => x.toFixed(d);

async function budgetBench(): Promise<void> {
  const rounds = Number(arg('rounds') ?? 2);
  console.log(
    `bench:fanout --budget: Real PLC (sim-ads), every symbol changes each 100 ms scan, 2 clients per symbol ` +
      `(${symbolsPerClient} symbols per client), NotificationBudget 500, ${seconds} s per run, ${rounds} interleaved rounds`,
  );
  console.log('run                 symbols  clients  events/s  expected/s  p50 ms  p99 ms  PLC ADS req/s');
  const sums = { notified: [] as BudgetResult[], budget: [] as BudgetResult[] };
  for (let round = 1; round <= rounds; round++) {
    for (const [name, symbols] of [
      ['notified', 500],
      ['budget', 2000],
    ] as const) {
      const r = await budgetRun(symbols);
      sums[name].push(r);
      console.log(
        `${`${name} (round ${round})`.padEnd(19)} ${String(symbols).padStart(7)} ${String(r.clients).padStart(8)} ` +
          `${f(r.eventsPerSecond).padStart(9)} ${f(r.expectedPerSecond).padStart(11)} ${f(r.p50, 1).padStart(7)} ` +
          `${f(r.p99, 1).padStart(7)} ${f(r.adsRequestsPerSecond, 1).padStart(14)}`,
      );
    }
  }
  const mean = (xs: BudgetResult[], k: keyof BudgetResult): number =>
    xs.reduce((sum, x) => sum + x[k], 0) / Math.max(1, xs.length);
  const n = sums.notified;
  const b = sums.budget;
  console.log(
    `mean: notified ${f(mean(n, 'eventsPerSecond'))} events/s p99 ${f(mean(n, 'p99'), 1)} ms ` +
      `${f(mean(n, 'adsRequestsPerSecond'), 1)} ADS req/s; budget ${f(mean(b, 'eventsPerSecond'))} events/s ` +
      `p99 ${f(mean(b, 'p99'), 1)} ms ${f(mean(b, 'adsRequestsPerSecond'), 1)} ADS req/s`,
  );
  console.log(
    `ratios budget / notified: events/s ${f(mean(b, 'eventsPerSecond') / mean(n, 'eventsPerSecond'), 2)} ` +
      `(symbols x4), delivered of expected ${f(mean(b, 'eventsPerSecond') / mean(b, 'expectedPerSecond'), 2)} vs ` +
      `${f(mean(n, 'eventsPerSecond') / mean(n, 'expectedPerSecond'), 2)}, p99 ${f(mean(b, 'p99') / mean(n, 'p99'), 2)}, ` +
      `PLC ADS requests/s ${f(mean(b, 'adsRequestsPerSecond') / Math.max(mean(n, 'adsRequestsPerSecond'), 1e-9), 1)}`,
  );
}

if (process.argv.includes('--budget')) {
  await budgetBench();
  process.exit(0);
}

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
