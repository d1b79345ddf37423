// The server side of bench:fanout, run in its own process so its CPU and RSS are its own: either the gateway over
// one simulated PLC whose 50 LREAL symbols change every 100 ms scan (each value is the wall-clock time of the
// write, for latency), or the ceiling: a bare `ws` server broadcasting the same changes as pre-serialised frames.
import { performance } from 'node:perf_hooks';
import { WebSocketServer } from 'ws';
import { startStreamGateway } from './servers/stream-gateway.ts';

const symbolCount = 50;
const scanMs = 100;
const symbolPaths = Array.from({ length: symbolCount }, (_, i) => `MAIN.rValue${i}`);
const now = (): number => performance.timeOrigin + performance.now();

/** The ceiling: the same 50 changes per scan, serialised and encoded once, broadcast in one message per client. */
async function ceiling(): Promise<string> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise((resolve) => wss.once('listening', resolve));
  setInterval(() => {
    const t = now();
    let batch = '';
    for (const [i, symbol] of symbolPaths.entries()) {
      const data = JSON.stringify({
        symbol,
        value: t + i * 1e-6,
        type: 'LREAL',
        timestamp: new Date(t).toISOString(),
      });
      batch += `{"type":1,"target":"VariableChanged","arguments":[${data}]}\u001e`;
    }
    // Encoded once and written as it is to every client (a text message), as the gateway's hub does.
    const frame = Buffer.from(batch);
    for (const client of wss.clients) client.send(frame, { binary: false });
  }, scanMs);
  const address = wss.address();
  return `ws://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
}

const mode = process.argv[2];
const { url, token } =
  mode === 'ceiling' ? { url: await ceiling(), token: '' } : await startStreamGateway(symbolPaths, scanMs);
process.on('message', (message) => {
  if (message === 'stats') process.send?.({ cpu: process.cpuUsage(), rss: process.memoryUsage().rss });
});
process.send?.({ url, token, symbols: symbolPaths });
// A plain exit (rather than death by signal) lets a --cpu-prof profile be written.
process.once('SIGTERM', () => process.exit(0));
