// The changes of every PLC that arrive within one delivery window, delivered together. A PLC samples each
// notification on its own phase, so one scan's changes reach the gateway in many small ADS packets, and each
// PLC sends its own; delivering per packet would cost every client a write per packet. Gathered for a tenth of
// the notification cycle (at most 10 ms, well inside the cycle's own sampling delay), they are delivered in one
// task, so each client's stream writes its changes of the window at once; each run of changes with the same
// audience (the same clients, in the same spelling each) is handed to each of those clients in ONE call.
import type { StreamEvent } from '../../http/streams/outbox.ts';
import type { ChangeEvent } from '../../targets/target.ts';

/** A client of the shared subscriptions: gets a window's changes in one call (the array is shared: read only). */
export interface ChangeReceiver {
  /** Unique among receivers, for telling audiences apart. */
  readonly receiverId: number;
  receive(events: readonly StreamEvent[]): void;
}

/** Who gets a symbol's changes. */
export interface Audience {
  /** The receivers' ids, sorted: two audiences with the same key have the same receivers. */
  readonly key: string;
  readonly receivers: readonly ChangeReceiver[];
  /** The spelling of the path every receiver used; one per receiver when they differ. */
  readonly spelling: string | readonly string[];
}

export function audienceOf(
  members: Iterable<{ readonly client: ChangeReceiver; readonly path: string }>,
): Audience {
  const sorted = [...members].sort((a, b) => a.client.receiverId - b.client.receiverId);
  const receivers = sorted.map((m) => m.client);
  const spellings = sorted.map((m) => m.path);
  const first = spellings[0] ?? '';
  const uniform = spellings.every((s) => s === first);
  return {
    key: receivers.map((r) => r.receiverId).join(','),
    receivers,
    spelling: uniform ? first : spellings,
  };
}

/**
 * The `change` event of a symbol, in the spelling its clients used: `{ symbol, value, type, timestamp }`, built
 * by hand because it is made for every change. The samples of one notification share their PLC timestamp, so
 * its ISO text (as dear as the rest of the event) is made once per notification, not once per change.
 */
export function changeEvent(
  symbol: string,
  e: Pick<ChangeEvent, 'value' | 'typeName' | 'timestamp'>,
): StreamEvent {
  const data =
    `{"symbol":${JSON.stringify(symbol)},"value":${JSON.stringify(e.value)},` +
    `"type":${JSON.stringify(e.typeName)},"timestamp":"${isoText(e.timestamp)}"}`;
  return { name: 'change', data };
}

let isoTime = NaN;
let isoLast = '';

function isoText(d: Date): string {
  const t = d.getTime();
  if (t !== isoTime) {
    isoLast = d.toISOString();
    isoTime = t;
  }
  return isoLast;
}

interface Pending {
  readonly audience: Audience;
  readonly change: ChangeEvent;
}

/** Runs `run` after `ms` (0: at the end of the current task); returns a cancel. */
export type Schedule = (run: () => void, ms: number) => () => void;

/** Real timers, unref'd. */
export const timers: Schedule = (run, ms) => {
  if (ms <= 0) {
    let live = true;
    queueMicrotask(() => {
      if (live) run();
    });
    return () => (live = false);
  }
  const timer = setTimeout(run, ms);
  // Pending changes must not hold a closing process open.
  timer.unref();
  return () => clearTimeout(timer);
};

/** A tenth of the notification cycle, at most 10 ms; below a 10 ms cycle, changes go out in the same task. */
export function deliveryWindowMs(cycleTimeMs: number): number {
  return Math.min(10, Math.floor(cycleTimeMs / 10));
}

export class DeliveryBatch {
  readonly #windowMs: number;
  readonly #schedule: Schedule;
  #pending: Pending[] = [];
  #cancel: (() => void) | undefined;

  constructor(windowMs: number, schedule: Schedule = timers) {
    this.#windowMs = windowMs;
    this.#schedule = schedule;
  }

  add(audience: Audience, change: ChangeEvent): void {
    if (audience.receivers.length === 0) return;
    this.#pending.push({ audience, change });
    this.#cancel ??= this.#schedule(() => {
      this.#cancel = undefined;
      this.flush();
    }, this.#windowMs);
  }

  /**
   * Delivers what was gathered, in order; also called early, so that an event sent past the batch (an error, a
   * link state) or an unsubscribe's answer cannot overtake a change gathered before it.
   */
  flush(): void {
    this.#cancel?.();
    this.#cancel = undefined;
    const pending = this.#pending;
    if (pending.length === 0) return;
    this.#pending = [];
    for (let i = 0; i < pending.length;) {
      const { audience, change } = pending[i] as Pending;
      const spelling = audience.spelling;
      if (typeof spelling !== 'string') {
        deliverBySpelling(audience.receivers, spelling, change);
        i += 1;
        continue;
      }
      // Each change serialised once, the whole run shared by every receiver.
      const events: StreamEvent[] = [changeEvent(spelling, change)];
      let j = i + 1;
      for (; j < pending.length; j++) {
        const next = pending[j] as Pending;
        const a = next.audience;
        if (typeof a.spelling !== 'string' || (a !== audience && a.key !== audience.key)) break;
        events.push(changeEvent(a.spelling, next.change));
      }
      for (const r of audience.receivers) r.receive(events);
      i = j;
    }
  }
}

/** Clients spelled the path differently (rare): serialised once per spelling. */
function deliverBySpelling(
  receivers: readonly ChangeReceiver[],
  spellings: readonly string[],
  change: ChangeEvent,
): void {
  const bySpelling = new Map<string, StreamEvent[]>();
  receivers.forEach((r, k) => {
    const spelling = spellings[k] as string;
    let events = bySpelling.get(spelling);
    if (events === undefined) {
      events = [changeEvent(spelling, change)];
      bySpelling.set(spelling, events);
    }
    r.receive(events);
  });
}
