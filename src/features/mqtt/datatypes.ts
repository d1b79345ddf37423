// IEC 61131-3 types as Sparkplug B datatypes, and PLC values (JSON-safe: 64-bit integers as decimal strings,
// DATE/DT as ISO text) as Sparkplug metric values, 64-bit integers exact.
import type { PlcValue } from '../../targets/target.ts';

export type SparkplugType =
  | 'Int8'
  | 'Int16'
  | 'Int32'
  | 'Int64'
  | 'UInt8'
  | 'UInt16'
  | 'UInt32'
  | 'UInt64'
  | 'Float'
  | 'Double'
  | 'Boolean'
  | 'String'
  | 'DateTime';

const byIecName: Readonly<Record<string, SparkplugType>> = {
  BOOL: 'Boolean',
  SINT: 'Int8',
  INT: 'Int16',
  DINT: 'Int32',
  LINT: 'Int64',
  USINT: 'UInt8',
  BYTE: 'UInt8',
  UINT: 'UInt16',
  WORD: 'UInt16',
  UDINT: 'UInt32',
  DWORD: 'UInt32',
  ULINT: 'UInt64',
  LWORD: 'UInt64',
  REAL: 'Float',
  LREAL: 'Double',
  TIME: 'UInt32',
  TOD: 'UInt32',
  TIME_OF_DAY: 'UInt32',
  LTIME: 'UInt64',
  DATE: 'DateTime',
  DT: 'DateTime',
  DATE_AND_TIME: 'DateTime',
};

/** The datatype of a leaf; an enum (or any other named type) by the value it reads as. */
export function sparkplugTypeOf(typeName: string, sample: PlcValue | undefined): SparkplugType {
  const name = typeName.trim().toUpperCase();
  const known = byIecName[name];
  if (known) return known;
  if (/^W?STRING(\(\d+\))?$/.test(name)) return 'String';
  // Enums read as their integer; a base type is not in the symbol tree, so Int32 holds every base of 32 bits.
  if (typeof sample === 'number') return Number.isInteger(sample) ? 'Int32' : 'Double';
  if (typeof sample === 'boolean') return 'Boolean';
  return 'String';
}

/** A 64-bit integer as protobuf's long bits, so no digit is lost to a double. */
export interface LongBits {
  readonly low: number;
  readonly high: number;
  readonly unsigned: boolean;
}

function longBits(value: PlcValue, unsigned: boolean): LongBits {
  const big = BigInt.asUintN(64, BigInt(typeof value === 'string' || typeof value === 'number' ? value : 0));
  return {
    low: Number(big & 0xffffffffn) | 0,
    high: Number(big >> 32n) | 0,
    unsigned,
  };
}

export type MetricValue = number | boolean | string | LongBits | null;

/** The metric value of a PLC value of `type`; null for what does not fit (the metric is then sent as null). */
export function metricValue(type: SparkplugType, value: PlcValue): MetricValue {
  if (value === null) return null;
  switch (type) {
    case 'Int64':
    case 'UInt64':
      try {
        return longBits(value, type === 'UInt64');
      } catch {
        return null;
      }
    case 'DateTime': {
      const t = typeof value === 'string' ? Date.parse(value) : Number.NaN;
      return Number.isNaN(t) ? null : longBits(t, true);
    }
    case 'Boolean':
      return typeof value === 'boolean' ? value : null;
    case 'String':
      return typeof value === 'string' ? value : JSON.stringify(value);
    default:
      return typeof value === 'number' ? value : null;
  }
}

/** A metric value as the PLC value it stood for (DCMD writes): longs back to decimal text. */
export function plcValueOf(type: SparkplugType, value: unknown): unknown {
  if (value !== null && typeof value === 'object' && 'low' in value && 'high' in value) {
    const bits = value as { low: number; high: number };
    const big = (BigInt(bits.high >>> 0) << 32n) | BigInt(bits.low >>> 0);
    if (type === 'Int64') return BigInt.asIntN(64, big).toString();
    if (type === 'DateTime') return new Date(Number(big)).toISOString();
    return big.toString();
  }
  return value;
}
