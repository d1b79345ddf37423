// ADS target lifecycle and races: closing during a connection attempt, backing off from a PLC that drops
// every connection, a failed file write on the PLC, and joining a notification whose creation fails.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppError } from '../../../src/errors.ts';
import type { ConnectionState } from '../../../src/targets/target.ts';
import { EventLog } from '../../contract/events.ts';
import { FaultProxy, fastTuning, makeTarget, silentServer, startPlant, startConnected } from './harness.ts';

const FileWrite = 123;
const FileRename = 132;

describe('ADS target: lifecycle and races', () => {
  it('close() during a connection attempt returns at once instead of waiting for its timeouts', async () => {
    const silent = await silentServer();
    // Each attempt against a silent peer takes two request timeouts (20 minutes here) before it gives up,
    // so close() returning at all shows it does not wait for them.
    const target = makeTarget(silent.port, { TimeoutMs: 600_000 });
    try {
      await target.start();
      assert.equal(target.connectionState(), 'Connecting');
      await target.close();
      assert.equal(target.connectionState(), 'Disconnected');
    } finally {
      await target.close();
      await silent.close();
    }
  });

  it('a PLC that drops every connection right after it is made is retried with growing delays', async () => {
    const plant = await startPlant();
    const proxy = new FaultProxy(plant.port);
    // The gateway's clock stands still: however long a loaded machine takes to drop a connection, no connection
    // counts as one that held, so the delays keep growing.
    const target = makeTarget(await proxy.listen(), {}, { ...fastTuning, random: () => 1, now: () => 0 });
    const gaps: number[] = [];
    let lostAt = 0;
    let connects = 0;
    let done: () => void = () => undefined;
    const sixConnects = new Promise<void>((resolve) => {
      done = resolve;
    });
    const off = target.onConnectionState((s: ConnectionState) => {
      if (s === 'Connected') {
        if (++connects === 6) done();
        else proxy.dropAll();
      } else if (s === 'Disconnected') lostAt = Date.now();
      else if (s === 'Connecting' && lostAt > 0) gaps.push(Date.now() - lostAt);
    });
    try {
      await target.start();
      await sixConnects;
      // base 20 ms doubling to the 200 ms cap (jitter pinned to its top): 20, 40, 80, 160, 200.
      assert.equal(gaps.length, 5);
      assert.ok((gaps[3] ?? 0) >= 150 && (gaps[4] ?? 0) >= 190, `gaps ${gaps.join(', ')}`);
    } finally {
      off();
      await target.close();
      await proxy.close();
      await plant.stop();
    }
  });

  it('a file write that fails on the PLC leaves no temporary file behind', async () => {
    const plant = await startPlant();
    const proxy = new FaultProxy(plant.port);
    const target = makeTarget(await proxy.listen());
    try {
      await startConnected(target);
      await plant.plc.files.write('recipes/r0.csv', Buffer.from('v0'));
      // The first write of a connection goes to a temporary name; its FWRITE fails.
      proxy.fault = ({ command, indexGroup }) =>
        command === 9 && indexGroup === FileWrite ? 1792 : undefined;
      await assert.rejects(target.files.write('recipes/r1.csv', Buffer.from('v1')), (e: unknown) => {
        assert.ok(e instanceof AppError && e.code === 'ADS_ERROR', String(e));
        assert.match(e.message, /1792/);
        return true;
      });
      proxy.fault = undefined;
      const names = (await plant.plc.files.list('recipes')).map((f) => f.name);
      assert.deepEqual(names, ['r0.csv']);
    } finally {
      await target.close();
      await proxy.close();
      await plant.stop();
    }
  });

  it('an overwrite goes through FRENAME, so a write that fails leaves the old content whole', async () => {
    const plant = await startPlant();
    const proxy = new FaultProxy(plant.port);
    const target = makeTarget(await proxy.listen());
    const groups: number[] = [];
    try {
      await startConnected(target);
      await target.files.write('recipes/r0.csv', Buffer.from('first version'));
      proxy.fault = ({ command, indexGroup }) => {
        if (command === 9) groups.push(indexGroup);
        return undefined;
      };
      await target.files.write('recipes/r0.csv', Buffer.from('second version'));
      assert.ok(groups.includes(FileRename), `FRENAME used: ${groups.join(',')}`);
      proxy.fault = ({ command, indexGroup }) =>
        command === 9 && indexGroup === FileWrite ? 1792 : undefined;
      await assert.rejects(target.files.write('recipes/r0.csv', Buffer.from('third')), /1792/);
      proxy.fault = undefined;
      assert.equal((await plant.plc.files.read('recipes/r0.csv')).toString(), 'second version');
      assert.deepEqual(
        (await plant.plc.files.list('recipes')).map((f) => f.name),
        ['r0.csv'],
      );
    } finally {
      await target.close();
      await proxy.close();
      await plant.stop();
    }
  });

  it('a subscriber joining a notification whose creation fails is not left on a dead entry', async () => {
    const plant = await startPlant();
    const proxy = new FaultProxy(plant.port);
    const target = makeTarget(await proxy.listen());
    try {
      await startConnected(target);
      await target.symbols();
      // The first subscriber's AddNotification gets no answer; the second joins while it is on its way.
      proxy.mode = 'mute';
      const logs = [new EventLog(), new EventLog()];
      const results = await Promise.allSettled(
        logs.map((log) =>
          target.subscribe('MAIN.nA', { cycleTimeMs: 10, onChange: log.onChange, onError: log.onError }),
        ),
      );
      assert.equal(results[0]?.status, 'rejected');
      proxy.mode = 'pass';
      // A fresh connection: whatever subscribe() accepted must be restored on it.
      const reconnected = new Promise<void>((resolve) => {
        const off = target.onConnectionState((s) => {
          if (s !== 'Connected') return;
          off();
          resolve();
        });
      });
      proxy.dropAll();
      await reconnected;
      plant.plc.write('MAIN.nA', 42);
      for (const [i, r] of results.entries()) {
        if (r.status !== 'fulfilled') continue;
        const log = logs[i];
        assert.ok(log);
        await log.next((e) => e.value === 42, 0, 3000);
      }
    } finally {
      await target.close();
      await proxy.close();
      await plant.stop();
    }
  });
});
