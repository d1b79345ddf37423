// bench:alarms: 20 simulated PLCs x 1000-slot alarm arrays at CycleTimeMs 200, 100 active alarms each churning,
// in a child process (bench/alarms-server.ts). Interleaved rounds compare the same churning PLCs with the Alarms
// flag off and on, so the gateway's CPU share is the difference. With it on: GET /api/alarms p99 under load
// (target < 20 ms) and the latency from a PLC change to its SSE frame on /api/alarms/stream (p99 target
// < CycleTimeMs + 50 ms). The machine may be shared: read the figures as of this run.
// Run: npm run bench:alarms
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { request } from 'node:http';
import autocannon from 'autocannon';
import { SignJWT } from 'jose';
import { active, churnPerSecond, cycleTimeMs, plcCount, signingKey, slots } from './alarms-server.ts';

const rounds = 2;
const quietMs = 6000;
const loadSeconds = 6;

async function token(): Promise<string> {
  return new SignJWT({ sub: 'bench', role: 'admin', scope: 'ads:read ads:write', plc_access: ['*'] })
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode(signingKey));
}

async function startServer(mode: 'on' | 'off'): Promise<{ child: ChildProcess; port: number }> {
  const child = fork(new URL('./alarms-server.ts', import.meta.url).pathname, [mode], {
    execArgv: ['--import', 'tsx'],
  });
  const [message] = (await once(child, 'message')) as [{ port: number }];
  return { child, port: message.port };
}

interface Sample {
  /** CPU time over wall time. */
  share: number;
  /** The server's event-loop delay (a ready callback's wait), p99 and max, in ms. */
  loopP99: number;
  loopMax: number;
}

async function sample(child: ChildProcess): Promise<Sample> {
  child.send('cpu');
  const [m] = (await once(child, 'message')) as [
    { cpuMs: number; wallMs: number; loopP99Ms: number; loopMaxMs: number },
  ];
  return { share: m.cpuMs / m.wallMs, loopP99: m.loopP99Ms, loopMax: m.loopMaxMs };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Reads the fleet SSE stream; each raised frame's ErrorCode is the change's wall-clock ms (mod 1e9). */
function listen(port: number, bearer: string, into: () => number[], status: number[]): () => void {
  let buffer = '';
  const req = request(
    { host: '127.0.0.1', port, path: '/api/alarms/stream', headers: { authorization: `Bearer ${bearer}` } },
    (res) => {
      status.push(res.statusCode ?? 0);
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        let end;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          if (!frame.includes('event: alarm')) continue;
          const data = /^data: (.*)$/m.exec(frame)?.[1];
          if (!data) continue;
          const { kind, alarm } = JSON.parse(data) as {
            kind: string;
            alarm: { 'x-ads': { errorCode: number } };
          };
          if (kind !== 'raised') continue;
          const now = Date.now() % 1_000_000_000;
          into().push((now - alarm['x-ads'].errorCode + 1_000_000_000) % 1_000_000_000);
        }
      });
    },
  );
  req.end();
  return () => req.destroy();
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

async function main(): Promise<void> {
  const bearer = await token();
  console.log(
    `bench:alarms  ${plcCount} PLCs x ${slots} slots, ${active} active each, ${churnPerSecond} raise+end/s per PLC, CycleTimeMs ${cycleTimeMs}`,
  );
  const off: number[] = [];
  const on: number[] = [];
  const underLoad: number[] = [];
  const loops: string[] = [];
  const listP99: number[] = [];
  const listP50: number[] = [];
  // Change-to-frame latencies while the list is idle and while it runs flat out.
  const quietLatencies: number[] = [];
  const loadLatencies: number[] = [];
  let latencies: number[] = [];
  const streamStatus: number[] = [];
  let requests = 0;
  for (let round = 1; round <= rounds; round++) {
    // Same churning PLCs without the alarm feature: the baseline.
    const base = await startServer('off');
    await sleep(1000);
    await sample(base.child);
    await sleep(quietMs);
    off.push((await sample(base.child)).share);
    base.child.send('stop');
    await once(base.child, 'exit');

    const gw = await startServer('on');
    latencies = [];
    const stop = listen(gw.port, bearer, () => latencies, streamStatus);
    await sleep(1000);
    latencies = quietLatencies;
    await sample(gw.child);
    await sleep(quietMs);
    const quiet = await sample(gw.child);
    on.push(quiet.share);
    latencies = loadLatencies;
    const result = await autocannon({
      url: `http://127.0.0.1:${gw.port}/api/alarms`,
      headers: { authorization: `Bearer ${bearer}` },
      connections: 4,
      duration: loadSeconds,
    });
    const loaded = await sample(gw.child);
    underLoad.push(loaded.share);
    const ms = (x: number) => x.toFixed(1);
    loops.push(
      `p99 ${ms(quiet.loopP99)}/max ${ms(quiet.loopMax)} ms quiet, p99 ${ms(loaded.loopP99)}/max ${ms(loaded.loopMax)} ms under list load`,
    );
    listP99.push(result.latency.p99);
    listP50.push(result.latency.p50);
    requests += result.requests.total;
    stop();
    gw.child.send('stop');
    await once(gw.child, 'exit');
  }
  const pct = (xs: number[]) => xs.map((x) => `${(x * 100).toFixed(1)}%`).join(', ');
  const max = (xs: number[]) => Math.max(...xs);
  console.log(`CPU share, alarms off (PLCs churning only): ${pct(off)}`);
  console.log(`CPU share, alarms on (monitoring 20 PLCs + one fleet SSE client): ${pct(on)}`);
  console.log(
    `  gateway alarm share = on - off: ${pct(on.map((x, i) => x - (off[i] ?? 0)))}; ratio on/off ${on.map((x, i) => (x / (off[i] ?? 1)).toFixed(2)).join(', ')}`,
  );
  console.log(`CPU share while GET /api/alarms runs flat out (4 connections): ${pct(underLoad)}`);
  console.log(`gateway event-loop delay: ${loops.join('; ')}`);
  console.log(
    `GET /api/alarms (${plcCount * active} items): p50 ${listP50.join(', ')} ms, p99 ${listP99.join(', ')} ms over ${requests} requests; target p99 < 20 ms: ${max(listP99) < 20 ? 'met' : 'NOT met'}`,
  );
  if (!streamStatus.every((s) => s === 200)) {
    console.log(
      `PLC change -> SSE frame: not measured, GET /api/alarms/stream answered ${streamStatus.join(', ')}`,
    );
    return;
  }
  const figures = (xs: readonly number[]) => {
    const sorted = [...xs].sort((a, b) => a - b);
    const p99 = percentile(sorted, 99);
    return { p99, text: `p50 ${percentile(sorted, 50)} ms, p99 ${p99} ms, max ${sorted.at(-1)} ms` };
  };
  const all = figures([...quietLatencies, ...loadLatencies]);
  console.log(
    `PLC change -> SSE frame: ${quietLatencies.length + loadLatencies.length} raised frames, ${all.text}; target p99 < ${cycleTimeMs + 50} ms: ${all.p99 < cycleTimeMs + 50 ? 'met' : 'NOT met'}`,
  );
  console.log(
    `  list idle: ${figures(quietLatencies).text}; list flat out: ${figures(loadLatencies).text} (the change waits up to one CycleTimeMs for the PLC's next check)`,
  );
}

await main();
