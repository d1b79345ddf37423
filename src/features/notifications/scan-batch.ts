// The changes of one scan, delivered together: a PLC scan raises its notifications in one tick, so they are
// gathered, and each run of changes with the same audience (the same clients, in the same spelling each) is
// handed to each of those clients in ONE call. Per client that is one queue push per scan instead of one call
// per change; with hundreds of clients on the same symbols, that is what keeps the fan-out cheap.
import type { StreamEvent } from '../../http/streams/outbox.ts';
import type { ChangeEvent } from '../../targets/target.ts';

/** A client of the shared subscriptions: gets a scan's changes in one call (the array is shared: read only). */
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

/** The `change` event of a symbol, in the spelling its clients used. */
export function changeEvent(
  symbol: string,
  e: Pick<ChangeEvent, 'value' | 'typeName' | 'timestamp'>,
): StreamEvent {
  return {
    name: 'change',
    data: JSON.stringify({ symbol, value: e.value, type: e.typeName, timestamp: e.timestamp.toISOString() }),
  };
}

interface Pending {
  readonly audience: Audience;
  readonly change: ChangeEvent;
}

export class ScanBatch {
  #pending: Pending[] = [];
  #scheduled = false;

  add(audience: Audience, change: ChangeEvent): void {
    if (audience.receivers.length === 0) return;
    this.#pending.push({ audience, change });
    if (this.#scheduled) return;
    this.#scheduled = true;
    queueMicrotask(() => this.flush());
  }

  /** Delivers what was gathered, in order; also called early, so that a later event cannot overtake it. */
  flush(): void {
    this.#scheduled = false;
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
