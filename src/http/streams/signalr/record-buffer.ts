// What a hub connection has received but not yet parsed: complete records come out, the unfinished rest is held
// up to a bound, and only the bytes that just arrived are scanned for the separator, so a client that never ends
// a record costs memory up to the bound and time linear in what it sent, never a rescan of all it sent before.

const separator = 0x1e;

export type Received = { readonly records: string[] } | { readonly overflow: number };

export class RecordBuffer {
  readonly #maxBytes: number;
  #pending: Buffer[] = [];
  #pendingBytes = 0;

  /** `maxBytes`: the most an unfinished record may hold (Hubs:MaxUnparsedBytes). */
  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  /** Bytes held without a separator after them. */
  get pendingBytes(): number {
    return this.#pendingBytes;
  }

  /**
   * The records `data` completes, in order; or `overflow` (the bytes that would be held) when the unfinished rest
   * would pass the bound: the caller closes the connection and nothing of this message is parsed.
   */
  push(data: Buffer): Received {
    const records: string[] = [];
    let start = 0;
    for (let end = data.indexOf(separator); end >= 0; end = data.indexOf(separator, start)) {
      const piece = data.subarray(start, end);
      if (this.#pending.length === 0) records.push(piece.toString('utf8'));
      else {
        this.#pending.push(piece);
        records.push(Buffer.concat(this.#pending, this.#pendingBytes + piece.length).toString('utf8'));
        this.#pending = [];
        this.#pendingBytes = 0;
      }
      start = end + 1;
    }
    const rest = data.length - start;
    if (rest > 0) {
      const held = this.#pendingBytes + rest;
      if (held > this.#maxBytes) return { overflow: held };
      // A copy when the rest is the tail of a larger message: the whole message is not kept alive for it.
      this.#pending.push(start === 0 ? data : Buffer.from(data.subarray(start)));
      this.#pendingBytes = held;
    }
    return { records };
  }
}
