// The server side of bench:fanout, run in its own process so its CPU and RSS are its own: either the gateway over
// one simulated PLC whose 50 LREAL symbols change every 100 ms scan (each value is the wall-clock time of the
// write, for latency), or the ceiling: a bare `ws` server broadcasting the same changes as pre-serialised frames,
// or (`budget <plcPort> <symbols>`) the gateway over a Real PLC: sim-ads in bench/fanout-plc.ts, NotificationBudget
// 500, so symbols past the 500th are polled.
import { performance } from 'node:perf_hooks';
import { WebSocketServer } from 'ws';
import { buildApp } from '../src/app.ts';
import { mintToken } from '../src/cli/mint-token.ts';
import { configFromDocument } from '../src/config/load.ts';
import { createAdsTarget } from '../src/targets/ads/index.ts';
import type { PlcTarget } from '../src/targets/target.ts';
import { createRegistry } from '../src/targets/registry.ts';
import { startStreamGateway } from './servers/stream-gateway.ts';

const symbolCount = 50;
const scanMs = 100;
const symbolPaths = Array.from({ length: symbolCount }, (_, i) => `MAIN.rValue${i}`);
const now = (): number => performance.timeOrigin + performance.now();

const signingKey = 'bench-signing-key-0123456789-0123456789';

// Defaults, except the limits raised so that only fan-out is measured.
const settings = {
  Auth: { SigningKey: signingKey },
  RateLimiting: { Enabled: false },
  ConnectionLimits: { MaxPerUser: 10_000, MaxTotal: 10_000 },
};

async function serve(target: PlcTarget, document: Record<string, unknown> = settings): Promise<string> {
  const config = configFromDocument(document, process.cwd(), {});
  const app = await buildApp(config, { registry: createRegistry([target]) });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  return `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
}

/** The gateway over sim-ads at `plcPort` (a Real target, NotificationBudget 500); resolves once connected. */
async function budgetGateway(plcPort: number): Promise<string> {
  const document = {
    ...settings,
    AmsRouter: { NetId: '127.0.0.1.1.20', LocalAdsPort: 32750 },
    PlcTargets: {
      plc1: {
        Mode: 'Real',
        AmsNetId: '127.0.0.1.1.1',
        Address: '127.0.0.1',
        TcpPort: plcPort,
        NotificationBudget: 500,
      },
    },
  };
  const config = configFromDocument(document, process.cwd(), {});
  const plcSettings = config.settings.PlcTargets.plc1;
  if (!plcSettings) throw new Error('no plc1');
  const target = createAdsTarget('plc1', plcSettings, { config });
  await target.start();
  await new Promise<void>((resolve) => {
    if (target.connectionState() === 'Connected') resolve();
    const off = target.onConnectionState((s) => {
      if (s !== 'Connected') return;
      off();
      resolve();
    });
  });
  return serve(target, document);
}

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
const budgetSymbols = Number(process.argv[4] ?? 0);
const budgetToken = (): Promise<string> =>
  mintToken(
    { sub: 'bench', role: 'viewer', scope: 'ads:read', plcAccess: ['*'], ttlSeconds: 3600 },
    { key: signingKey, roleClaim: 'role' },
  );
const { url, token } =
  mode === 'ceiling'
    ? { url: await ceiling(), token: '' }
    : mode === 'budget'
      ? { url: await budgetGateway(Number(process.argv[3])), token: await budgetToken() }
      : await startStreamGateway(symbolPaths, scanMs);
process.on('message', (message) => {
  if (message === 'stats') process.send?.({ cpu: process.cpuUsage(), rss: process.memoryUsage().rss });
});
const symbols =
  mode === 'budget' ? Array.from({ length: budgetSymbols }, (_, i) => `MAIN.rValue${i}`) : symbolPaths;
process.send?.({ url, token, symbols });
// A plain exit (rather than death by signal) lets a --cpu-prof profile be written.
process.once('SIGTERM', () => process.exit(0));
