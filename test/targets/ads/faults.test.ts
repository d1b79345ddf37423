// Fault survival of the ADS target: server restarts, program downloads, silent and half-answering peers.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Client } from 'ads-client';
import { AppError } from '../../../src/errors.ts';
import { AdsCommand, IndexGroup } from '../../../src/plc/ads/constants.ts';
import { SimulatedPlc } from '../../../src/simulator/engine/index.ts';
import { EventLog } from '../../contract/events.ts';
import type { PlcTarget } from '../../../src/targets/target.ts';
import { FaultProxy, makeTarget, program, reach, startPlant, startConnected } from './harness.ts';

const code = (c: string) => (e: unknown) => {
  assert.ok(e instanceof AppError, `expected AppError ${c}, got ${String(e)}`);
  assert.equal(e.code, c, e.message);
  return true;
};

/** Resolves when `target` next leaves Connected; the limit only ends a hang. */
function leaving(target: PlcTarget, limitMs = 15_000): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(new Error(`target did not leave Connected within ${limitMs} ms`));
    }, limitMs);
    const off = target.onConnectionState((s) => {
      if (s === 'Connected') return;
      clearTimeout(timer);
      off();
      resolve();
    });
  });
}

describe('ADS target: faults', () => {
  it('survives a server restart: Disconnected, PLC_UNAVAILABLE, then Connected with the subscription restored', async () => {
    const plant = await startPlant();
    const target = makeTarget(plant.port);
    try {
      await startConnected(target);
      const log = new EventLog();
      await target.subscribe('MAIN.nA', { cycleTimeMs: 10, onChange: log.onChange, onError: log.onError });
      await log.next((e) => e.value === 1);

      const down = reach(target, 'Disconnected');
      await plant.stop();
      await down;
      await assert.rejects(target.read('MAIN.nA'), code('PLC_UNAVAILABLE'));
      await assert.rejects(target.deviceInfo(), code('PLC_UNAVAILABLE'));

      const seen = log.events.length;
      plant.plc.write('MAIN.nA', 5);
      await plant.restart();
      await reach(target, 'Connected');
      // The restored notification delivers the current value, then keeps flowing.
      await log.next((e) => e.value === 5, seen);
      plant.plc.write('MAIN.nA', 6);
      await log.next((e) => e.value === 6, seen);
      assert.equal((await target.read('MAIN.nA')).value, 6);
      assert.deepEqual(log.errors, []);
    } finally {
      await target.close();
      await plant.stop();
    }
  });

  it('a download that removes a symbol invalidates its subscription and rebinds the others', async () => {
    const plant = await startPlant(new SimulatedPlc(program({ withB: true })));
    const target = makeTarget(plant.port);
    try {
      await startConnected(target);
      const a = new EventLog();
      const b = new EventLog();
      await target.subscribe('MAIN.nA', { cycleTimeMs: 10, onChange: a.onChange, onError: a.onError });
      await target.subscribe('MAIN.nB', { cycleTimeMs: 10, onChange: b.onChange, onError: b.onError });
      await a.next(() => true);
      await b.next(() => true);

      // The new program drops MAIN.nB and moves MAIN.nA (three symbols now come before it).
      plant.plc.load(program({ withB: false, extra: 3 }));
      const error = await b.error();
      assert.deepEqual([error.symbol, error.code], ['MAIN.nB', 'SYMBOL_INVALIDATED']);
      const seen = a.events.length;
      plant.plc.write('MAIN.nA', 77);
      await a.next((e) => e.value === 77, seen);
      assert.deepEqual(a.errors, []);
      await assert.rejects(target.read('MAIN.nB'), code('SYMBOL_NOT_FOUND'));
      assert.equal((await target.read('MAIN.aN2')).value, 2);
    } finally {
      await target.close();
      await plant.stop();
    }
  });

  it('a peer that does not answer yet: start returns, the target keeps Connecting, then connects', async () => {
    const plant = await startPlant();
    const proxy = new FaultProxy(plant.port);
    proxy.mode = 'hold';
    // Each request of the first attempt may wait 10 s for its answer: start() returns long before that.
    const target = makeTarget(await proxy.listen(), { TimeoutMs: 10_000 });
    try {
      await target.start();
      assert.equal(target.connectionState(), 'Connecting');
      await assert.rejects(target.read('MAIN.nA'), code('PLC_UNAVAILABLE'));
      await assert.rejects(
        target.subscribe('MAIN.nA', { cycleTimeMs: 10, onChange: () => undefined }),
        code('PLC_UNAVAILABLE'),
      );
      // The answers come: the attempt start() did not wait for completes on its own connection.
      proxy.release();
      await reach(target, 'Connected');
      assert.equal(proxy.connections, 1, 'start() returned while its first attempt was still waiting');
      assert.equal((await target.read('MAIN.nA')).value, 1);
    } finally {
      await target.close();
      await proxy.close();
      await plant.stop();
    }
    assert.equal(target.connectionState(), 'Disconnected');
  });

  it('a connection that goes silent: ADS_TIMEOUT, then a forced reconnect, then Connected again', async () => {
    const plant = await startPlant();
    const proxy = new FaultProxy(plant.port);
    const target = makeTarget(await proxy.listen());
    try {
      await startConnected(target);
      assert.equal((await target.read('MAIN.nA')).value, 1);
      proxy.mode = 'mute';
      await assert.rejects(target.read('MAIN.nA'), code('ADS_TIMEOUT'));
      // No TCP drop: the connection check notices the silence and forces a reconnect.
      await reach(target, 'Disconnected');
      proxy.mode = 'pass';
      await reach(target, 'Connected');
      assert.equal((await target.read('MAIN.nA')).value, 1);
    } finally {
      await target.close();
      await proxy.close();
      await plant.stop();
    }
  });

  /** A connected target and a second client of the same plant, as an engineer's tool restarting TwinCAT. */
  async function withTool(run: (target: PlcTarget, tool: Client) => Promise<void>): Promise<void> {
    const plant = await startPlant();
    const target = makeTarget(plant.port);
    const tool = new Client({
      targetAmsNetId: '127.0.0.1.1.1',
      targetAdsPort: 851,
      routerAddress: '127.0.0.1',
      routerTcpPort: plant.port,
      autoReconnect: false,
      hideConsoleWarnings: true,
      timeoutDelay: 3000,
    });
    try {
      await tool.connect();
      await startConnected(target);
      await run(target, tool);
    } finally {
      await tool.disconnect(true).catch(() => undefined);
      await target.close();
      await plant.stop();
    }
  }

  it('TwinCAT restarted without dropping the connection: the connection check reconnects', () =>
    withTool(async (target, tool) => {
      const left = leaving(target);
      // The restart index moves while the TCP connection stays up: only the check can notice.
      await tool.restartTcSystem(false);
      await left;
      await reach(target, 'Connected');
      assert.equal((await target.read('MAIN.nA')).value, 1);
    }));

  it('TwinCAT switched to Config: the target leaves Connected until it runs again', () =>
    withTool(async (target, tool) => {
      await tool.setTcSystemToConfig();
      await reach(target, 'Disconnected');
      await tool.setTcSystemToRun(false, { adsPort: 10000 });
      await reach(target, 'Connected');
      assert.equal((await target.read('MAIN.nA')).value, 1);
    }));

  it('a peer closing in the middle of an answer: PLC_UNAVAILABLE at once, then reconnects', async () => {
    const plant = await startPlant();
    const proxy = new FaultProxy(plant.port);
    // A read that waited for its request timeout would fail with ADS_TIMEOUT, not PLC_UNAVAILABLE.
    const target = makeTarget(await proxy.listen(), { TimeoutMs: 5000 });
    try {
      await startConnected(target);
      await target.symbols();
      // The read may fail before the target reports the lost connection: wait for it to leave Connected first.
      const left = leaving(target);
      proxy.cut = (r) => r.command === AdsCommand.Read && r.indexGroup === IndexGroup.PlcMemory;
      await assert.rejects(target.read('MAIN.fSpeed'), code('PLC_UNAVAILABLE'));
      await left;
      await reach(target, 'Connected');
      assert.equal((await target.read('MAIN.fSpeed')).value, 0.5);
    } finally {
      await target.close();
      await proxy.close();
      await plant.stop();
    }
  });
});
