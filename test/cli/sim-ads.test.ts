// `plc-gateway sim-ads` for real: serves a scenario or a settings-file PLC over ADS to ads-client.
import assert from 'node:assert/strict';
import { createSocket } from 'node:dgram';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { Client } from 'ads-client';
import { runCli } from '../../src/main.ts';
import { minimalSettings, writeSettings } from '../config/helpers.ts';
import { capture } from './capture.ts';

async function withSimAds(
  args: string[],
  body: (client: Client, out: () => string) => Promise<void>,
): Promise<void> {
  const controller = new AbortController();
  let listening: (url: string) => void = () => undefined;
  const ready = new Promise<string>((r) => (listening = r));
  const c = capture({ signal: controller.signal, onListening: (url) => listening(url), cwd: process.cwd() });
  const udp = args.includes('--no-udp') ? [] : ['--udp-port', '0'];
  const exit = runCli(['sim-ads', ...args, '--port', '0', ...udp], c.io);
  const url = await Promise.race([ready, exit.then((code) => `exit ${code}: ${c.err()}`)]);
  const port = Number(/^tcp:\/\/127\.0\.0\.1:(\d+)$/.exec(url)?.[1]);
  assert.ok(port > 0, url);
  const client = new Client({
    targetAmsNetId: '127.0.0.1.1.1',
    targetAdsPort: 851,
    routerTcpPort: port,
    autoReconnect: false,
    hideConsoleWarnings: true,
  });
  await client.connect();
  try {
    await body(client, () => c.out());
  } finally {
    await client.disconnect();
    controller.abort();
    assert.equal(await exit, 0);
  }
}

describe('plc-gateway sim-ads', () => {
  it('serves a scenario: gvl-hmi/1 symbols, moving axes and the acknowledge RPC', async () => {
    await withSimAds(['--scenario', resolve('examples/scenarios/small')], async (client, out) => {
      assert.match(out(), /ADS server listening on 127\.0\.0\.1:\d+, AMS NetId 127\.0\.0\.1\.1\.1/);
      const header = (await client.readValue<{ sContract: string; nAxisCount: number }>('GVL_HMI.stHeader'))
        .value;
      assert.equal(header.sContract, 'gvl-hmi/1');
      assert.equal(header.nAxisCount, 3);
      const positions: number[] = [];
      const moved = new Promise<void>((done) => {
        void client.subscribeValue<number>(
          'GVL_HMI.aAxes[1].rPosition',
          (d) => {
            positions.push(d.value);
            if (positions.length >= 2) done();
          },
          50,
        );
      });
      await moved;
      assert.ok(
        (positions[1] ?? 0) > (positions[0] ?? 0),
        `x moves toward its target: ${positions.join(',')}`,
      );
      const ack = await client.invokeRpcMethod('GVL_HMI.fbAlarms', 'AcknowledgeAlarm', { sKey: 'none' });
      assert.equal(ack.returnValue, false);
    });
  });

  it('serves a Simulated target of a settings file', async () => {
    const file = writeSettings({
      ...minimalSettings,
      PlcTargets: {
        line1: { Mode: 'Simulated', InitialValues: { 'MAIN.nSpeed': { value: 1500, type: 'DINT' } } },
      },
    });
    await withSimAds(['--config', file, '--plc', 'line1'], async (client) => {
      assert.equal((await client.readValue('MAIN.nSpeed')).value, 1500);
      await client.writeValue('MAIN.nSpeed', 42);
      assert.equal((await client.readValue('MAIN.nSpeed')).value, 42);
    });
  });

  it('serves --file-root behind the file services with --config, as with --scenario', async () => {
    const root = mkdtempSync(join(tmpdir(), 'plc-gateway-files-'));
    mkdirSync(join(root, 'recipes'));
    writeFileSync(join(root, 'recipes', 'r1.csv'), 'a;b\n1;2\n');
    const file = writeSettings({ ...minimalSettings, PlcTargets: { line1: { Mode: 'Simulated' } } });
    await withSimAds(['--config', file, '--plc', 'line1', '--file-root', root], async (client, out) => {
      assert.match(out(), new RegExp(`Files: ${root.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&')}\\.`));
      const system = { adsPort: 10000 };
      const name = Buffer.from('recipes\\r1.csv\0');
      const handle = (await client.readWriteRaw(120, 0x11, 4, name, system)).readUInt32LE(0);
      const content = await client.readWriteRaw(122, handle, 100, Buffer.alloc(0), system);
      await client.readWriteRaw(121, handle, 0, Buffer.alloc(0), system);
      assert.equal(content.toString(), 'a;b\n1;2\n');
      // Writes land on disk, not in memory.
      const out2 = Buffer.from('recipes\\r2.csv\0');
      const w = (await client.readWriteRaw(120, 0x12, 4, out2, system)).readUInt32LE(0);
      await client.readWriteRaw(123, w, 0, Buffer.from('x;y'), system);
      await client.readWriteRaw(121, w, 0, Buffer.alloc(0), system);
      assert.equal(readFileSync(join(root, 'recipes', 'r2.csv'), 'utf8'), 'x;y');
    });
  });

  it('answers UDP add-route on loopback by default and lists each route added', async () => {
    await withSimAds(
      ['--scenario', resolve('examples/scenarios/small'), '--route-password', '1'],
      async (_c, out) => {
        const port = Number(/UDP discovery and routes on 127\.0\.0\.1:(\d+)/.exec(out())?.[1]);
        assert.ok(port > 0, out());
        const socket = createSocket('udp4');
        try {
          const tag = (id: number, value: Buffer): Buffer => {
            const h = Buffer.alloc(4);
            h.writeUInt16LE(id, 0);
            h.writeUInt16LE(value.length, 2);
            return Buffer.concat([h, value]);
          };
          const head = Buffer.alloc(24);
          head.writeUInt32LE(0x71146603, 0);
          head.writeUInt32LE(6, 8);
          head.writeUInt32LE(3, 20);
          const request = Buffer.concat([
            head,
            tag(12, Buffer.from('laptop\0')),
            tag(7, Buffer.from([10, 1, 1, 5, 1, 1])),
            tag(2, Buffer.from('1\0')),
          ]);
          const answer = await new Promise<Buffer>((done) => {
            socket.once('message', done);
            socket.send(request, port, '127.0.0.1');
          });
          assert.equal(answer.readUInt32LE(28), 0);
          assert.match(out(), /Route added: laptop -> 10\.1\.1\.5\.1\.1/);
        } finally {
          socket.close();
        }
      },
    );
    await withSimAds(['--scenario', resolve('examples/scenarios/small'), '--no-udp'], (_c, out) => {
      assert.match(out(), /UDP discovery and routes: off/);
      return Promise.resolve();
    });
  });

  it('--max-notifications: past the limit per connection AddNotification answers 1814, as TwinCAT does', async () => {
    const file = writeSettings({
      ...minimalSettings,
      PlcTargets: {
        line1: { Mode: 'Simulated', InitialValues: { 'MAIN.nSpeed': { value: 1, type: 'DINT' } } },
      },
    });
    await withSimAds(
      ['--config', file, '--plc', 'line1', '--max-notifications', '4', '--no-udp'],
      async (client, out) => {
        assert.match(out(), /Notifications per ADS connection: at most 4 \(--max-notifications\)/);
        // ads-client holds its own (runtime state, symbol version): they count, as on a PLC.
        const held: unknown[] = [];
        let refused: unknown;
        for (let i = 0; i < 4 && refused === undefined; i++) {
          await client
            .subscribeValue('MAIN.nSpeed', () => undefined, 100)
            .then(
              (sub) => held.push(sub),
              (err: unknown) => (refused = err),
            );
        }
        assert.ok(held.length >= 1 && held.length < 4, `${held.length} accepted before the limit`);
        const code = (refused as { adsError?: { errorCode?: number } } | undefined)?.adsError?.errorCode;
        assert.equal(code, 1814);
      },
    );
  });

  it('rejects a bad command line with exit code 2', async () => {
    const c = capture();
    assert.equal(await runCli(['sim-ads'], c.io), 2);
    assert.match(c.err(), /either --scenario DIR or --config FILE --plc ID/);
    assert.equal(await runCli(['sim-ads', '--scenario', 'x', '--net-id', '1.2.3'], c.io), 2);
    assert.equal(await runCli(['sim-ads', '--scenario', 'x', '--max-notifications', '0'], c.io), 2);
    assert.match(c.err(), /--max-notifications must be 1-1000000 \(got '0'\)/);
    const bad = capture();
    assert.equal(await runCli(['sim-ads', '--scenario', resolve('does-not-exist')], bad.io), 1);
    assert.match(bad.err(), /does not exist/);
  });
});
