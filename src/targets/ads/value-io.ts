// Reading and writing values by address: single requests, and sum commands split into bounded batches.
import type { Client } from 'ads-client';
import { AppError } from '../../errors.ts';
import { decode, type IncrementalDecoder, type PlcType, type PlcValue } from '../../plc/index.ts';
import { adsError, AdsCodeError } from './ads-errors.ts';
import { batchedSumCommand, type BatchLimits } from './batches.ts';
import type { SymbolAddress } from './symbol-table.ts';
import type { ByteRange } from './write-ranges.ts';
import { checkDecodable } from './undecodable.ts';
import { fromPlcClock, type PlcClock } from '../plc-clock.ts';

/** One sub-command's outcome: the bytes read, or the ADS code it failed with. */
export type RawResult = { ok: true; data: Buffer } | { ok: false; code: number };

/**
 * Decodes a value; a PLC answering fewer bytes than the type needs is an ADS error, not garbage. With the
 * `decoder` of a subscription, only what changed since its last reading is decoded (`data` is kept by it).
 */
export function decodeValue(
  type: PlcType,
  data: Buffer,
  path: string,
  clock: PlcClock,
  decoder?: IncrementalDecoder,
): PlcValue {
  checkDecodable(type, path);
  if (data.length < type.size) {
    throw new AppError(
      'ADS_ERROR',
      `${path}: the PLC answered ${data.length} bytes, the type ${type.name} needs ${type.size}.`,
    );
  }
  return fromPlcClock(type, decoder ? decoder.decode(type, data) : decode(type, data, 0), clock);
}

export async function readRaw(client: Client, a: SymbolAddress): Promise<Buffer> {
  return client.readRaw(a.indexGroup, a.indexOffset, a.size);
}

/** One write request for one range; one sum write for several (never a read-merge-write). */
export async function writeAll(
  client: Client,
  writes: readonly RawWrite[],
  limits: BatchLimits,
): Promise<void> {
  const [only] = writes;
  if (writes.length === 1 && only) {
    await client.writeRaw(only.indexGroup, only.indexOffset, only.value);
    return;
  }
  const codes = await writeMany(client, writes, limits);
  const failed = codes.find((c) => c !== 0);
  if (failed !== undefined) throw new AdsCodeError(failed);
}

/** Reads many addresses with sum commands (0xF080); results in input order. */
export const readMany = batchedSumCommand(
  (a: SymbolAddress) => a.size + 16,
  (client, batch) => client.readRawMulti(batch),
  (r): RawResult =>
    r?.success && r.value ? { ok: true, data: r.value } : { ok: false, code: r?.errorCode ?? 1792 },
);

/** Bytes for one place on the PLC (ads-client's shape of a sum-write item). */
export interface RawWrite {
  indexGroup: number;
  indexOffset: number;
  value: Buffer;
}

/** Writes with sum commands (0xF081); per-write ADS codes (0 = written) in input order. */
export const writeMany = batchedSumCommand(
  (w: RawWrite) => w.value.length + 12,
  (client, batch) => client.writeRawMulti(batch),
  (r) => (r?.success ? 0 : (r?.errorCode ?? 1792)),
);

/** The byte ranges of a value as writes at its address. */
export function rangeWrites(a: SymbolAddress, ranges: readonly ByteRange[]): RawWrite[] {
  return ranges.map((r) => ({
    indexGroup: a.indexGroup,
    indexOffset: a.indexOffset + r.offset,
    value: r.bytes,
  }));
}

/** The per-path error of a failed sub-command, in batch answer form. */
export function itemError(code: number, path: string): { code: string; message: string } {
  const err = adsError(code, path);
  return { code: err.code, message: code === 1808 ? `Symbol '${path}' not found.` : err.message };
}
