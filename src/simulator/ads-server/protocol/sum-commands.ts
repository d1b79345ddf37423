// Sum commands (0xF080 read, 0xF081 write, 0xF082 read-write): many sub-commands in one ReadWrite.

import { readAddress } from './commands.ts';
import { AdsError, AdsErrorCode } from '../../../plc/ads/index.ts';

export interface SumReadItem {
  indexGroup: number;
  indexOffset: number;
  length: number;
}

export interface SumWriteItem {
  indexGroup: number;
  indexOffset: number;
  data: Buffer;
}

export interface SumReadWriteItem {
  indexGroup: number;
  indexOffset: number;
  readLength: number;
  data: Buffer;
}

/** Outcome of one sub-command: an ADS result code and the bytes it read (empty for writes and errors). */
export interface SumResult {
  error: number;
  data: Buffer;
}

function checkCount(count: number, max: number): void {
  if (count === 0 || count > max) {
    throw new AdsError(
      AdsErrorCode.InvalidData,
      `A sum command carries 1 to ${max} sub-commands, got ${count}`,
    );
  }
}

function sizeError(what: string): AdsError {
  return new AdsError(
    AdsErrorCode.InvalidSize,
    `${what}: the sub-command table does not match the data length`,
  );
}

export function decodeSumRead(count: number, data: Buffer, max: number): SumReadItem[] {
  checkCount(count, max);
  if (data.length !== count * 12) throw sizeError('Sum read');
  const items: SumReadItem[] = [];
  for (let i = 0; i < count; i++) {
    const p = i * 12;
    items.push({
      ...readAddress(data, p),
      length: data.readUInt32LE(p + 8),
    });
  }
  return items;
}

/**
 * The sub-commands of a sum request whose headers (`stride` bytes each, a u32 data length at `lengthAt`) are
 * followed by their data in the same order; the data must fill the request exactly.
 */
function decodeWithData<T>(
  count: number,
  data: Buffer,
  max: number,
  layout: { stride: number; lengthAt: number; what: string },
  item: (header: number, payload: Buffer) => T,
): T[] {
  const { stride, lengthAt, what } = layout;
  checkCount(count, max);
  if (data.length < count * stride) throw sizeError(what);
  const items: T[] = [];
  let pos = count * stride;
  for (let i = 0; i < count; i++) {
    const p = i * stride;
    const length = data.readUInt32LE(p + lengthAt);
    if (pos + length > data.length) throw sizeError(what);
    items.push(item(p, data.subarray(pos, pos + length)));
    pos += length;
  }
  if (pos !== data.length) throw sizeError(what);
  return items;
}

export function decodeSumWrite(count: number, data: Buffer, max: number): SumWriteItem[] {
  return decodeWithData(count, data, max, { stride: 12, lengthAt: 8, what: 'Sum write' }, (p, payload) => ({
    ...readAddress(data, p),
    data: payload,
  }));
}

export function decodeSumReadWrite(count: number, data: Buffer, max: number): SumReadWriteItem[] {
  return decodeWithData(
    count,
    data,
    max,
    { stride: 16, lengthAt: 12, what: 'Sum read-write' },
    (p, payload) => ({ ...readAddress(data, p), readLength: data.readUInt32LE(p + 8), data: payload }),
  );
}

/** Error codes first, then every sub-command's `length` bytes (zero-filled when it failed). */
export function encodeSumReadResponse(items: readonly SumReadItem[], results: readonly SumResult[]): Buffer {
  const total = items.reduce((sum, item) => sum + 4 + item.length, 0);
  const out = Buffer.alloc(total);
  let pos = items.length * 4;
  items.forEach((item, i) => {
    const result = results[i] ?? { error: AdsErrorCode.DeviceError, data: Buffer.alloc(0) };
    out.writeUInt32LE(result.error >>> 0, i * 4);
    if (result.error === 0) result.data.copy(out, pos, 0, Math.min(item.length, result.data.length));
    pos += item.length;
  });
  return out;
}

export function encodeSumWriteResponse(results: readonly SumResult[]): Buffer {
  const out = Buffer.alloc(results.length * 4);
  results.forEach((r, i) => out.writeUInt32LE(r.error >>> 0, i * 4));
  return out;
}

/** Per sub-command { error, length } first, then each one's data of that length. */
export function encodeSumReadWriteResponse(results: readonly SumResult[]): Buffer {
  const dataBytes = results.reduce((sum, r) => sum + (r.error === 0 ? r.data.length : 0), 0);
  const out = Buffer.alloc(results.length * 8 + dataBytes);
  let pos = results.length * 8;
  results.forEach((r, i) => {
    const length = r.error === 0 ? r.data.length : 0;
    out.writeUInt32LE(r.error >>> 0, i * 8);
    out.writeUInt32LE(length, i * 8 + 4);
    if (length > 0) r.data.copy(out, pos);
    pos += length;
  });
  return out;
}
