// A small growable little-endian writer for TwinCAT entries (symbol, data type, method, file records).

export class EntryWriter {
  private buf: Buffer;
  private pos = 0;

  constructor(initial = 256) {
    this.buf = Buffer.alloc(initial);
  }

  get length(): number {
    return this.pos;
  }

  private ensure(bytes: number): void {
    if (this.pos + bytes <= this.buf.length) return;
    const next = Buffer.alloc(Math.max(this.buf.length * 2, this.pos + bytes));
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  /** Grows the buffer for `bytes`, lets `write` fill them at the current position, and moves past them. */
  private put(bytes: number, write: (buf: Buffer, at: number) => void): this {
    this.ensure(bytes);
    write(this.buf, this.pos);
    this.pos += bytes;
    return this;
  }

  u8(value: number): this {
    return this.put(1, (buf, at) => buf.writeUInt8(value, at));
  }

  u16(value: number): this {
    return this.put(2, (buf, at) => buf.writeUInt16LE(value, at));
  }

  u32(value: number): this {
    return this.put(4, (buf, at) => buf.writeUInt32LE(value >>> 0, at));
  }

  i32(value: number): this {
    return this.put(4, (buf, at) => buf.writeInt32LE(value, at));
  }

  bytes(data: Uint8Array): this {
    return this.put(data.length, (buf, at) => buf.set(data, at));
  }

  zeros(count: number): this {
    return this.put(count, (buf, at) => buf.fill(0, at, at + count));
  }

  /** Reserves a u32 and returns a function that fills it with the bytes written since (plus `extra`). */
  lengthSlot(extra = 0): () => void {
    const at = this.pos;
    this.u32(0);
    return () => this.buf.writeUInt32LE(this.pos - at + extra, at);
  }

  toBuffer(): Buffer {
    return Buffer.from(this.buf.subarray(0, this.pos));
  }
}

/** Names, types and comments travel as UTF-8 (the upload info announces code page 65001). */
export function text(value: string): Buffer {
  return Buffer.from(value, 'utf8');
}
