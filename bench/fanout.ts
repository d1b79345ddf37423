// bench:fanout: one simulated PLC, 50 LREAL symbols changing every 100 ms scan, N SSE clients and N SignalR (JSON
// hub protocol over ws) clients each subscribed to all 50, for N = 100, 500, 1000. Prints events delivered per
// second, PLC-change-to-client latency p50/p99 (sampled on every 10th client), gateway CPU and RSS growth per
// client, drops; and the same load (2N ws clients) from a bare `ws` broadcast of pre-serialised frames: the ceiling,
// as a ratio. Gateway and ceiling run interleaved, each in a fresh child process, so machine load hits both alike.
// Run: npm run bench:fanout [-- --seconds 5 --sizes 100,500,1000]
//      (targets at N = 500: no drops, p99 < 100 ms, RSS growth < 50 KiB per client, throughput >= 0.5 of ceiling)
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { WebSocket } from 'ws';

const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const seconds = Number(arg('seconds') ?? 5);
const sizes = (arg('sizes') ?? '100,500,1000').split(',').map(Number);
const sampleEvery = 10;
const RS = '\u001e';
const now = (): number => performance.timeOrigin + performance.now();

interface Ready {
  url: string;
  token: string;
  symbols: string[];
}

interface Counters {
  events: number;
  latencies: number[];
}

async function startServer(mode: 'gateway' | 'ceiling'): Promise<{ proc: ChildProcess; ready: Ready }> {
  const proc = fork(new URL('./fanout-server.ts', import.meta.url).pathname, [mode], {
    execArgv: ['--import', 'tsx'],
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

/** Counts `VariableChanged`/`change` records; sampled clients also parse values for latency. */
function consume(text: string, marker: string, sampled: boolean, counters: Counters): void {
  for (let i = text.indexOf(marker); i >= 0; i = text.indexOf(marker, i + marker.length)) counters.events++;
  if (!sampled) return;
  const t = now();
  for (const m of text.matchAll(/"value":([0-9.e+]+)/g)) counters.latencies.push(t - Number(m[1]));
}

function sseClient(ready: Ready, sampled: boolean, counters: Counters): Promise<() => void> {
  const q = ready.symbols.map((s) => `symbols=${encodeURIComponent(s)}`).join('&');
  return new Promise((resolve, reject) => {
    const req = request(
      `${ready.url}/api/plcs/plc1/notifications/sse?${q}`,
      { headers: { authorization: `Bearer ${ready.token}`, accept: 'text/event-stream' } },
      (res) => {
        if (res.statusCode !== 200) reject(new Error(`SSE answered ${String(res.statusCode)}`));
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => consume(chunk, 'event: change', sampled, counters));
        resolve(() => req.destroy());
      },
    );
    req.on('error', reject);
    req.end();
  });
}

function wsClient(
  url: string,
  hub: Ready | undefined,
  sampled: boolean,
  counters: Counters,
): Promise<() => void> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, hub ? { headers: { authorization: `Bearer ${hub.token}` } } : {});
    ws.on('error', reject);
    ws.on('open', () => {
      if (hub) {
        ws.send(`{"protocol":"json","version":1}${RS}`);
        ws.send(
          JSON.stringify({ type: 1, invocationId: '1', target: 'Subscribe', arguments: [hub.symbols] }) + RS,
        );
      }
      resolve(() => ws.terminate());
    });
    ws.on('message', (data: Buffer) => consume(data.toString(), 'VariableChanged', sampled, counters));
  });
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
  const counters: Counters = { events: 0, latencies: [] };
  const closers: Array<() => void> = [];
  try {
    const base = await stats(proc);
    for (let i = 0; i < 2 * n; i++) {
      const sampled = i % sampleEvery === 0;
      if (mode === 'ceiling') closers.push(await wsClient(ready.url, undefined, sampled, counters));
      else if (i % 2 === 0) closers.push(await sseClient(ready, sampled, counters));
      else
        closers.push(
          await wsClient(
            `${ready.url.replace('http', 'ws')}/api/plcs/plc1/notifications/ws`,
            ready,
            sampled,
            counters,
          ),
        );
    }
    // Warm-up: initial values and JIT, not measured.
    await new Promise((r) => setTimeout(r, 1000));
    counters.events = 0;
    counters.latencies = [];
    const before = await stats(proc);
    const started = now();
    await new Promise((r) => setTimeout(r, seconds * 1000));
    const after = await stats(proc);
    const elapsed = (now() - started) / 1000;
    const events = counters.events;
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
      p50: percentile(counters.latencies, 50),
      p99: percentile(counters.latencies, 99),
      cpuPercent: cpu / 1e4 / elapsed,
      rssPerClientKiB: (Math.max(after.rss, before.rss) - base.rss) / 1024 / (2 * n),
      dropped,
    };
  } finally {
    for (const close of closers) close();
    proc.kill('SIGTERM');
    await once(proc, 'exit');
  }
}

const f = (x: number, d = 0): string => x.toFixed(d);
console.log(
  `bench:fanout: 50 symbols x 10 scans/s, ${seconds} s per run, latency sampled on 1 client in ${sampleEvery}`,
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
