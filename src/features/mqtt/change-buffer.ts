// Store-and-forward: what could not be published while the broker was out of reach, oldest first, bounded by
// `Mqtt.BufferSize`. When full the oldest change makes room (the newest values matter most to a live plant);
// every change dropped is counted.
export class ChangeBuffer<T> {
  readonly #capacity: number;
  #items: T[] = [];
  #head = 0;
  dropped = 0;

  constructor(capacity: number) {
    this.#capacity = capacity;
  }

  get size(): number {
    return this.#items.length - this.#head;
  }

  /** Adds at the end; answers true when an older change was dropped to make room. */
  push(item: T): boolean {
    this.#items.push(item);
    if (this.size <= this.#capacity) return false;
    this.#head += 1;
    this.dropped += 1;
    // Compacted now and then, so a long outage does not keep the dropped prefix alive.
    if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
    return true;
  }

  /** Everything held, oldest first; the buffer is empty afterwards. */
  drain(): T[] {
    const out = this.#head === 0 ? this.#items : this.#items.slice(this.#head);
    this.#items = [];
    this.#head = 0;
    return out;
  }
}
