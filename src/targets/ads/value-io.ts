// Reading and writing values by address: single requests, and sum commands split into bounded batches.
import type { Client } from 'ads-client';
import { AppError } from '../../errors.ts';
import { decode, type IncrementalDecoder, type PlcType, type PlcValue } from '../../plc/index.ts';
import { adsError } from './ads-errors.ts';
import { toBatches, type BatchLimits } from './batches.ts';
import type { SymbolAddress } from './symbol-table.ts';

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
  decoder?: IncrementalDecoder,
): PlcValue {
  if (data.length < type.size) {
    throw new AppError(
      'ADS_ERROR',
      `${path}: the PLC answered ${data.length} bytes, the type ${type.name} needs ${type.size}.`,
    );
  }
  return decoder ? decoder.decode(type, data) : decode(type, data, 0);
}

export async function readRaw(client: Client, a: SymbolAddress): Promise<Buffer> {
  return client.readRaw(a.indexGroup, a.indexOffset, a.size);
}

export async function writeRaw(client: Client, a: SymbolAddress, bytes: Buffer): Promise<void> {
  await client.writeRaw(a.indexGroup, a.indexOffset, bytes);
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

/** Writes many prepared values with sum commands (0xF081); per-item ADS codes (0 = written) in order. */
export async function writeMany(
  client: Client,
  items: ReadonlyArray<{ address: SymbolAddress; bytes: Buffer }>,
  limits: BatchLimits,
): Promise<number[]> {
  const out: number[] = [];
  for (const batch of toBatches(items, (i) => i.bytes.length + 12, limits)) {
    const results = await client.writeRawMulti(
      batch.map((i) => ({
        indexGroup: i.address.indexGroup,
        indexOffset: i.address.indexOffset,
        value: i.bytes,
      })),
    );
    batch.forEach((_, k) => {
      const r = results[k];
      out.push(r?.success ? 0 : (r?.errorCode ?? 1792));
    });
  }
  return out;
}

/** The per-path error of a failed sub-command, in batch answer form. */
export function itemError(code: number, path: string): { code: string; message: string } {
  const err = adsError(code, path);
  return { code: err.code, message: code === 1808 ? `Symbol '${path}' not found.` : err.message };
}
