// Splits sum commands into batches bounded by sub-command count and bytes, as TwinCAT routers require.
import type { Client } from 'ads-client';

export interface BatchLimits {
  /** Sub-commands per sum command. */
  maxCount: number;
  /** Bytes per sum command (an item larger than this travels alone). */
  maxBytes: number;
}

/** About 500 sub-commands and 512 KiB per request keep well inside what a TwinCAT router accepts. */
export const defaultBatchLimits: BatchLimits = { maxCount: 500, maxBytes: 512 * 1024 };

/** Consecutive batches in input order; `bytesOf` is what one item adds to the request or answer. */
export function toBatches<T>(items: readonly T[], bytesOf: (item: T) => number, limits: BatchLimits): T[][] {
  const batches: T[][] = [];
  let current: T[] = [];
  let bytes = 0;
  for (const item of items) {
    const size = bytesOf(item);
    if (current.length > 0 && (current.length >= limits.maxCount || bytes + size > limits.maxBytes)) {
      batches.push(current);
      current = [];
      bytes = 0;
    }
    current.push(item);
    bytes += size;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

/**
 * A sum command sent as consecutive batches of at most `limits`: `bytesOf` is what one item adds, `send` sends a
 * batch, and `answer` makes one answer per item in input order (undefined for an item the PLC's reply left out).
 */
export function batchedSumCommand<T, A, R>(
  bytesOf: (item: T) => number,
  send: (client: Client, batch: T[]) => Promise<readonly A[]>,
  answer: (result: A | undefined) => R,
): (client: Client, items: readonly T[], limits: BatchLimits) => Promise<R[]> {
  return async (client, items, limits) => {
    const out: R[] = [];
    for (const batch of toBatches(items, bytesOf, limits)) {
      const results = await send(client, batch);
      batch.forEach((_, i) => out.push(answer(results[i])));
    }
    return out;
  };
}
