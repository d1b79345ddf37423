// The delivery window: changes of separate PLC notifications (separate ADS packets, separate PLCs) that arrive
// within one window reach their clients together when it closes, and nothing sent past the window (a link state, an unsubscribe's
// answer) overtakes a change gathered before it. The window is held open by hand, so nothing here waits on time.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { EventSink, StreamEvent } from '../../../src/http/streams/outbox.ts';
import {
  changeEvent,
  deliveryWindowMs,
  type Schedule,
} from '../../../src/features/notifications/delivery-batch.ts';
import { NotificationService } from '../../../src/features/notifications/service.ts';
import type { ChangeEvent, SubscribeOptions, Subscription } from '../../../src/targets/target.ts';
import { FakeTarget } from '../../helpers/fake-target.ts';

/** A PLC whose notifications the test raises one by one, as separate packets would arrive. */
class NotifyingTarget extends FakeTarget {
  readonly #onChange = new Map<string, (e: ChangeEvent) => void>();

  // Optional only to match FakeTarget's signature; the notification service always passes it.
  override subscribe(path: string, options?: SubscribeOptions): Promise<Subscription> {
    if (options) this.#onChange.set(path, (e) => options.onChange(e));
    return Promise.resolve({
      symbol: path,
      close: () => {
        this.#onChange.delete(path);
        return Promise.resolve();
      },
    });
  }

  change(path: string, value: number): void {
    this.#onChange.get(path)?.({ symbol: path, value, typeName: 'DINT', timestamp: new Date(0) });
  }
}

/** A sink that keeps each call: one entry per write the stream would make. */
class CallSink implements EventSink {
  readonly calls: StreamEvent[][] = [];
  send(event: StreamEvent): void {
    this.calls.push([event]);
  }
  sendMany(events: readonly StreamEvent[]): void {
    this.calls.push([...events]);
  }
  /** What each call carried: `name` or `name symbol=value`. */
  shapes(): string[][] {
    return this.calls.map((c) =>
      c.map((e) => {
        if (e.name !== 'change') return e.name;
        const d = JSON.parse(e.data) as { symbol: string; value: number };
        return `change ${d.symbol}=${d.value}`;
      }),
    );
  }
}

/** A window the test closes. */
function handWindow(): { schedule: Schedule; open: () => boolean; close: () => void; windows: number[] } {
  let pending: (() => void) | undefined;
  const windows: number[] = [];
  return {
    windows,
    schedule: (run, ms) => {
      windows.push(ms);
      pending = run;
      return () => (pending = undefined);
    },
    open: () => pending !== undefined,
    close: () => {
      const run = pending;
      pending = undefined;
      run?.();
    },
  };
}

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
    const service = new NotificationService({ cycleTimeMs: 100, maxSymbols: 10, schedule: window.schedule });
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
    const service = new NotificationService({ cycleTimeMs: 100, maxSymbols: 10, schedule: window.schedule });
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
