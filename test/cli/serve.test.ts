// `serve` for real: listens on a free port, prints a working development token, and closes on abort.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { runCli } from '../../src/main.ts';
import { specServiceSettings, writeSettings } from '../config/helpers.ts';
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
    // The console link signs in with the same token, in a fragment the browser never sends.
    assert.ok(c.out().split('\n').includes(`${url}/console/#token=${match[1]}`), c.out());

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

  it("starts on an appsettings.json written for the spec's service, one warning per ignored key", async () => {
    const controller = new AbortController();
    let listening: (url: string) => void = () => undefined;
    const ready = new Promise<string>((resolve) => (listening = resolve));
    const c = capture({ signal: controller.signal, onListening: (url) => listening(url) });
    const file = writeSettings(specServiceSettings);
    const exit = runCli(['serve', '--config', file, '--port', '0'], c.io);
    const url = await Promise.race([
      ready,
      exit.then((code) => assert.fail(`serve exited with ${code} before listening: ${c.err()}`)),
    ]);
    // A failed assertion must still stop the server, or the test file never ends.
    try {
      const lines = c
        .out()
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as { level: number; msg: string; setting?: string });
      const warnings = lines.filter((l) => l.setting !== undefined);
      assert.deepEqual(
        warnings.map((l) => [l.level, l.setting]),
        [
          [40, 'AllowedHosts'],
          [40, 'Kestrel'],
          [40, 'Logging.LogLevel.Default'],
          [40, 'Logging.LogLevel.Microsoft.AspNetCore'],
          [40, 'Logging.LogLevel.Microsoft.Hosting.Lifetime'],
          [40, 'Logging.Console'],
          [40, 'AmsRouter.Routes'],
          [40, 'PlcTargets.Line1.EtherCat.MasterNetId'],
        ],
      );
      assert.match(warnings[0]?.msg ?? '', /^Ignored setting AllowedHosts: an ASP\.NET Core host setting/);
      assert.match(
        warnings[2]?.msg ?? '',
        /^Logging\.Level is 'warn', taken from Logging\.LogLevel\.Default/,
      );
      // LogLevel.Default Warning took effect: no info lines (the ready line is one).
      assert.deepEqual(
        lines.filter((l) => l.level < 40),
        [],
      );
      assert.equal(c.err(), '');

      const token = c
        .out()
        .split('\n')
        .find((l) => l.startsWith('eyJ'));
      const response = await fetch(`${url}/api/plcs/line1/status`, {
        headers: { authorization: `Bearer ${token ?? ''}` },
      });
      assert.equal(response.status, 200);
      assert.equal(((await response.json()) as { data: { plcId: string } }).data.plcId, 'Line1');

      // An enum written with an integer that is no member: written, read back as the integer, logged.
      const variable = `${url}/api/plcs/LINE1/variables/GVL_Sim.eMachineMode`;
      const headers = { authorization: `Bearer ${token ?? ''}`, 'content-type': 'application/json' };
      const put = await fetch(variable, { method: 'PUT', headers, body: JSON.stringify({ value: 7 }) });
      assert.equal(put.status, 200);
      assert.equal(((await put.json()) as { data: { value: unknown } }).data.value, 7);
      const warned = c
        .out()
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .filter((l) => l.symbol === 'GVL_Sim.eMachineMode');
      assert.deepEqual(
        warned.map((l) => [l.level, l.plcId, l.symbol, l.value, l.msg]),
        [
          [
            40,
            'Line1',
            'GVL_Sim.eMachineMode',
            7,
            'GVL_Sim.eMachineMode: wrote 7, which is no member of E_MachineMode (the PLC holds it as is)',
          ],
        ],
      );
    } finally {
      controller.abort();
    }
    assert.equal(await exit, 0);
  });

  it('refuses a misspelt key of its own as an error, not a warning', async () => {
    const c = capture();
    const file = writeSettings({ ...specServiceSettings, Featurs: { Alarms: true } });
    assert.equal(await runCli(['serve', '--config', file, '--port', '0'], c.io), 1);
    assert.equal(
      c.err(),
      'plc-gateway serve: invalid configuration:\n' +
        '  - Featurs: unknown setting, not one of plc-gateway (check the spelling)\n',
    );
    assert.equal(c.out(), '');
  });
});
