// Splits sum commands into batches bounded by sub-command count and bytes, as TwinCAT routers require.

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
 * Sends `items` as consecutive sum commands of at most `limits`; one answer per item in input order (`answer`
 * gets undefined for an item the PLC's reply left out).
 */
export async function sendInBatches<T, A, R>(
  items: readonly T[],
  bytesOf: (item: T) => number,
  limits: BatchLimits,
  send: (batch: T[]) => Promise<readonly A[]>,
  answer: (result: A | undefined) => R,
): Promise<R[]> {
  const out: R[] = [];
  for (const batch of toBatches(items, bytesOf, limits)) {
    const results = await send(batch);
    batch.forEach((_, i) => out.push(answer(results[i])));
  }
  return out;
}
