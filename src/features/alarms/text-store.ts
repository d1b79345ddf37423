// The newest texts of a kind, as UTF-8 bytes, a chunk of them to a buffer. An alarm journal keeps thousands of
// entries per PLC that live for minutes (and a replica keeps every PLC's): as heap objects, each would be promoted
// to the old generation and walked by every major collection until dropped. A chunk is one buffer outside the heap
// and one array of offsets, whatever it holds.

const chunkItems = 256;
const firstChunkBytes = 16 * 1024;

class Chunk {
  bytes: Buffer;
  /** Where each item's bytes end. */
  readonly ends = new Uint32Array(chunkItems);
  count = 0;

  constructor(bytes: number) {
    this.bytes = Buffer.allocUnsafeSlow(bytes);
  }

  get used(): number {
    return this.count === 0 ? 0 : (this.ends[this.count - 1] as number);
  }

  add(text: string): void {
    const start = this.used;
    const end = start + Buffer.byteLength(text);
    if (end > this.bytes.length) {
      const bigger = Buffer.allocUnsafeSlow(Math.max(end, this.bytes.length * 2));
      this.bytes.copy(bigger, 0, 0, start);
      this.bytes = bigger;
    }
    this.bytes.write(text, start);
    this.ends[this.count++] = end;
  }

  text(i: number): string {
    return this.bytes.toString('utf8', i === 0 ? 0 : this.ends[i - 1], this.ends[i]);
  }
}

/** The newest `capacity` texts pushed, kept as bytes. */
export class TextStore {
  readonly #capacity: number;
  #chunks: Chunk[] = [];
  /** Items at the start of the first chunk that were dropped. */
  #dropped = 0;
  #length = 0;

  constructor(capacity: number) {
    this.#capacity = capacity;
  }

  get length(): number {
    return this.#length;
  }

  /** Whether the next push drops the oldest text. */
  get full(): boolean {
    return this.#length === this.#capacity;
  }

  push(text: string): void {
    let last = this.#chunks.at(-1);
    if (last === undefined || last.count === chunkItems) {
      // Sized as the chunk before it ended up: entries of one PLC are alike.
      last = new Chunk(last?.used ?? firstChunkBytes);
      this.#chunks.push(last);
    }
    last.add(text);
    if (this.#length < this.#capacity) this.#length++;
    else if (++this.#dropped === chunkItems) {
      this.#chunks.shift();
      this.#dropped = 0;
    }
  }

  at(i: number): string {
    const j = this.#dropped + i;
    return (this.#chunks[Math.floor(j / chunkItems)] as Chunk).text(j % chunkItems);
  }

  clear(): void {
    this.#chunks = [];
    this.#dropped = 0;
    this.#length = 0;
  }
}
