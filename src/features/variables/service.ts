// Variable reads and writes through the port: one path or a batch of at most 100, per-path errors in batches.
// Values are JSON-safe as the port defines them; the driver validates writes against the PLC type.
import { AppError, isAppError } from '../../errors.ts';
import type { BatchReadItem, PlcTarget, PlcValue } from '../../targets/target.ts';

export const maxBatchPaths = 100;

export interface VariableValue {
  symbol: string;
  value: PlcValue;
  typeName: string;
  /** ISO 8601 UTC: when the value was sampled. */
  timestamp: string;
}

export interface ItemError {
  code: string;
  message: string;
}

export type BatchReadEntry =
  | { symbol: string; value: PlcValue; typeName: string }
  | { symbol: string; value: null; typeName: null; error: ItemError };

export type BatchWriteEntry =
  { symbol: string; written: true } | { symbol: string; written: false; error: ItemError };

export async function readVariable(target: PlcTarget, path: string): Promise<VariableValue> {
  const r = await target.read(path);
  return { symbol: r.symbol, value: r.value, typeName: r.typeName, timestamp: r.timestamp.toISOString() };
}

/** Each distinct path read once, in one request to the PLC; the answer is keyed by the path as given. */
export async function readVariables(
  target: PlcTarget,
  paths: readonly string[],
): Promise<{ values: Record<string, BatchReadEntry> }> {
  checkBatchSize(paths.length);
  const unique = [...new Set(paths)];
  const items = await target.readMany(unique);
  const values = Object.fromEntries(
    unique.map((path, i): [string, BatchReadEntry] => {
      const item = items[i];
      if (item === undefined) return [path, failed(path, missingAnswer)];
      if ('error' in item) return [path, failed(path, item.error)];
      return [path, { symbol: item.symbol, value: item.value, typeName: item.typeName }];
    }),
  );
  return { values };
}

/** A write's answer: the value read back, or (the write having landed) why it could not be read back. */
export type WrittenValue =
  VariableValue | { symbol: string; value: null; typeName: null; timestamp: null; readBackError: ItemError };

/** A write's answer plus the value it replaced, for the audit trail. */
export interface Written<T> {
  result: T;
  /** By path: the value before the write (absent where it could not be read). */
  oldValues: Record<string, PlcValue>;
  /** By path: the value read back after the write, for the paths written and read back. */
  newValues: Record<string, PlcValue>;
}

/**
 * Writes, then answers the value read back: what the PLC holds now, in the same form a read gives. A
 * failed read-back does not fail the write that landed (a 5xx would invite a retry): it is reported beside it.
 */
export async function writeVariable(
  target: PlcTarget,
  path: string,
  value: unknown,
): Promise<Written<WrittenValue>> {
  const oldValues = await valueBefore(target, path);
  await target.write(path, value);
  try {
    const result = await readVariable(target, path);
    return { result, oldValues, newValues: { [path]: result.value } };
  } catch (err) {
    if (!isAppError(err)) throw err;
    const readBackError = { code: err.code, message: err.message };
    return {
      result: { symbol: path, value: null, typeName: null, timestamp: null, readBackError },
      oldValues,
      newValues: {},
    };
  }
}

/** Every path validated by the driver; a bad value fails its own path only. */
export async function writeVariables(
  target: PlcTarget,
  values: Readonly<Record<string, unknown>>,
): Promise<Written<{ results: Record<string, BatchWriteEntry> }>> {
  const entries = Object.entries(values);
  checkBatchSize(entries.length);
  const paths = entries.map(([path]) => path);
  const oldValues = valuesOf(paths, await target.readMany(paths));
  const items = await target.writeMany(entries.map(([symbol, value]) => ({ symbol, value })));
  const results = Object.fromEntries(
    entries.map(([path], i): [string, BatchWriteEntry] => {
      const item = items[i];
      if (item === undefined) return [path, { symbol: path, written: false, error: missingAnswer }];
      if ('error' in item) return [path, { symbol: path, written: false, error: item.error }];
      return [path, { symbol: path, written: true }];
    }),
  );
  const written = paths.filter((path) => results[path]?.written === true);
  const newValues = written.length ? valuesOf(written, await target.readMany(written)) : {};
  return { result: { results }, oldValues, newValues };
}

/** The value a write replaces, for the audit; one that cannot be read does not stop the write (as in batches). */
async function valueBefore(target: PlcTarget, path: string): Promise<Record<string, PlcValue>> {
  try {
    return { [path]: (await target.read(path)).value };
  } catch (err) {
    if (!isAppError(err)) throw err;
    return {};
  }
}

function valuesOf(paths: readonly string[], items: readonly BatchReadItem[]): Record<string, PlcValue> {
  const values: Record<string, PlcValue> = {};
  paths.forEach((path, i) => {
    const item = items[i];
    if (item && !('error' in item)) values[path] = item.value;
  });
  return values;
}

function checkBatchSize(count: number): void {
  if (count === 0) throw new AppError('VALIDATION_ERROR', 'Name at least one symbol.');
  if (count > maxBatchPaths) {
    throw new AppError(
      'BATCH_LIMIT_EXCEEDED',
      `${count} symbols in one batch; at most ${maxBatchPaths} are allowed.`,
    );
  }
}

function failed(path: string, error: ItemError): BatchReadEntry {
  return { symbol: path, value: null, typeName: null, error: { code: error.code, message: error.message } };
}

// A driver that answers fewer items than asked is broken; the path still gets an answer instead of a hole.
const missingAnswer: ItemError = {
  code: 'INTERNAL_ERROR',
  message: 'The PLC gave no answer for this symbol.',
};
