// `plc-gateway sim-ads` applies a program change while it runs: on SIGHUP (or the in-process trigger tests pass)
// it reads its settings file again and loads the program as a download, bumping the symbol version; a file with
// problems leaves the running program alone. Once in process, once as a real child process sent SIGHUP.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { Client } from 'ads-client';
import { runCli } from '../../src/main.ts';
import { minimalSettings, writeSettings } from '../config/helpers.ts';
import { Signal } from '../helpers/signal.ts';
import { capture } from './capture.ts';

const limitMs = 20_000;

function settings(initialValues: Record<string, { value: unknown; type: string }>): object {
  return { ...minimalSettings, PlcTargets: { line1: { Mode: 'Simulated', InitialValues: initialValues } } };
}

const first = settings({ 'MAIN.nSpeed': { value: 1500, type: 'DINT' } });
const second = settings({
  'MAIN.nSpeed': { value: 1500, type: 'DINT' },
  'MAIN.nLevel': { value: 7, type: 'INT' },
});

async function connect(port: number): Promise<Client> {
  const client = new Client({
    targetAmsNetId: '127.0.0.1.1.1',
    targetAdsPort: 851,
    routerTcpPort: port,
    autoReconnect: false,
    hideConsoleWarnings: true,
  });
  await client.connect();
  return client;
}

describe('plc-gateway sim-ads program reload', () => {
  it('in process: a reload is a download (symbol version up, new symbols); a bad file changes nothing', async () => {
    const file = writeSettings(first);
    const controller = new AbortController();
    const signal = new Signal();
    let reload: () => void = () => assert.fail('no reload listener');
    let listening: (url: string) => void = () => undefined;
    const ready = new Promise<string>((r) => (listening = r));
    const c = capture({
      signal: controller.signal,
      cwd: process.cwd(),
      onListening: (url) => listening(url),
      onReload: (listener) => {
        reload = listener;
        return () => (reload = () => assert.fail('reload after stop'));
      },
      stdout: { write: (t: string) => ((out += t), signal.notify()) },
      stderr: { write: (t: string) => ((err += t), signal.notify()) },
    });
    let out = '';
    let err = '';
    const exit = runCli(['sim-ads', '--config', file, '--plc', 'line1', '--port', '0', '--no-udp'], c.io);
    const url = await Promise.race([ready, exit.then((code) => `exit ${code}`)]);
    const port = Number(/:(\d+)$/.exec(url)?.[1]);
    assert.ok(port > 0, url);
    const client = await connect(port);
    try {
      assert.equal(await client.readPlcSymbolVersion(), 1);
      writeFileSync(file, JSON.stringify(second));
      reload();
      await signal.until(
        () => /symbol version 1 -> 2/.test(out) || undefined,
        limitMs,
        () => `reloaded: ${out} ${err}`,
      );
      assert.match(out, /Reloaded PLC line1 of .* as a program download: symbol version 1 -> 2\./);
      assert.equal(await client.readPlcSymbolVersion(), 2);
      assert.equal((await client.readValue('MAIN.nLevel')).value, 7);

      writeFileSync(file, '{ not json');
      reload();
      await signal.until(
        () => /reload failed/.test(err) || undefined,
        limitMs,
        () => `refused: ${out} ${err}`,
      );
      assert.match(err, /reload failed, still serving symbol version 2/);
      assert.equal(await client.readPlcSymbolVersion(), 2);
    } finally {
      await client.disconnect();
      controller.abort();
      assert.equal(await exit, 0);
    }
  });

  it('as a child process: SIGHUP reloads the settings file', async () => {
    const file = writeSettings(first);
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        'src/main.ts',
        'sim-ads',
        '--config',
        file,
        '--plc',
        'line1',
        '--port',
        '0',
        '--no-udp',
      ],
      { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const signal = new Signal();
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (t: string) => ((out += t), signal.notify()));
    child.stderr.setEncoding('utf8').on('data', (t: string) => ((out += t), signal.notify()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    let client: Client | undefined;
    try {
      const port = await signal.until(
        () => Number(/listening on 127\.0\.0\.1:(\d+)/.exec(out)?.[1]) || undefined,
        limitMs,
        () => `listening: ${out}`,
      );
      client = await connect(port);
      assert.equal(await client.readPlcSymbolVersion(), 1);
      writeFileSync(file, JSON.stringify(second));
      child.kill('SIGHUP');
      await signal.until(
        () => /symbol version 1 -> 2/.test(out) || undefined,
        limitMs,
        () => `reloaded: ${out}`,
      );
      assert.equal(await client.readPlcSymbolVersion(), 2);
      assert.equal((await client.readValue('MAIN.nLevel')).value, 7);
    } finally {
      await client?.disconnect();
      child.kill('SIGTERM');
    }
    assert.equal(await exited, 0, out);
  });
});
