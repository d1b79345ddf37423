// The delivery window: changes of separate PLC notifications (separate ADS packets, separate PLCs) that arrive
// within one window reach their clients together when it closes, and nothing sent past the window (a link state, an unsubscribe's
// answer) overtakes a change gathered before it. The window is held open by hand, so nothing here waits on time.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { changeEvent, deliveryWindowMs } from '../../../src/features/notifications/delivery-batch.ts';
import { NotificationService } from '../../../src/features/notifications/service.ts';
import { CallSink, handWindow, NotifyingTarget } from './hand-driven.ts';

async function subscribed(
  service: NotificationService,
  target: NotifyingTarget,
  paths: string[],
): Promise<{ sink: CallSink; session: ReturnType<NotificationService['open']> }> {
  const sink = new CallSink();
  const session = service.open(target, sink);
  await session.subscribe(paths);
  return { sink, session };
}

describe('notification delivery window', () => {
  it('writes each change as the JSON of { symbol, value, type, timestamp }, whatever the value', () => {
    const values = [1.5, -0, true, null, 'say "hi"\n', [1, [2, 3]], { a: { b: [true] }, 'c"d': 'x' }];
    for (const [i, value] of values.entries()) {
      for (const timestamp of [new Date(Date.UTC(2026, 10, 26, 12, 0, 0, i)), new Date(i)]) {
        const event = changeEvent('GVL."odd" path', { value, typeName: 'T', timestamp });
        assert.equal(event.name, 'change');
        assert.equal(
          event.data,
          JSON.stringify({ symbol: 'GVL."odd" path', value, type: 'T', timestamp: timestamp.toISOString() }),
        );
      }
    }
  });

  it('is a tenth of the notification cycle, at most 10 ms, and none below a 10 ms cycle', () => {
    assert.equal(deliveryWindowMs(100), 10);
    assert.equal(deliveryWindowMs(50), 5);
    assert.equal(deliveryWindowMs(1000), 10);
    assert.equal(deliveryWindowMs(10), 1);
    assert.equal(deliveryWindowMs(9), 0);
    assert.equal(deliveryWindowMs(1), 0);
  });

  it('holds the changes of separate notifications and PLCs until the window closes, then delivers them at once', async () => {
    const window = handWindow();
    const service = new NotificationService({
      bounds: {
        defaultCycleMs: 100,
        minCycleMs: 10,
        maxCycleMs: 60_000,
        maxResendIntervalMs: 3_600_000,
        minResendIntervalMs: 100,
        cycleLadder: [10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000, 20_000, 50_000, 60_000],
      },
      maxSymbols: 10,
      now: Date.now,
      schedule: window.schedule,
    });
    const line1 = new NotifyingTarget('line1');
    const line2 = new NotifyingTarget('line2');
    const a = await subscribed(service, line1, ['MAIN.nA', 'MAIN.nB']);
    const b = await subscribed(service, line1, ['MAIN.nA', 'MAIN.nB']);
    const c = await subscribed(service, line2, ['MAIN.nA']);
    for (const s of [a, b, c]) s.sink.calls.length = 0;

    line1.change('MAIN.nA', 1);
    await new Promise((r) => setImmediate(r));
    line2.change('MAIN.nA', 2);
    await new Promise((r) => setImmediate(r));
    line1.change('MAIN.nB', 3);
    // Nothing goes out while the window is open: the three packets wait for it.
    assert.ok(window.open());
    assert.deepEqual(
      [a, b, c].map((s) => s.sink.calls.length),
      [0, 0, 0],
    );
    // All of them in the one task that closes the window, so each client's stream writes them at once.
    window.close();
    assert.deepEqual(a.sink.shapes().flat(), ['change MAIN.nA=1', 'change MAIN.nB=3']);
    assert.deepEqual(b.sink.shapes().flat(), ['change MAIN.nA=1', 'change MAIN.nB=3']);
    assert.deepEqual(c.sink.shapes(), [['change MAIN.nA=2']]);
    // The window a 100 ms cycle gets.
    assert.ok(window.windows.every((ms) => ms === 10));
    await service.close();
  });

  it('delivers gathered changes before a link state and before an unsubscribe is answered', async () => {
    const window = handWindow();
    const service = new NotificationService({
      bounds: {
        defaultCycleMs: 100,
        minCycleMs: 10,
        maxCycleMs: 60_000,
        maxResendIntervalMs: 3_600_000,
        minResendIntervalMs: 100,
        cycleLadder: [10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000, 20_000, 50_000, 60_000],
      },
      maxSymbols: 10,
      now: Date.now,
      schedule: window.schedule,
    });
    const plc = new NotifyingTarget('plc1');
    const { sink, session } = await subscribed(service, plc, ['MAIN.nA', 'MAIN.nB']);
    sink.calls.length = 0;

    plc.change('MAIN.nA', 1);
    plc.setConnectionState('Disconnected');
    assert.deepEqual(sink.shapes(), [['change MAIN.nA=1'], ['disconnected']]);
    assert.equal(window.open(), false);

    sink.calls.length = 0;
    plc.change('MAIN.nB', 2);
    assert.deepEqual(await session.unsubscribe(['MAIN.nB']), ['MAIN.nA']);
    assert.deepEqual(sink.shapes(), [['change MAIN.nB=2']]);
    await service.close();
  });
});
