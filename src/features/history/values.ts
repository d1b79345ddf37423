// How a PLC value becomes a stored sample and back: numbers as doubles, 64-bit integers exactly, BOOL as 0/1,
// enums as their integers, strings as text. Structs and arrays are not recorded (name their members instead).
import type { PlcValue } from '../../targets/target.ts';
import type { RawRow, StoredSample, ValueKind } from './store/types.ts';

const signed64 = new Set(['LINT', 'LTIME']);
const unsigned64 = new Set(['ULINT', 'LWORD']);
const offset = 1n << 63n;

/** The kind a value of `typeName` is kept as, or undefined when it cannot be recorded (a struct, an array). */
export function kindOf(typeName: string, value: PlcValue): ValueKind | undefined {
  const base = typeName.trim().toUpperCase();
  if (signed64.has(base)) return 'int64';
  if (unsigned64.has(base)) return 'uint64';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'number') return 'number';
  if (typeof value === 'string') return 'string';
  return undefined;
}

/** Whether a sample of this kind is drawn as buckets (numbers) or as its raw changes. */
export const isNumeric = (kind: ValueKind): boolean =>
  kind === 'number' || kind === 'int64' || kind === 'uint64';

/** The stored form of `value`, or undefined when it does not fit the series' kind (skipped). */
export function encode(
  series: number,
  t: number,
  kind: ValueKind,
  value: PlcValue,
): StoredSample | undefined {
  switch (kind) {
    case 'number':
      return typeof value === 'number' && Number.isFinite(value)
        ? { series, t, num: value, int: null, txt: null }
        : undefined;
    case 'bool':
      return typeof value === 'boolean'
        ? { series, t, num: null, int: value ? 1n : 0n, txt: null }
        : undefined;
    case 'string':
      return typeof value === 'string' ? { series, t, num: null, int: null, txt: value } : undefined;
    case 'int64':
    case 'uint64': {
      const int = toBigInt(value);
      if (int === undefined) return undefined;
      return { series, t, num: null, int: kind === 'uint64' ? int - offset : int, txt: null };
    }
  }
}

function toBigInt(value: PlcValue): bigint | undefined {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value);
  if (typeof value !== 'string' || !/^-?\d+$/.test(value)) return undefined;
  return BigInt(value);
}

/** A stored integer of a 64-bit kind as its exact decimal text; other numbers as themselves. */
export function numberOut(kind: ValueKind, v: number | bigint | string): number | string {
  if (kind === 'number') return Number(v);
  const int = BigInt(v);
  return (kind === 'uint64' ? int + offset : int).toString();
}

/** The value of a raw row as a client sees it (64-bit integers as decimal strings, like live reads). */
export function decode(kind: ValueKind, row: Pick<RawRow, 'num' | 'int' | 'txt'>): PlcValue {
  switch (kind) {
    case 'number':
      return row.num;
    case 'bool':
      return row.int === null ? null : BigInt(row.int) !== 0n;
    case 'string':
      return row.txt;
    case 'int64':
    case 'uint64':
      return row.int === null ? null : numberOut(kind, row.int);
  }
}
