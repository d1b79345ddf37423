// `plc-gateway serve` as a real process: SIGTERM ends every stream cleanly (each SSE response completes, each
// hub client gets a SignalR Close then the WebSocket close frame) and the process exits 0, which it does only
// when it finished before its own 5 s limit (past that it exits 1).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { request, type IncomingMessage } from 'node:http';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';
import { WebSocket } from 'ws';
import { writeSettings } from '../config/helpers.ts';
import { Signal } from '../helpers/signal.ts';

const root = resolve(import.meta.dirname, '../..');
const scenario = resolve(root, 'test/features/alarms/scenario');
// Only ends a hang: the child compiles the sources through tsx at start, which a busy machine makes slow.
const waitMs = 90_000;
const RS = '\u001e';

interface SseOutcome {
  status: number;
  /** The response completed (the final chunk arrived), as opposed to a dropped connection. */
  completed: boolean;
  aborted: boolean;
  events: string[];
}

function openSse(url: string, token: string, signal: Signal): SseOutcome {
  const outcome: SseOutcome = { status: 0, completed: false, aborted: false, events: [] };
  const req = request(url, { headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' } });
  req.on('response', (res: IncomingMessage) => {
    outcome.status = res.statusCode ?? 0;
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      for (const m of chunk.matchAll(/^event: (\w+)$/gm)) outcome.events.push(m[1] ?? '');
      signal.notify();
    });
    res.on('end', () => {
      outcome.completed = true;
      signal.notify();
    });
    res.on('aborted', () => {
      outcome.aborted = true;
      signal.notify();
    });
    signal.notify();
  });
  req.on('error', () => {
    outcome.aborted = true;
    signal.notify();
  });
  req.end();
  return outcome;
}

interface HubOutcome {
  messages: Array<{ type?: number; error?: string }>;
  closeCode: number | undefined;
  handshaken: boolean;
}

function openHub(url: string, token: string, signal: Signal): HubOutcome {
  const outcome: HubOutcome = { messages: [], closeCode: undefined, handshaken: false };
  const ws = new WebSocket(url, { headers: { authorization: `Bearer ${token}` } });
  ws.on('open', () => ws.send(`{"protocol":"json","version":1}${RS}`));
  ws.on('message', (data: Buffer) => {
    for (const record of data.toString().split(RS)) {
      if (record === '') continue;
      const message = JSON.parse(record) as { type?: number; error?: string };
      if (!outcome.handshaken && message.type === undefined) outcome.handshaken = true;
      else outcome.messages.push(message);
    }
    signal.notify();
  });
  ws.on('close', (code: number) => {
    outcome.closeCode = code;
    signal.notify();
  });
  ws.on('error', () => signal.notify());
  return outcome;
}

describe('plc-gateway serve on SIGTERM', () => {
  it('ends every SSE and hub stream cleanly and exits 0', async () => {
    const config = writeSettings({
      Urls: 'http://127.0.0.1:0',
      Auth: { UseDevelopmentKey: true },
      Features: { Alarms: true, Notifications: true },
      PlcTargets: { line1: { Mode: 'Simulated', Scenario: scenario } },
      PlcAlarms: { Targets: { line1: { SymbolPath: 'GVL_HMI.fbAlarms.aAlarms' } } },
    });
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', resolve(root, 'src/main.ts'), 'serve', '--config', config, '--port', '0'],
      {
        cwd: root,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const signal = new Signal();
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      out += c;
      signal.notify();
    });
    child.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
    let exitCode: number | null | undefined;
    child.on('exit', (code) => {
      exitCode = code;
      signal.notify();
    });
    try {
      const [, token, base] = await signal.until(
        () =>
          /^curl -H "Authorization: Bearer ([^"]+)" (\S+)\/api\/plcs$/m.exec(out) ??
          (exitCode !== undefined ? assert.fail(`serve exited: ${err}`) : undefined),
        waitMs,
        () => `serve to listen (${out}${err})`,
      );
      assert.ok(token && base);
      const ws = base.replace('http', 'ws');
      const sse = [
        openSse(
          `${base}/api/plcs/line1/notifications/sse?symbols=GVL_HMI.fbAlarms.aAlarms%5B1%5D.sKey`,
          token,
          signal,
        ),
        openSse(`${base}/api/plcs/line1/alarms/stream`, token, signal),
        openSse(`${base}/api/alarms/stream`, token, signal),
      ];
      const hubs = [
        openHub(`${ws}/api/plcs/line1/notifications/ws`, token, signal),
        openHub(`${ws}/api/plcs/line1/alarms/ws`, token, signal),
      ];
      await signal.until(
        () => sse.every((s) => s.status === 200) && hubs.every((h) => h.handshaken),
        waitMs,
        () => `streams to open (${JSON.stringify({ sse, hubs })})`,
      );
      // The notification stream has delivered its first events: it is live, not just accepted.
      await signal.until(
        () => sse[0]?.events.includes('change'),
        waitMs,
        () => 'the first notification',
      );

      child.kill('SIGTERM');
      await signal.until(
        () => exitCode !== undefined,
        waitMs,
        () => 'the process to exit',
      );
      assert.equal(exitCode, 0, err);
      for (const s of sse) assert.deepEqual([s.completed, s.aborted], [true, false], JSON.stringify(s));
      for (const h of hubs) {
        assert.equal(h.closeCode, 1000);
        const close = h.messages.find((m) => m.type === 7);
        assert.equal(close?.error, 'The server is shutting down.');
      }
      assert.match(out, /"msg":"plc-gateway stopped"/);
    } finally {
      if (exitCode === undefined) child.kill('SIGKILL');
    }
  });
});
