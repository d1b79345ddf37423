// `serve` for real: listens on a free port, prints a working development token, and closes on abort.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { runCli } from '../../src/main.ts';
import { writeSettings } from '../config/helpers.ts';
import { capture } from './capture.ts';

const settings = {
  Urls: 'http://127.0.0.1:5000',
  Auth: { UseDevelopmentKey: true },
  PlcTargets: {
    line1: { DisplayName: 'Packaging line 1', Mode: 'Simulated' },
    press: { DisplayName: 'Press', AmsNetId: '5.1.2.3.1.1' },
  },
};

describe('plc-gateway serve', () => {
  it('serves the configured PLCs, prints a working admin token and curl line, and stops on abort', async () => {
    const controller = new AbortController();
    let listening: (url: string) => void = () => undefined;
    const ready = new Promise<string>((resolve) => (listening = resolve));
    const c = capture({ signal: controller.signal, onListening: (url) => listening(url) });
    const exit = runCli(['serve', '--config', writeSettings(settings), '--port', '0'], c.io);

    // If serve exits before listening, fail with its output instead of waiting forever.
    const url = await Promise.race([
      ready,
      exit.then((code) => assert.fail(`serve exited with ${code} before listening: ${c.err()}`)),
    ]);
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.notEqual(url, 'http://127.0.0.1:5000');
    const curl = c
      .out()
      .split('\n')
      .find((l) => l.startsWith('curl '));
    assert.ok(curl, c.out());
    const match = /^curl -H "Authorization: Bearer ([^"]+)" (\S+)$/.exec(curl);
    assert.ok(match, curl);
    assert.equal(match[2], `${url}/api/plcs`);

    const response = await fetch(`${url}/api/plcs`, {
      headers: { authorization: `Bearer ${match[1] ?? ''}` },
    });
    assert.equal(response.status, 200);
    const body = (await response.json()) as { data: Array<{ plcId: string; state: string; mode: string }> };
    assert.deepEqual(
      body.data.map((p) => [p.plcId, p.mode, p.state]),
      [
        ['line1', 'Simulated', 'Connected'],
        // Unreachable Real PLCs keep retrying in the background.
        ['press', 'Real', 'Connecting'],
      ],
    );
    assert.match(c.out(), /"msg":"plc-gateway ready"/);

    controller.abort();
    assert.equal(await exit, 0);
    await assert.rejects(fetch(`${url}/api/plcs`));
  });

  it('exits 1 when the port is taken', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as AddressInfo;
    try {
      const c = capture();
      const code = await runCli(['serve', '--config', writeSettings(settings), '--port', String(port)], c.io);
      assert.equal(code, 1);
      assert.match(c.err(), new RegExp(`cannot start on 127\\.0\\.0\\.1:${port}: .*EADDRINUSE`));
    } finally {
      blocker.close();
    }
  });
});
