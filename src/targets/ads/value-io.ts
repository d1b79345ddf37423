// Reading and writing values by address: single requests, and sum commands split into bounded batches.
import type { Client } from 'ads-client';
import { AppError } from '../../errors.ts';
import { decode, type PlcType, type PlcValue } from '../../plc/index.ts';
import { adsError, AdsCodeError } from './ads-errors.ts';
import { toBatches, type BatchLimits } from './batches.ts';
import type { SymbolAddress } from './symbol-table.ts';
import type { ByteRange } from './write-ranges.ts';
import { checkDecodable } from './undecodable.ts';
import { fromPlcClock, type PlcClock } from '../plc-clock.ts';

/** One sub-command's outcome: the bytes read, or the ADS code it failed with. */
export type RawResult = { ok: true; data: Buffer } | { ok: false; code: number };

/** Decodes a value; a PLC answering fewer bytes than the type needs is an ADS error, not garbage. */
export function decodeValue(type: PlcType, data: Buffer, path: string, clock: PlcClock): PlcValue {
  checkDecodable(type, path);
  if (data.length < type.size) {
    throw new AppError(
      'ADS_ERROR',
      `${path}: the PLC answered ${data.length} bytes, the type ${type.name} needs ${type.size}.`,
    );
  }
  return fromPlcClock(type, decode(type, data, 0), clock);
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
    await client.writeRaw(only.indexGroup, only.indexOffset, only.bytes);
    return;
  }
  const codes = await writeMany(client, writes, limits);
  const failed = codes.find((c) => c !== 0);
  if (failed !== undefined) throw new AdsCodeError(failed);
}

/** Reads many addresses with sum commands (0xF080); results in input order. */
export async function readMany(
  client: Client,
  addresses: readonly SymbolAddress[],
  limits: BatchLimits,
): Promise<RawResult[]> {
  const out: RawResult[] = [];
  const batches = toBatches(addresses, (a) => a.size + 16, limits);
  for (const batch of batches) {
    const results = await client.readRawMulti(
      batch.map((a) => ({ indexGroup: a.indexGroup, indexOffset: a.indexOffset, size: a.size })),
    );
    batch.forEach((_, i) => {
      const r = results[i];
      out.push(
        r?.success && r.value ? { ok: true, data: r.value } : { ok: false, code: r?.errorCode ?? 1792 },
      );
    });
  }
  return out;
}

/** Bytes for one place on the PLC. */
export interface RawWrite {
  indexGroup: number;
  indexOffset: number;
  bytes: Buffer;
}

/** Writes with sum commands (0xF081); per-write ADS codes (0 = written) in input order. */
export async function writeMany(
  client: Client,
  writes: readonly RawWrite[],
  limits: BatchLimits,
): Promise<number[]> {
  const out: number[] = [];
  for (const batch of toBatches(writes, (w) => w.bytes.length + 12, limits)) {
    const results = await client.writeRawMulti(
      batch.map((w) => ({ indexGroup: w.indexGroup, indexOffset: w.indexOffset, value: w.bytes })),
    );
    batch.forEach((_, k) => {
      const r = results[k];
      out.push(r?.success ? 0 : (r?.errorCode ?? 1792));
    });
  }
  return out;
}

/** The byte ranges of a value as writes at its address. */
export function rangeWrites(a: SymbolAddress, ranges: readonly ByteRange[]): RawWrite[] {
  return ranges.map((r) => ({
    indexGroup: a.indexGroup,
    indexOffset: a.indexOffset + r.offset,
    bytes: r.bytes,
  }));
}

/** The per-path error of a failed sub-command, in batch answer form. */
export function itemError(code: number, path: string): { code: string; message: string } {
  const err = adsError(code, path);
  return { code: err.code, message: code === 1808 ? `Symbol '${path}' not found.` : err.message };
}
