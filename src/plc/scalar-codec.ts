// Encoding and decoding of elementary values (integers, floats, times, dates) between JSON and PLC bytes.
import { AppError } from '../errors.ts';
import type { PlcValue, PrimitiveName } from './types.ts';

type IntName = 'SINT' | 'USINT' | 'BYTE' | 'INT' | 'UINT' | 'WORD' | 'DINT' | 'UDINT' | 'DWORD';

const intRanges: Readonly<Record<IntName, readonly [number, number]>> = {
  SINT: [-128, 127],
  USINT: [0, 255],
  BYTE: [0, 255],
  INT: [-32768, 32767],
  UINT: [0, 65535],
  WORD: [0, 65535],
  DINT: [-2147483648, 2147483647],
  UDINT: [0, 4294967295],
  DWORD: [0, 4294967295],
};

/** How each integer type of at most 32 bits sits in the buffer, little-endian; decode and encode share it. */
interface IntCell {
  read(buf: Buffer, o: number): number;
  write(buf: Buffer, value: number, o: number): void;
}
const u8: IntCell = { read: (b, o) => b.readUInt8(o), write: (b, v, o) => void b.writeUInt8(v, o) };
const u16: IntCell = { read: (b, o) => b.readUInt16LE(o), write: (b, v, o) => void b.writeUInt16LE(v, o) };
const u32: IntCell = { read: (b, o) => b.readUInt32LE(o), write: (b, v, o) => void b.writeUInt32LE(v, o) };
const intCells: Readonly<Record<IntName, IntCell>> = {
  SINT: { read: (b, o) => b.readInt8(o), write: (b, v, o) => void b.writeInt8(v, o) },
  USINT: u8,
  BYTE: u8,
  INT: { read: (b, o) => b.readInt16LE(o), write: (b, v, o) => void b.writeInt16LE(v, o) },
  UINT: u16,
  WORD: u16,
  DINT: { read: (b, o) => b.readInt32LE(o), write: (b, v, o) => void b.writeInt32LE(v, o) },
  UDINT: u32,
  DWORD: u32,
};
const isIntName = (name: PrimitiveName): name is IntName => Object.hasOwn(intCells, name);

/** Integer ranges of the base types an enum may use: the integer types of at most 32 bits. */
export const enumBaseRanges: Readonly<Partial<Record<PrimitiveName, readonly [number, number]>>> = intRanges;

const bigRanges = {
  LINT: [-(2n ** 63n), 2n ** 63n - 1n],
  ULINT: [0n, 2n ** 64n - 1n],
  LWORD: [0n, 2n ** 64n - 1n],
  LTIME: [0n, 2n ** 64n - 1n],
} as const;

const msPerDay = 86_400_000;
const maxU32 = 4294967295;

export function mismatch(path: string, why: string): AppError {
  return new AppError('TYPE_MISMATCH', `${path}: ${why}.`);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string')
    return `string ${JSON.stringify(value.length > 40 ? value.slice(0, 40) + '…' : value)}`;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') {
    return `${typeof value} ${String(value)}`;
  }
  return typeof value;
}
export { describe as describeValue };

export function decodePrimitive(name: PrimitiveName, buf: Buffer, o: number): PlcValue {
  if (isIntName(name)) return intCells[name].read(buf, o);
  switch (name) {
    case 'BOOL':
      return buf[o] !== 0;
    case 'TIME':
    case 'TOD':
      return buf.readUInt32LE(o);
    case 'LINT':
      return buf.readBigInt64LE(o).toString();
    case 'ULINT':
    case 'LWORD':
    case 'LTIME':
      return buf.readBigUInt64LE(o).toString();
    case 'REAL':
      return buf.readFloatLE(o);
    case 'LREAL':
      return buf.readDoubleLE(o);
    case 'DATE':
    case 'DT':
      return new Date(buf.readUInt32LE(o) * 1000).toISOString();
  }
}

export function encodePrimitive(
  name: PrimitiveName,
  value: unknown,
  path: string,
  buf: Buffer,
  o: number,
): void {
  if (isIntName(name)) return intCells[name].write(buf, integer(name, value, path), o);
  switch (name) {
    case 'BOOL':
      if (typeof value !== 'boolean')
        throw mismatch(path, `expected a boolean for BOOL, got ${describe(value)}`);
      buf[o] = value ? 1 : 0;
      return;
    case 'LINT':
      buf.writeBigInt64LE(bigInteger(name, value, path), o);
      return;
    case 'ULINT':
    case 'LWORD':
    case 'LTIME':
      buf.writeBigUInt64LE(bigInteger(name, value, path), o);
      return;
    case 'REAL': {
      const v = float(name, value, path);
      // Accepts what rounds to a float (3.4028235e38, as C# and Java print the maximum), not what overflows.
      if (!Number.isFinite(Math.fround(v))) {
        throw mismatch(path, `${v} is outside the REAL range`);
      }
      buf.writeFloatLE(v, o);
      return;
    }
    case 'LREAL':
      buf.writeDoubleLE(float(name, value, path), o);
      return;
    case 'TIME':
    case 'TOD': {
      if (typeof value !== 'number' || !Number.isInteger(value)) {
        throw mismatch(path, `expected integer milliseconds for ${name}, got ${describe(value)}`);
      }
      const limit = name === 'TOD' ? msPerDay - 1 : maxU32;
      if (value < 0 || value > limit) throw mismatch(path, `${value} ms is outside ${name} (0..${limit})`);
      buf.writeUInt32LE(value, o);
      return;
    }
    case 'DATE':
    case 'DT':
      buf.writeUInt32LE(dateSeconds(name, value, path), o);
      return;
  }
}

function integer(name: IntName, value: unknown, path: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    throw mismatch(path, `expected an integer for ${name}, got ${describe(value)}`);
  }
  const [min, max] = intRanges[name];
  if (value < min || value > max) throw mismatch(path, `${value} is outside ${name} (${min}..${max})`);
  return value;
}

function bigInteger(name: keyof typeof bigRanges, value: unknown, path: string): bigint {
  let v: bigint;
  if (typeof value === 'bigint') v = value;
  else if (typeof value === 'number' && Number.isSafeInteger(value)) v = BigInt(value);
  else if (typeof value === 'string' && /^-?\d{1,25}$/.test(value.trim())) v = BigInt(value.trim());
  else {
    const unit = name === 'LTIME' ? ' nanoseconds' : '';
    throw mismatch(
      path,
      `expected a decimal string or safe integer${unit} for ${name}, got ${describe(value)}`,
    );
  }
  const [min, max] = bigRanges[name];
  if (v < min || v > max) throw mismatch(path, `${v} is outside ${name} (${min}..${max})`);
  return v;
}

function float(name: string, value: unknown, path: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw mismatch(path, `expected a finite number for ${name}, got ${describe(value)}`);
  }
  return value;
}

const isoPattern =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|z|[+-]\d{2}:?\d{2})?)?$/;

/** Seconds since 1970 of an ISO 8601 string; DATE must be midnight UTC, DT whole seconds. */
function dateSeconds(name: 'DATE' | 'DT', value: unknown, path: string): number {
  if (typeof value !== 'string')
    throw mismatch(path, `expected an ISO 8601 string for ${name}, got ${describe(value)}`);
  const m = isoPattern.exec(value.trim());
  if (!m) throw mismatch(path, `'${value}' is not an ISO 8601 date${name === 'DT' ? '-time' : ''}`);
  const [y, mo, d, h, mi, s] = [m[1], m[2], m[3], m[4], m[5], m[6]].map((x) => Number(x ?? 0)) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const fraction = m[7] ?? '';
  let ms = Date.UTC(y, mo - 1, d, h, mi, s);
  const check = new Date(ms);
  if (check.getUTCMonth() !== mo - 1 || check.getUTCDate() !== d || h > 23 || mi > 59 || s > 59) {
    throw mismatch(path, `'${value}' is not a valid date`);
  }
  const zone = m[8];
  if (zone && zone.toUpperCase() !== 'Z') {
    const sign = zone.startsWith('-') ? -1 : 1;
    const digits = zone.slice(1).replace(':', '');
    ms -= sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2))) * 60_000;
  }
  if (/[1-9]/.test(fraction)) throw mismatch(path, `${name} has a resolution of one second`);
  if (name === 'DATE' && ms % msPerDay !== 0)
    throw mismatch(path, `a DATE must be midnight UTC, got '${value}'`);
  const seconds = ms / 1000;
  if (seconds < 0 || seconds > maxU32)
    throw mismatch(path, `'${value}' is outside the ${name} range (1970..2106)`);
  return seconds;
}
