// A client's bounded event queue: a ring buffer that drops the oldest event when full and remembers how many
// it dropped, so the next event the client reads is a `gap` telling it to re-read.

/** One event on a stream: a name, its data already serialised to JSON, and an optional SSE id. */
export interface StreamEvent {
  readonly name: string;
  /** JSON text, serialised once and shared by every client it is fanned out to. */
  readonly data: string;
  /** A caller-chosen SSE id (a cursor); writers number events themselves when absent. */
  readonly id?: string;
}

/** Where a feature sends a client's events: the SSE writer or a hub connection. */
export interface EventSink {
  send(event: StreamEvent): void;
  /** Several events at once (a PLC scan's changes): queued in order, written together. */
  sendMany(events: readonly StreamEvent[]): void;
}

export const gapEventName = 'gap';

// A client that keeps up never queues more than a scan's worth: the ring starts this small and grows on demand.
const initialSlots = 64;

export class Outbox {
  #items: Array<StreamEvent | undefined>;
  #head = 0;
  #size = 0;
  /** Dropped since the client last read; reported by the next shift() as a gap event. */
  #unreported = 0;

  constructor(readonly capacity: number) {
    this.#items = new Array<StreamEvent | undefined>(Math.min(capacity, initialSlots));
  }

  get size(): number {
    return this.#size + (this.#unreported > 0 ? 1 : 0);
  }

  /** Queues the event; answers 1 when the oldest queued event had to be dropped for it, else 0. */
  push(event: StreamEvent): number {
    const slots = this.#items.length;
    if (this.#size === this.capacity) {
      this.#items[(this.#head + this.#size) % slots] = event;
      this.#head = (this.#head + 1) % slots;
      this.#unreported += 1;
      return 1;
    }
    if (this.#size === slots) this.#grow();
    this.#items[(this.#head + this.#size) % this.#items.length] = event;
    this.#size += 1;
    return 0;
  }

  /** The next event to deliver: a gap `{ dropped }` first when events were dropped since the last read. */
  shift(): StreamEvent | undefined {
    if (this.#unreported > 0) {
      const dropped = this.#unreported;
      this.#unreported = 0;
      return { name: gapEventName, data: `{"dropped":${dropped}}` };
    }
    if (this.#size === 0) return undefined;
    const event = this.#items[this.#head];
    this.#items[this.#head] = undefined;
    this.#head = (this.#head + 1) % this.#items.length;
    this.#size -= 1;
    return event;
  }

  clear(): void {
    this.#items = new Array<StreamEvent | undefined>(Math.min(this.capacity, initialSlots));
    this.#head = 0;
    this.#size = 0;
    this.#unreported = 0;
  }

  /** Doubles the ring (up to capacity), oldest event first. */
  #grow(): void {
    const old = this.#items;
    const items = new Array<StreamEvent | undefined>(Math.min(this.capacity, old.length * 2));
    for (let i = 0; i < this.#size; i++) items[i] = old[(this.#head + i) % old.length];
    this.#items = items;
    this.#head = 0;
  }
}
