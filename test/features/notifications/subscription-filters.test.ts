// Per-client deadband and longest interval on a shared subscription, driven by hand: the PLC's notifications,
// the delivery window, the gateway clock and the resend timers all move only when the test says so.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { NotificationService } from '../../../src/features/notifications/service.ts';
import type { SubscriptionOptions } from '../../../src/features/notifications/options.ts';
import { manualClock } from '../../helpers/app.ts';
import { CallSink, handTimers, handWindow, NotifyingTarget } from './hand-driven.ts';

const bounds = {
  defaultCycleMs: 100,
  minCycleMs: 10,
  maxCycleMs: 60_000,
  maxResendIntervalMs: 3_600_000,
  minResendIntervalMs: 100,
  cycleLadder: [10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000, 20_000, 50_000, 60_000],
};
const plain: SubscriptionOptions = { cycleMs: 100, mode: 'on-change', deadband: 0, maxIntervalMs: 0 };

function rig() {
  const window = handWindow();
  const timers = handTimers();
  const clock = manualClock(1_000_000);
  const service = new NotificationService({
    bounds,
    maxSymbols: 10,
    now: clock.now,
    schedule: window.schedule,
    timers: timers.schedule,
  });
  const plc = new NotifyingTarget('plc1');
  plc.values.set('MAIN.fSpeed', { value: 0, typeName: 'LREAL' });
  plc.values.set('MAIN.sName', { value: 'x', typeName: 'STRING(20)' });
  plc.values.set('MAIN.nBig', { value: '0', typeName: 'LINT' });
  const client = async (options: SubscriptionOptions, path = 'MAIN.fSpeed') => {
    const sink = new CallSink();
    const session = service.open(plc, sink);
    await session.subscribe([path], { options, echoOptions: true });
    return {
      sink,
      session,
      values: () =>
        sink
          .shapes()
          .flat()
          .filter((s) => s.startsWith('change')),
    };
  };
  /** The PLC notifies `value`; the window closes. */
  const change = (value: number | string, path = 'MAIN.fSpeed', typeName = 'LREAL') => {
    plc.change(path, value, typeName);
    window.close();
  };
  /** The resend timers due run; the window closes. */
  const fire = () => {
    timers.fire();
    window.close();
  };
  return { service, plc, clock, timers, client, change, fire };
}

describe('per-client deadband and longest interval', () => {
  it('each client gets the changes outside its own deadband, measured from what it was last sent', async () => {
    const r = rig();
    const wide = await r.client({ ...plain, deadband: 1 });
    const narrow = await r.client({ ...plain, deadband: 0.5 });
    const all = await r.client(plain);
    // One target subscription for the three: same symbol, cycle and mode.
    assert.equal(r.plc.open.size, 1);
    for (const v of [0, 0.4, 0.9, 1.2, 1.6, 0.6, 0.59]) r.change(v);
    assert.deepEqual(
      all.values(),
      [0, 0.4, 0.9, 1.2, 1.6, 0.6, 0.59].map((v) => `change MAIN.fSpeed=${v}`),
    );
    // 0.9 - 0 < 1; 1.2 - 0 >= 1; 1.6 - 1.2 < 1; 0.6 - 1.2 < 1 ... exactly 1 away passes (the edge).
    assert.deepEqual(wide.values(), ['change MAIN.fSpeed=0', 'change MAIN.fSpeed=1.2']);
    // 0.4 < 0.5; 0.9 >= 0.5 from 0; 1.2 - 0.9 < 0.5; 1.6 - 0.9 >= 0.5; 0.6 - 1.6 >= 0.5; 0.59 - 0.6 < 0.5.
    assert.deepEqual(narrow.values(), [
      'change MAIN.fSpeed=0',
      'change MAIN.fSpeed=0.9',
      'change MAIN.fSpeed=1.6',
      'change MAIN.fSpeed=0.6',
    ]);
    r.change(2.2);
    assert.deepEqual(wide.values().at(-1), 'change MAIN.fSpeed=2.2');
    await r.service.close();
  });

  it('a change of exactly the deadband is sent, one just below is not', async () => {
    const r = rig();
    const c = await r.client({ ...plain, deadband: 2 });
    for (const v of [10, 11.999, 12, 10.001, 10]) r.change(v);
    assert.deepEqual(c.values(), ['change MAIN.fSpeed=10', 'change MAIN.fSpeed=12', 'change MAIN.fSpeed=10']);
    await r.service.close();
  });

  it('64-bit integers (decimal text) take a deadband too', async () => {
    const r = rig();
    const c = await r.client({ ...plain, deadband: 10 }, 'MAIN.nBig');
    for (const v of ['0', '9', '10', '15']) r.change(v, 'MAIN.nBig', 'LINT');
    assert.deepEqual(c.values(), ['change MAIN.nBig=0', 'change MAIN.nBig=10']);
    await r.service.close();
  });

  it('a deadband on a symbol that is not numeric is 400 DEADBAND_NOT_NUMERIC and subscribes nothing', async () => {
    const r = rig();
    const sink = new CallSink();
    const session = r.service.open(r.plc, sink);
    await assert.rejects(
      session.subscribe(['MAIN.fSpeed', 'MAIN.sName'], { options: { ...plain, deadband: 1 } }),
      (err: Error & { code?: string }) =>
        err.code === 'DEADBAND_NOT_NUMERIC' && /MAIN\.sName/.test(err.message),
    );
    assert.deepEqual(session.symbols(), []);
    assert.equal(r.plc.open.size, 0);
    assert.deepEqual(sink.calls, []);
    await r.service.close();
  });

  it('maxIntervalMs: the current value again once the interval passed without a send, not a moment before', async () => {
    const r = rig();
    const c = await r.client({ ...plain, maxIntervalMs: 1000 });
    const other = await r.client(plain);
    r.change(5);
    assert.deepEqual(c.values(), ['change MAIN.fSpeed=5']);
    assert.deepEqual(
      r.timers.pending.map((t) => t.ms),
      [1000],
    );
    // A timer that fires early (interval - 1) sends nothing and waits for the rest.
    r.clock.advance(999);
    r.fire();
    assert.deepEqual(c.values(), ['change MAIN.fSpeed=5']);
    assert.deepEqual(
      r.timers.pending.map((t) => t.ms),
      [1],
    );
    r.clock.advance(1);
    r.fire();
    // Resent, stamped with the gateway time of the resend; the other client gets nothing.
    const resent = c.sink.calls.flat().at(-1);
    assert.equal(resent?.name, 'change');
    assert.deepEqual(JSON.parse(resent?.data ?? '{}'), {
      symbol: 'MAIN.fSpeed',
      value: 5,
      type: 'LREAL',
      timestamp: new Date(1_001_000).toISOString(),
    });
    assert.deepEqual(other.values(), ['change MAIN.fSpeed=5']);
    // A change in between moves the next resend: due an interval after the last send.
    r.clock.advance(400);
    r.change(6);
    r.clock.advance(600);
    r.fire();
    assert.deepEqual(c.values().slice(2), ['change MAIN.fSpeed=6']);
    assert.deepEqual(
      r.timers.pending.map((t) => t.ms),
      [400],
    );
    r.clock.advance(400);
    r.fire();
    assert.deepEqual(c.values().slice(2), ['change MAIN.fSpeed=6', 'change MAIN.fSpeed=6']);
    // Unsubscribed: no timer left behind.
    await c.session.unsubscribe(['MAIN.fSpeed']);
    assert.deepEqual(r.timers.pending, []);
    await r.service.close();
  });

  it('with a deadband and a longest interval, a value held back by the deadband is the one resent', async () => {
    const r = rig();
    const c = await r.client({ ...plain, deadband: 1, maxIntervalMs: 500 });
    r.change(1);
    r.change(1.5);
    assert.deepEqual(c.values(), ['change MAIN.fSpeed=1']);
    r.clock.advance(500);
    r.fire();
    assert.deepEqual(c.values(), ['change MAIN.fSpeed=1', 'change MAIN.fSpeed=1.5']);
    await r.service.close();
  });

  it('no resend while the PLC is down; after the reconnect the fresh value passes any deadband', async () => {
    const r = rig();
    const c = await r.client({ ...plain, deadband: 100, maxIntervalMs: 1000 });
    r.change(1);
    r.plc.setConnectionState('Disconnected');
    r.clock.advance(1000);
    r.fire();
    assert.deepEqual(c.values(), ['change MAIN.fSpeed=1']);
    assert.deepEqual(
      r.timers.pending.map((t) => t.ms),
      [1000],
    );
    r.plc.setConnectionState('Connected');
    r.change(1.5);
    assert.deepEqual(c.values(), ['change MAIN.fSpeed=1', 'change MAIN.fSpeed=1.5']);
    await r.service.close();
  });

  it('subscribing a held symbol with other options moves it to them: one hold, the old subscription released', async () => {
    const r = rig();
    const c = await r.client(plain);
    assert.equal(r.plc.open.size, 1);
    await c.session.subscribe(['main.fspeed'], { options: { ...plain, cycleMs: 500 }, echoOptions: true });
    assert.deepEqual(c.session.symbols(), ['main.fspeed']);
    assert.deepEqual(
      [...r.plc.open].map((s) => s.options.cycleTimeMs),
      [500],
    );
    const confirmed = c.sink.calls
      .flat()
      .filter((e) => e.name === 'subscribed')
      .at(-1);
    assert.deepEqual(JSON.parse(confirmed?.data ?? '{}'), {
      symbols: ['main.fspeed'],
      options: { cycleMs: 500, mode: 'on-change', deadband: 0, maxIntervalMs: 0 },
    });
    await r.service.close();
  });
});
