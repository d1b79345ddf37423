// ads-client subscriptions: on-change and cyclic, runtime-state notifications, and a program download
// (symbol version change) after which ads-client reloads its caches and resubscribes.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Client } from 'ads-client';
import { buildProgram, startHarness, type Harness } from './fixture.ts';
import { Signal } from '../../helpers/signal.ts';

/** Records values pushed from callbacks; `until` waits (bounded) for the record to satisfy a test. */
function collector<T>() {
  const values: T[] = [];
  const signal = new Signal();
  const shown = () =>
    `match; got ${JSON.stringify(values, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v))}`;
  return {
    values,
    push(value: T): void {
      values.push(value);
      signal.notify();
    },
    async until(test: (values: readonly T[]) => boolean, ms = 3000): Promise<void> {
      await signal.until(() => test(values), ms, shown);
    },
  };
}

describe('ADS server: notifications (ads-client)', () => {
  let h: Harness;
  let client: Client;
  before(async () => {
    h = await startHarness();
    client = await h.connect();
  });
  after(async () => {
    await h.close();
  });

  it('sends the current value, then every change of an on-change subscription', async () => {
    h.plc.write('GVL.nCounter', 1);
    const seen = collector<number>();
    const sub = await client.subscribeValue<number>('GVL.nCounter', (data) => seen.push(data.value), 0);
    await seen.until((v) => v.includes(1));
    h.plc.write('GVL.nCounter', 2);
    await seen.until((v) => v.includes(2));
    h.plc.write('GVL.nCounter', 3);
    await seen.until((v) => v.includes(3));
    assert.deepEqual(seen.values, [1, 2, 3]);
    const stamp = sub.latestData?.timestamp;
    assert.ok(stamp instanceof Date && Math.abs(stamp.getTime() - Date.now()) < 5000);
    await sub.unsubscribe();
    // Left: ads-client's own runtime-state and symbol-version subscriptions.
    assert.equal(h.server.stats().clients.find((c) => c.notifications.active > 0)?.notifications.active, 2);
  });

  it('sends a whole struct on change and honours a cyclic subscription', async () => {
    const axis = collector<{ pos: { x: number } }>();
    const sub = await client.subscribeValue<{ pos: { x: number } }>(
      'MAIN.stAxis',
      (d) => axis.push(d.value),
      0,
    );
    h.plc.write('MAIN.stAxis.pos.x', 42);
    await axis.until((v) => v.some((a) => a.pos.x === 42));
    await sub.unsubscribe();

    const times = collector<number>();
    const from = Date.now();
    const cyclic = await client.subscribe<number>({
      target: 'MAIN.nInt',
      cycleTime: 50,
      sendOnChange: false,
      callback: () => times.push(Date.now()),
    });
    await times.until((v) => v.length >= 5);
    await cyclic.unsubscribe();
    const t = times.values;
    // Cycles run at a fixed rate: after a stall the missed cycles follow each other quickly, so the gap between
    // two samples says nothing. What holds on any machine is that the k-th cycle is never due before k cycles
    // after the subscription: the fifth sample comes at least four cycles after it was made.
    const span = (t[4] ?? 0) - from;
    assert.ok(span >= 4 * 50 * 0.8, `${t.length} cyclic samples within ${span} ms of subscribing`);
  });

  it('reports runtime state changes through the 0xF100 notification', async () => {
    const states = collector<string>();
    client.on('plcRuntimeStateChange', (st) => states.push(st.adsStateStr ?? String(st.adsState)));
    await client.stopPlc();
    assert.equal(h.plc.adsState, 'Stop');
    await client.startPlc();
    assert.equal(h.plc.adsState, 'Run');
    await client.resetPlc();
    assert.equal(h.plc.adsState, 'Stop');
    await client.startPlc();
    await states.until((v) => v.length >= 4);
    assert.deepEqual(states.values.slice(0, 4), ['Stop', 'Run', 'Stop', 'Run']);
    await assert.rejects(
      client.writeControl('Config'),
      (e: { adsError?: { errorCode: number } }) => e.adsError?.errorCode === 1793,
    );
  });

  it('serves many clients at once, each with its own subscription', async () => {
    const clients = await Promise.all(Array.from({ length: 6 }, () => h.connect()));
    const seen = clients.map(() => collector<number>());
    await Promise.all(
      clients.map((c, i) => c.subscribeValue<number>('MAIN.nDint', (d) => seen[i]?.push(d.value), 0)),
    );
    h.plc.write('MAIN.nDint', 31337);
    await Promise.all(seen.map((s) => s.until((v) => v.includes(31337))));
    const ports = new Set(clients.map((c) => c.connection.localAdsPort));
    assert.equal(ports.size, clients.length);
    await Promise.all(clients.map((c) => c.disconnect()));
  });

  it('after a program download, ads-client reloads symbols and its subscription follows the new layout', async () => {
    const counter = collector<number>();
    await client.subscribeValue<number>('GVL.nCounter', (d) => counter.push(d.value), 0);
    const oldOffset = h.plc.resolve('GVL.nCounter').offset;
    const stale = await client.createVariableHandle('GVL.nCounter');
    // ads-client emits this event after it has reloaded its caches and resubscribed.
    const versionChanged = new Promise<number>((resolve) => client.once('plcSymbolVersionChange', resolve));
    h.plc.load(buildProgram((b) => b.symbol('GVL.aPadding', 'ARRAY [0..99] OF LREAL')));
    assert.notEqual(h.plc.resolve('GVL.nCounter').offset, oldOffset);
    assert.equal(await versionChanged, h.plc.symbolVersion);
    h.plc.write('GVL.nCounter', 777);
    await counter.until((v) => v.includes(777));
    assert.equal((await client.readValue('GVL.aPadding[3]')).value, 0);
    // Handles taken before the download are refused with "symbol version invalid".
    await assert.rejects(
      client.readRawByHandle(stale),
      (e: { adsError?: { errorCode: number } }) => e.adsError?.errorCode === 1809,
    );
  });
});
