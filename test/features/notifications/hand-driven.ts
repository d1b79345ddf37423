// Hand-driven pieces for the notification service tests: a PLC whose notifications the test raises one by one,
// a sink that keeps each write, and timers (the delivery window, the resends) that run when the test says so.
import type { EventSink, StreamEvent } from '../../../src/http/streams/outbox.ts';
import type { Schedule } from '../../../src/features/notifications/delivery-batch.ts';
import type { BatchReadItem, PlcValue, SubscribeOptions, Subscription } from '../../../src/targets/target.ts';
import { FakeTarget } from '../../helpers/fake-target.ts';

/** A PLC whose notifications the test raises one by one, as separate packets would arrive. */
export class NotifyingTarget extends FakeTarget {
  /** The open subscriptions, with what they were opened with. */
  readonly open = new Set<{ path: string; options: SubscribeOptions }>();
  /** Current values and types, for readMany. */
  readonly values = new Map<string, { value: PlcValue; typeName: string }>();

  // Optional only to match FakeTarget's signature; the notification service always passes it.
  override subscribe(path: string, options?: SubscribeOptions): Promise<Subscription> {
    const entry = { path, options: options ?? { cycleTimeMs: 0, onChange: () => undefined } };
    this.open.add(entry);
    return Promise.resolve({
      symbol: path,
      close: () => {
        this.open.delete(entry);
        return Promise.resolve();
      },
    });
  }

  override readMany(paths: readonly string[]): Promise<BatchReadItem[]> {
    return Promise.resolve(
      paths.map((symbol) => {
        const v = this.values.get(symbol);
        if (v === undefined)
          return { symbol, error: { code: 'SYMBOL_NOT_FOUND', message: 'No such symbol.' } };
        return { symbol, value: v.value, typeName: v.typeName, timestamp: new Date(0) };
      }),
    );
  }

  /** Every subscription of `path` notifies `value`. */
  change(path: string, value: PlcValue, typeName = 'DINT'): void {
    this.values.set(path, { value, typeName });
    for (const s of [...this.open]) {
      if (s.path === path) s.options.onChange({ symbol: path, value, typeName, timestamp: new Date(0) });
    }
  }
}

/** A sink that keeps each call: one entry per write the stream would make. */
export class CallSink implements EventSink {
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
export function handWindow(): {
  schedule: Schedule;
  open: () => boolean;
  close: () => void;
  windows: number[];
} {
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

/** Timers the test fires: each pending one with the delay it asked for. */
export function handTimers(): {
  schedule: Schedule;
  pending: Array<{ ms: number; run: () => void }>;
  fire: () => void;
} {
  const pending: Array<{ ms: number; run: () => void; live: boolean }> = [];
  return {
    pending,
    schedule: (run, ms) => {
      const t = { ms, run, live: true };
      pending.push(t);
      return () => {
        t.live = false;
        const i = pending.indexOf(t);
        if (i >= 0) pending.splice(i, 1);
      };
    },
    /** Runs every pending timer once (those it arms wait for the next call). */
    fire: () => {
      for (const t of pending.splice(0)) if (t.live) t.run();
    },
  };
}
