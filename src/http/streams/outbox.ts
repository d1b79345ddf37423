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
}

export const gapEventName = 'gap';

export class Outbox {
  readonly #items: Array<StreamEvent | undefined>;
  #head = 0;
  #size = 0;
  /** Dropped since the client last read; reported by the next shift() as a gap event. */
  #unreported = 0;

  constructor(readonly capacity: number) {
    this.#items = new Array<StreamEvent | undefined>(capacity);
  }

  get size(): number {
    return this.#size + (this.#unreported > 0 ? 1 : 0);
  }

  /** Queues the event; answers 1 when the oldest queued event had to be dropped for it, else 0. */
  push(event: StreamEvent): number {
    const capacity = this.capacity;
    if (this.#size === capacity) {
      this.#items[(this.#head + this.#size) % capacity] = event;
      this.#head = (this.#head + 1) % capacity;
      this.#unreported += 1;
      return 1;
    }
    this.#items[(this.#head + this.#size) % capacity] = event;
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
    this.#head = (this.#head + 1) % this.capacity;
    this.#size -= 1;
    return event;
  }

  clear(): void {
    this.#items.fill(undefined);
    this.#head = 0;
    this.#size = 0;
    this.#unreported = 0;
  }
}
