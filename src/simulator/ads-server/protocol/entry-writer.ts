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

  u8(value: number): this {
    this.ensure(1);
    this.buf.writeUInt8(value, this.pos);
    this.pos += 1;
    return this;
  }

  u16(value: number): this {
    this.ensure(2);
    this.buf.writeUInt16LE(value, this.pos);
    this.pos += 2;
    return this;
  }

  u32(value: number): this {
    this.ensure(4);
    this.buf.writeUInt32LE(value >>> 0, this.pos);
    this.pos += 4;
    return this;
  }

  i32(value: number): this {
    this.ensure(4);
    this.buf.writeInt32LE(value, this.pos);
    this.pos += 4;
    return this;
  }

  bytes(data: Uint8Array): this {
    this.ensure(data.length);
    this.buf.set(data, this.pos);
    this.pos += data.length;
    return this;
  }

  zeros(count: number): this {
    this.ensure(count);
    this.buf.fill(0, this.pos, this.pos + count);
    this.pos += count;
    return this;
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
