// A client process of bench:fanout: opens its share of the clients (SSE, SignalR JSON hub over ws, or bare ws for
// the ceiling), counts the change events they receive and samples latency on every 10th client. The clients are
// spread over several such processes so that the client side does not measure itself.
// IPC from the parent: { open: { url, token, symbols, mode, from, count } } -> 'opened'; 'reset' -> 'reset';
// 'report' -> { events, latencies }; 'close' -> exits.
import { request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { WebSocket } from 'ws';

export interface OpenCommand {
  readonly url: string;
  readonly token: string;
  readonly symbols: string[];
  readonly mode: 'gateway' | 'ceiling';
  /** Global index of this process's first client: even indexes are SSE clients, odd ones hub clients. */
  readonly from: number;
  readonly count: number;
  /**
   * Each pair of clients (SSE 2k, hub 2k + 1) subscribes to its own `slice` symbols, k * slice on, instead of
   * all of them (the budget runs: thousands of distinct symbols, each with two clients).
   */
  readonly slice?: number;
  /** Only SSE clients (bench:history), instead of SSE and hub clients alternating. */
  readonly sseOnly?: boolean;
}

export interface Report {
  readonly events: number;
  readonly latencies: number[];
}

export const sampleEvery = 10;
const RS = '\u001e';
const now = (): number => performance.timeOrigin + performance.now();
// Opening is done this many clients at a time, so thousands of clients open quickly without a connect storm.
const openBatch = 50;

let events = 0;
let latencies: number[] = [];
const closers: Array<() => void> = [];

/**
 * Counts `change`/`VariableChanged` records in the raw bytes, without decoding them (the least work that still
 * counts exactly); sampled clients also decode and parse values (write times) for latency. A record split over
 * two reads of a byte stream is found through the previous read's last bytes, carried over.
 */
function counter(marker: string, sampled: boolean, whole = false): (data: Buffer) => void {
  const m = Buffer.from(marker);
  let carry: Buffer | undefined;
  return (data) => {
    const buf = carry === undefined ? data : Buffer.concat([carry, data]);
    for (let i = buf.indexOf(m); i >= 0; i = buf.indexOf(m, i + m.length)) events++;
    if (!whole) carry = buf.length >= m.length ? buf.subarray(buf.length - m.length + 1) : buf;
    if (!sampled) return;
    const t = now();
    for (const v of data.toString().matchAll(/"value":([0-9.e+]+)/g)) latencies.push(t - Number(v[1]));
  };
}

function sseClient(c: OpenCommand, symbols: readonly string[], sampled: boolean): Promise<() => void> {
  const q = symbols.map((s) => `symbols=${encodeURIComponent(s)}`).join('&');
  return new Promise((resolve, reject) => {
    const req = request(
      `${c.url}/api/plcs/plc1/notifications/sse?${q}`,
      { headers: { authorization: `Bearer ${c.token}`, accept: 'text/event-stream' } },
      (res) => {
        if (res.statusCode !== 200) reject(new Error(`SSE answered ${String(res.statusCode)}`));
        res.on('data', counter('event: change', sampled));
        resolve(() => req.destroy());
      },
    );
    req.on('error', reject);
    req.end();
  });
}

function wsClient(
  url: string,
  hub: { token: string; symbols: readonly string[] } | undefined,
  sampled: boolean,
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
    // WebSocket messages arrive whole: nothing to carry over.
    const count = counter('VariableChanged', sampled, true);
    ws.on('message', (data: Buffer) => count(data));
  });
}

function openOne(c: OpenCommand, i: number): Promise<() => void> {
  // Pairs of clients, so that SSE (even) and hub (odd) clients are sampled alike.
  const sampled = Math.floor(i / 2) % sampleEvery === 0;
  if (c.mode === 'ceiling') return wsClient(c.url, undefined, sampled);
  const k = Math.floor(i / 2);
  const symbols = c.slice === undefined ? c.symbols : c.symbols.slice(k * c.slice, (k + 1) * c.slice);
  if (c.sseOnly === true || i % 2 === 0) return sseClient(c, symbols, sampled);
  const hub = { token: c.token, symbols };
  return wsClient(`${c.url.replace('http', 'ws')}/api/plcs/plc1/notifications/ws`, hub, sampled);
}

async function open(c: OpenCommand): Promise<void> {
  for (let start = c.from; start < c.from + c.count; start += openBatch) {
    const end = Math.min(c.from + c.count, start + openBatch);
    const batch: Array<Promise<() => void>> = [];
    for (let i = start; i < end; i++) batch.push(openOne(c, i));
    closers.push(...(await Promise.all(batch)));
  }
}

process.on('message', (message: 'reset' | 'report' | 'close' | { open: OpenCommand }) => {
  if (typeof message === 'object') {
    void open(message.open).then(
      () => process.send?.('opened'),
      (err: Error) => process.send?.({ failed: err.message }),
    );
  } else if (message === 'reset') {
    events = 0;
    latencies = [];
    process.send?.('reset');
  } else if (message === 'report') {
    const report: Report = { events, latencies };
    process.send?.(report);
  } else {
    for (const close of closers) close();
    process.exit(0);
  }
});
