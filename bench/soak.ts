// bench:soak: held load on the example plant. A gateway serving examples/appsettings.json in its own process; N SSE
// notification clients and N SignalR clients (JSON hub protocol over ws, pinging every 15 s as stock clients do) on
// line1's live symbols, K alarm streams, a share of every kind closed and reopened every few seconds, and a writer
// changing two variables every second. Every 30 s it prints the gateway's RSS and heap (after a full GC), the events
// each client kind received, errors and gaps; at the end the slope of RSS and heap after the warm-up, by least
// squares. With --heap-snapshots DIR it writes a V8 heap snapshot at the end of the warm-up and at the end, to tell a
// leak from a slow settle.
// Run: npm run bench:soak [-- --minutes 60 --sse 250 --hub 250 --alarm-streams 50 --warmup-minutes 10
//      --churn-percent 10 --churn-seconds 5 --heap-snapshots DIR]   (target: heap slope < 2 MiB/h, no errors, no gaps)
import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';
import { mib, startGateway, tokenFor, type Gateway } from './gateway-process.ts';

const arg = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const minutes = arg('minutes', 60);
const sseCount = arg('sse', 250);
const hubCount = arg('hub', 250);
const alarmCount = arg('alarm-streams', 50);
const warmupMinutes = arg('warmup-minutes', Math.min(10, minutes / 4));
const churnPercent = arg('churn-percent', 10);
const churnSeconds = arg('churn-seconds', 5);
const sampleSeconds = arg('sample-seconds', 30);
const snapshotDir = (() => {
  const i = process.argv.indexOf('--heap-snapshots');
  return i > 0 ? process.argv[i + 1] : undefined;
})();
const symbols = [
  'MAIN.nSpeed',
  'MAIN.rTemperature',
  'GVL_HMI.stMachine.rSpeed',
  'GVL_HMI.aAxes[1].rPosition',
];

type Kind = 'sse' | 'hub' | 'alarms';
interface Tally {
  events: number;
  errors: number;
  gaps: number;
  reopened: number;
}
const tallies: Record<Kind, Tally> = {
  sse: { events: 0, errors: 0, gaps: 0, reopened: 0 },
  hub: { events: 0, errors: 0, gaps: 0, reopened: 0 },
  alarms: { events: 0, errors: 0, gaps: 0, reopened: 0 },
};
const errorSamples: string[] = [];
const samplesPerKind: Record<Kind | 'writer', number> = { sse: 0, hub: 0, alarms: 0, writer: 0 };
/** Keeps the first few errors of each kind, so one kind's flood does not hide another's. */
function sample(kind: Kind | 'writer', what: string): void {
  if (samplesPerKind[kind]++ < 5) errorSamples.push(`${kind}: ${what}`);
}
function fail(kind: Kind, what: string): void {
  tallies[kind].errors++;
  sample(kind, what);
}

interface Client {
  close(): void;
}

/** Reads an SSE response and counts its events by name; `expected` names the events that count as deliveries. */
async function readSse(
  url: string,
  token: string,
  kind: Kind,
  expected: string,
  abort: AbortSignal,
): Promise<void> {
  try {
    const res = await fetch(url, {
      headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' },
      signal: abort,
    });
    if (res.status !== 200 || res.body === null) {
      fail(kind, `HTTP ${res.status} ${(await res.text()).slice(0, 120)}`);
      return;
    }
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of res.body) {
      buffer += decoder.decode(chunk as Uint8Array, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const name = /^event: (.*)$/m.exec(block)?.[1];
        if (name === expected) tallies[kind].events++;
        else if (name === 'gap') tallies[kind].gaps++;
        else if (name === 'error' || name === 'disconnected')
          fail(kind, block.replace(/\n/g, ' ').slice(0, 160));
      }
    }
    if (!abort.aborted) fail(kind, 'the stream ended');
  } catch (err) {
    if (!abort.aborted) fail(kind, (err as Error).message);
  }
}

function sseClient(gateway: Gateway, token: string): Client {
  const abort = new AbortController();
  const query = symbols.map((s) => `symbols=${encodeURIComponent(s)}`).join('&');
  void readSse(
    `${gateway.url}/api/plcs/line1/notifications/sse?${query}`,
    token,
    'sse',
    'change',
    abort.signal,
  );
  return { close: () => abort.abort() };
}

function alarmClient(gateway: Gateway, token: string): Client {
  const abort = new AbortController();
  void readSse(`${gateway.url}/api/plcs/line1/alarms/stream`, token, 'alarms', 'alarm', abort.signal);
  return { close: () => abort.abort() };
}

function hubClient(gateway: Gateway, token: string): Client {
  const ws = new WebSocket(
    `${gateway.url.replace('http', 'ws')}/api/plcs/line1/notifications/ws?access_token=${token}`,
  );
  let closing = false;
  let ping: NodeJS.Timeout | undefined;
  ws.on('open', () => {
    ws.send('{"protocol":"json","version":1}\u001e');
    ws.send(
      `${JSON.stringify({ type: 1, invocationId: '1', target: 'Subscribe', arguments: [symbols] })}\u001e`,
    );
    ping = setInterval(() => ws.send('{"type":6}\u001e'), 15_000);
  });
  ws.on('message', (data: Buffer) => {
    for (const record of data.toString().split('\u001e')) {
      if (record === '' || record === '{}') continue;
      const message = JSON.parse(record) as { type: number; target?: string; error?: string };
      if (message.type === 1 && message.target === 'VariableChanged') tallies.hub.events++;
      else if (message.type === 1 && message.target === 'Gap') tallies.hub.gaps++;
      else if (message.type === 1 && (message.target === 'SymbolError' || message.target === 'Disconnected'))
        fail('hub', record.slice(0, 160));
      else if (message.type === 3 && message.error !== undefined) fail('hub', record.slice(0, 160));
      else if (message.type === 7) fail('hub', `closed by the gateway: ${record.slice(0, 160)}`);
    }
  });
  // Closing a socket the churn reopens before it has connected is the bench's own doing, not an error.
  ws.on('error', (err) => {
    if (!closing) fail('hub', err.message);
  });
  ws.on('close', () => {
    clearInterval(ping);
    if (!closing) fail('hub', 'the socket closed');
  });
  return {
    close() {
      closing = true;
      clearInterval(ping);
      ws.close();
    },
  };
}

function slope(points: ReadonlyArray<{ t: number; y: number }>): number {
  const n = points.length;
  if (n < 2) return NaN;
  const mt = points.reduce((s, p) => s + p.t, 0) / n;
  const my = points.reduce((s, p) => s + p.y, 0) / n;
  const num = points.reduce((s, p) => s + (p.t - mt) * (p.y - my), 0);
  const den = points.reduce((s, p) => s + (p.t - mt) ** 2, 0);
  return num / den;
}

const gateway = await startGateway({}, ['--expose-gc']);
const operator = await tokenFor('operator', 'soak-writer');
const tokens = await Promise.all(
  Array.from({ length: sseCount + hubCount + alarmCount }, (_, i) => tokenFor('viewer', `soak-${i}`)),
);
const makers: Array<() => Client> = [
  ...Array.from({ length: sseCount }, (_, i) => () => sseClient(gateway, tokens[i]!)),
  ...Array.from({ length: hubCount }, (_, i) => () => hubClient(gateway, tokens[sseCount + i]!)),
  ...Array.from(
    { length: alarmCount },
    (_, i) => () => alarmClient(gateway, tokens[sseCount + hubCount + i]!),
  ),
];
const kinds: Kind[] = [
  ...Array<Kind>(sseCount).fill('sse'),
  ...Array<Kind>(hubCount).fill('hub'),
  ...Array<Kind>(alarmCount).fill('alarms'),
];
const clients = makers.map((make) => make());

let tick = 0;
const writer = setInterval(() => {
  tick++;
  void fetch(`${gateway.url}/api/plcs/line1/variables`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${operator}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      values: { 'MAIN.nSpeed': 1000 + (tick % 500), 'MAIN.rTemperature': 20 + (tick % 50) / 10 },
    }),
  })
    .then(async (res) => {
      await res.arrayBuffer();
      if (!res.ok) sample('writer', `HTTP ${res.status}`);
    })
    .catch(() => undefined);
}, 1000);

// Each client is reopened at most once per churn round, and not within a minute of its last reopening, so the
// NotificationConnections budget (5 per 60 s per user) is never what refuses it.
const lastReopen = new Array<number>(clients.length).fill(0);
const churn = setInterval(() => {
  const t = performance.now();
  const count = Math.round((clients.length * churnPercent) / 100);
  for (let k = 0; k < count; k++) {
    const i = Math.floor(Math.random() * clients.length);
    if (t - (lastReopen[i] ?? 0) < 60_000) continue;
    lastReopen[i] = t;
    clients[i]!.close();
    clients[i] = makers[i]!();
    tallies[kinds[i]!].reopened++;
  }
}, churnSeconds * 1000);

console.log(
  `bench:soak: examples/appsettings.json, ${sseCount} SSE + ${hubCount} hub clients on ${symbols.length} symbols of line1, ` +
    `${alarmCount} alarm streams; ${churnPercent} % of them reopened every ${churnSeconds} s; a writer every 1 s; ` +
    `${minutes} min, warm-up ${warmupMinutes} min`,
);
const start = performance.now();
const heap: Array<{ t: number; y: number }> = [];
const rss: Array<{ t: number; y: number }> = [];
let previous = structuredClone(tallies);
let snapshotTaken = false;
while ((performance.now() - start) / 60_000 < minutes) {
  await new Promise((r) => setTimeout(r, sampleSeconds * 1000));
  const elapsedMin = (performance.now() - start) / 60_000;
  const { rss: r, heapUsed } = await gateway.stats(true);
  const line = (Object.keys(tallies) as Kind[])
    .map((k) => {
      const d = tallies[k].events - previous[k].events;
      return `${k} ${(d / sampleSeconds).toFixed(0)}/s`;
    })
    .join(', ');
  const errors = tallies.sse.errors + tallies.hub.errors + tallies.alarms.errors;
  const gaps = tallies.sse.gaps + tallies.hub.gaps + tallies.alarms.gaps;
  console.log(
    `t=${elapsedMin.toFixed(1).padStart(5)} min  RSS ${mib(r).padStart(6)} MB  heap ${mib(heapUsed).padStart(6)} MB  ` +
      `events ${line}  errors ${errors}  gaps ${gaps}`,
  );
  previous = structuredClone(tallies);
  if (elapsedMin >= warmupMinutes) {
    heap.push({ t: elapsedMin / 60, y: heapUsed / 1024 / 1024 });
    rss.push({ t: elapsedMin / 60, y: r / 1024 / 1024 });
    if (snapshotDir !== undefined && !snapshotTaken) {
      snapshotTaken = true;
      console.log(`heap snapshot: ${await gateway.heapSnapshot(`${snapshotDir}/soak-warm.heapsnapshot`)}`);
    }
  }
}
if (snapshotDir !== undefined) {
  console.log(`heap snapshot: ${await gateway.heapSnapshot(`${snapshotDir}/soak-end.heapsnapshot`)}`);
}
clearInterval(writer);
clearInterval(churn);
for (const c of clients) c.close();
await gateway.stop();
console.log(
  `after the warm-up (${heap.length} samples): heap slope ${slope(heap).toFixed(2)} MiB/h, RSS slope ` +
    `${slope(rss).toFixed(2)} MiB/h (target: heap < 2 MiB/h)`,
);
for (const k of Object.keys(tallies) as Kind[]) {
  const t = tallies[k];
  console.log(
    `${k.padEnd(7)} events ${t.events}  errors ${t.errors}  gaps ${t.gaps}  reopened ${t.reopened}`,
  );
}
for (const e of errorSamples) console.log(`  e.g. ${e}`);
process.exit(0);
