// bench:hostile: what a viewer token can do to a running gateway, each attack against a fresh gateway serving
// examples/appsettings.json in its own process. Prints the gateway's RSS (idle, peak during the attack, at its end)
// and `GET /health/live` latency as another client sees it (idle and during), and what the gateway did about it.
//  hub        a SignalR socket sends 64 KiB messages that never hold the record separator, after the handshake and
//             before it
//  downloads  15 downloads of a 16 MiB file that the client never reads, as JSON and as raw bytes
//  mcp        30 POSTs, each a JSON-RPC batch of 100 watch_variables calls
//  cycles     20 hub connections (ConnectionLimits.MaxPerUser), each subscribing 50 symbols cyclic at its own
//             cycle (10, 11, ... 29 ms): as many distinct PLC subscriptions as one viewer can make
// Run: npm run bench:hostile [-- --attacks hub,downloads,mcp,cycles --hold-seconds 40 --hub-mb 38]
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';
import {
  formatLiveness,
  mib,
  probeLiveness,
  sampleRss,
  startGateway,
  tokenFor,
  type Gateway,
  type LivenessFigures,
} from './gateway-process.ts';

const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const attacks = (arg('attacks') ?? 'hub,downloads,mcp,cycles').split(',');
const holdSeconds = Number(arg('hold-seconds') ?? 40);
const hubMegabytes = Number(arg('hub-mb') ?? 38);
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

interface Figures {
  idle: LivenessFigures;
  during: LivenessFigures;
  rssIdle: number;
  rssPeak: number;
  rssEnd: number;
  outcome: string;
}

/** Runs `attack` against a fresh gateway, timing liveness and sampling RSS around it. */
async function measure(attack: (gateway: Gateway) => Promise<string>): Promise<Figures> {
  const gateway = await startGateway();
  try {
    await sleep(2000);
    const idleProbe = probeLiveness(gateway.url);
    await sleep(3000);
    const idle = await idleProbe.stop();
    const rssIdle = (await gateway.stats()).rss;
    const rss = sampleRss(gateway);
    const probe = probeLiveness(gateway.url);
    const outcome = await attack(gateway);
    const during = await probe.stop();
    const { peak, last } = await rss.stop();
    return { idle, during, rssIdle, rssPeak: peak, rssEnd: last, outcome };
  } finally {
    await gateway.stop();
  }
}

function print(name: string, f: Figures): void {
  console.log(
    `${name.padEnd(34)} RSS ${mib(f.rssIdle)} MB idle, ${mib(f.rssPeak)} MB peak, ${mib(f.rssEnd)} MB at the end; ` +
      `${formatLiveness(f.during)} (idle p50 ${f.idle.p50.toFixed(1)} ms)`,
  );
  console.log(`${''.padEnd(34)} ${f.outcome}`);
}

/** A SignalR socket that streams 64 KiB text messages without a record separator, as fast as it may. */
async function hubFlood(gateway: Gateway, handshake: boolean): Promise<string> {
  const token = await tokenFor('viewer', 'mallory');
  const ws = new WebSocket(
    `${gateway.url.replace('http', 'ws')}/api/plcs/line1/notifications/ws?access_token=${token}`,
  );
  await once(ws, 'open');
  let closed: { code: number; reason: string } | undefined;
  let lastText = '';
  ws.on('message', (data: Buffer) => (lastText = data.toString()));
  ws.on('close', (code, reason) => (closed = { code, reason: String(reason) }));
  ws.on('error', () => undefined);
  if (handshake) ws.send('{"protocol":"json","version":1}\u001e');
  const chunk = `{"type":1,"target":"Subscribe","arguments":[["${'x'.repeat(64 * 1024 - 64)}`;
  const total = hubMegabytes * 1024 * 1024;
  let sent = 0;
  const t0 = performance.now();
  while (sent < total && closed === undefined && ws.readyState === WebSocket.OPEN) {
    await new Promise<void>((resolve) => ws.send(chunk, () => resolve()));
    sent += chunk.length;
  }
  // Let the gateway work through what it was sent before the figures are taken.
  const deadline = performance.now() + 5000;
  while (closed === undefined && performance.now() < deadline) await sleep(100);
  const took = ((performance.now() - t0) / 1000).toFixed(1);
  ws.terminate();
  const close = lastText.includes('"type":7')
    ? `; its last message: ${lastText.replace('\u001e', '').slice(0, 160)}`
    : '';
  return closed === undefined
    ? `sent ${mib(sent)} MB in ${took} s; the gateway kept the connection open`
    : `the gateway closed the socket after ${mib(sent)} MB (code ${closed.code}) in ${took} s${close}`;
}

/** Uploads a 16 MiB file as an operator, then opens 15 downloads of it that are never read. */
async function unreadDownloads(gateway: Gateway, accept: string): Promise<string> {
  const path = '/api/plcs/line1/files/hostile/big.bin';
  const put = await fetch(`${gateway.url}${path}`, {
    method: 'PUT',
    headers: {
      authorization: `Bearer ${await tokenFor('operator')}`,
      'content-type': 'application/octet-stream',
    },
    body: randomBytes(16 * 1024 * 1024 - 1024),
  });
  if (!put.ok) throw new Error(`upload: ${put.status} ${await put.text()}`);
  const token = await tokenFor('viewer', 'mallory');
  const { host, port } = new URL(gateway.url);
  const statuses: string[] = [];
  let closedByServer = 0;
  const sockets: Socket[] = [];
  for (let i = 0; i < 15; i++) {
    const socket = connect({ host: host.replace(/:\d+$/, ''), port: Number(port) });
    sockets.push(socket);
    socket.once('data', (chunk: Buffer) => {
      statuses.push(chunk.toString('latin1').split('\r\n', 1)[0]?.split(' ')[1] ?? '?');
      socket.pause();
    });
    socket.on('close', () => closedByServer++);
    socket.on('error', () => undefined);
    socket.write(
      `GET ${path} HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${token}\r\nAccept: ${accept}\r\n\r\n`,
    );
  }
  await sleep(holdSeconds * 1000);
  const open = sockets.filter((s) => !s.destroyed).length;
  for (const s of sockets) s.destroy();
  const counts = new Map<string, number>();
  for (const s of statuses) counts.set(s, (counts.get(s) ?? 0) + 1);
  return (
    `answers ${[...counts].map(([s, n]) => `${n} x ${s}`).join(', ') || 'none'}; after ${holdSeconds} s ` +
    `${open} of 15 connections still open, ${closedByServer} closed by the gateway`
  );
}

/** 30 POSTs of 100 watch_variables calls each (a JSON-RPC batch), none awaited. */
async function mcpBatches(gateway: Gateway): Promise<string> {
  const token = await tokenFor('viewer', 'mallory');
  const headers = {
    authorization: `Bearer ${token}`,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  };
  const init = await fetch(`${gateway.url}/mcp`, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'hostile', version: '1' },
      },
    }),
  });
  const session = init.headers.get('mcp-session-id');
  await init.body?.cancel();
  if (session === null) throw new Error(`initialize: ${init.status}`);
  const withSession = { ...headers, 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' };
  await fetch(`${gateway.url}/mcp`, {
    method: 'POST',
    headers: withSession,
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  }).then((r) => r.body?.cancel());
  const cpu0 = (await gateway.stats()).cpu;
  const t0 = performance.now();
  const abort = new AbortController();
  const answers: Array<Promise<string>> = [];
  let id = 1;
  for (let post = 0; post < 30; post++) {
    const batch = Array.from({ length: 100 }, () => ({
      jsonrpc: '2.0',
      id: id++,
      method: 'tools/call',
      params: {
        name: 'watch_variables',
        arguments: { plcId: 'line1', paths: ['GVL_HMI.stMachine.rSpeed'], seconds: 60, intervalMs: 100 },
      },
    }));
    answers.push(
      fetch(`${gateway.url}/mcp`, {
        method: 'POST',
        headers: withSession,
        body: JSON.stringify(batch),
        signal: abort.signal,
      }).then(
        async (res) => {
          const text = await res.text().catch(() => '');
          const refused = (text.match(/"isError":true|"error":\{/g) ?? []).length;
          return `${res.status}${refused > 0 ? ` (${refused} refused)` : ''}`;
        },
        () => 'pending',
      ),
    );
  }
  await sleep(Math.min(holdSeconds, 20) * 1000);
  const cpu1 = (await gateway.stats()).cpu;
  const seconds = (performance.now() - t0) / 1000;
  const cpuShare = ((cpu1.user + cpu1.system - cpu0.user - cpu0.system) / 1e6 / seconds) * 100;
  abort.abort();
  const statuses = await Promise.all(answers);
  const counts = new Map<string, number>();
  for (const s of statuses) counts.set(s, (counts.get(s) ?? 0) + 1);
  return (
    `gateway CPU ${cpuShare.toFixed(0)} % of a core while the watches ran; POST answers within ` +
    `${seconds.toFixed(0)} s: ${[...counts].map(([s, n]) => `${n} x ${s}`).join(', ')}`
  );
}

/** Up to `n` numeric leaf symbols of line1, from the flat symbol listing. */
async function numericSymbols(gateway: Gateway, token: string, n: number): Promise<string[]> {
  const res = await fetch(`${gateway.url}/api/plcs/line1/symbols?flat=true`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const body = (await res.json()) as { data: unknown };
  const found: string[] = [];
  const visit = (node: unknown): void => {
    if (found.length >= n || typeof node !== 'object' || node === null) return;
    if (Array.isArray(node)) return node.forEach(visit);
    const o = node as Record<string, unknown>;
    const type = o.type ?? o.typeName;
    const path = o.instancePath ?? o.path;
    if (
      typeof path === 'string' &&
      typeof type === 'string' &&
      /^(L?REAL|U?[SDL]?INT|U?INT|WORD|DWORD)$/.test(type)
    ) {
      found.push(path);
    }
    for (const v of Object.values(o)) if (typeof v === 'object') visit(v);
  };
  visit(body.data);
  return found;
}

/** 20 hub connections, each Subscribe(50 symbols, { cycleMs: 10 + i, mode: 'cyclic' }); held, CPU measured. */
async function cycleSweep(gateway: Gateway): Promise<string> {
  const token = await tokenFor('viewer', 'mallory');
  const symbols = await numericSymbols(gateway, token, 50);
  const sockets: WebSocket[] = [];
  const answers: string[] = [];
  let received = 0;
  for (let i = 0; i < 20; i++) {
    const ws = new WebSocket(
      `${gateway.url.replace('http', 'ws')}/api/plcs/line1/notifications/ws?access_token=${token}`,
    );
    ws.on('error', () => undefined);
    await once(ws, 'open');
    sockets.push(ws);
    const answer = new Promise<string>((resolve) => {
      ws.on('message', (data: Buffer) => {
        const text = data.toString();
        received += text.length;
        for (const record of text.split('\u001e')) {
          if (!record.includes('"type":3')) continue;
          const m = /"error":"([A-Z_]+)/.exec(record);
          const c = /"cycleMs":(\d+)/.exec(text);
          resolve(m ? (m[1] ?? 'error') : `ok${c ? ` ${c[1]} ms` : ''}`);
        }
      });
    });
    ws.send('{"protocol":"json","version":1}\u001e');
    ws.send(
      JSON.stringify({
        type: 1,
        invocationId: '1',
        target: 'Subscribe',
        arguments: [symbols, { cycleMs: 10 + i, mode: 'cyclic' }],
      }) + '\u001e',
    );
    answers.push(await Promise.race([answer, sleep(10_000).then(() => 'no answer')]));
  }
  const cpu0 = (await gateway.stats()).cpu;
  const bytes0 = received;
  const t0 = performance.now();
  await sleep(Math.min(holdSeconds, 20) * 1000);
  const cpu1 = (await gateway.stats()).cpu;
  const seconds = (performance.now() - t0) / 1000;
  const cpuShare = ((cpu1.user + cpu1.system - cpu0.user - cpu0.system) / 1e6 / seconds) * 100;
  const rate = (received - bytes0) / seconds / 1024 / 1024;
  // What the PLC is asked for: one subscription per symbol and distinct confirmed cycle (all cyclic).
  const held = new Set(answers.filter((a) => a.startsWith('ok'))).size * symbols.length;
  for (const ws of sockets) ws.terminate();
  const counts = new Map<string, number>();
  for (const a of answers) counts.set(a, (counts.get(a) ?? 0) + 1);
  return (
    `${symbols.length} symbols; Subscribe answers: ${[...counts].map(([a, n]) => `${n} x ${a}`).join(', ')}; ` +
    `${held} PLC subscriptions (symbols x distinct confirmed cycles); gateway CPU ${cpuShare.toFixed(0)} % of a core, ` +
    `${rate.toFixed(1)} MB/s sent to the viewer`
  );
}

console.log(
  `bench:hostile: a viewer token against a gateway serving examples/appsettings.json; liveness probed every 100 ms`,
);
if (attacks.includes('hub')) {
  print('hub: 64 KiB frames, no separator', await measure((g) => hubFlood(g, true)));
  print('hub: the same before the handshake', await measure((g) => hubFlood(g, false)));
}
if (attacks.includes('downloads')) {
  print('downloads: 15 unread, JSON', await measure((g) => unreadDownloads(g, 'application/json')));
  print(
    'downloads: 15 unread, raw bytes',
    await measure((g) => unreadDownloads(g, 'application/octet-stream')),
  );
}
if (attacks.includes('mcp')) {
  print('mcp: 30 batches of 100 watches', await measure(mcpBatches));
}
if (attacks.includes('cycles')) {
  print('cycles: 20 hubs x 50 symbols cyclic', await measure(cycleSweep));
}
