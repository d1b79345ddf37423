// The value codec: PLC bytes <-> JSON-safe values for every PlcType, validating writes against the type.
import { cp1252Byte, decodeCp1252 } from './cp1252.ts';
import { arrayStrides, findMember } from './memory-layout.ts';
import { decodePrimitive, describeValue, encodePrimitive, enumBaseRanges, mismatch } from './scalar-codec.ts';
import type { ArrayType, EnumType, PlcType, PlcValue, StringType, StructType } from './types.ts';

/**
 * Called for an enum value written as an integer that names no member: a PLC stores it (it fits the base
 * type), so it is written, and the caller decides how to report it.
 */
export type NonMemberSink = (path: string, value: number, type: EnumType) => void;

/** Reads a value of `type` at `offset`. Enums read as their integer, member or not (as a PLC holds them). */
export function decode(type: PlcType, buf: Buffer, offset: number): PlcValue {
  switch (type.kind) {
    case 'primitive':
      return decodePrimitive(type.name, buf, offset);
    case 'string':
      return type.wide
        ? decodeWide(buf, offset, type.length)
        : decodeCp1252(buf, offset, offset + type.length);
    case 'enum':
      return decodePrimitive(type.base, buf, offset);
    case 'struct': {
      const out: { [member: string]: PlcValue } = {};
      for (const m of type.members) out[m.name] = decode(m.type, buf, offset + m.offset);
      return out;
    }
    case 'array':
      return decodeArray(type, arrayStrides(type), 0, buf, offset);
  }
}

/** Encodes into a fresh zeroed buffer of `type.size` bytes (members a partial object omits stay zero). */
export function encode(type: PlcType, value: unknown, path: string, onNonMember?: NonMemberSink): Buffer {
  return encodeOver(type, Buffer.alloc(type.size), value, path, onNonMember);
}

/** Encodes over a copy of the current bytes: struct members the value omits keep their current value. */
export function encodeOver(
  type: PlcType,
  current: Buffer,
  value: unknown,
  path: string,
  onNonMember?: NonMemberSink,
): Buffer {
  const buf = Buffer.from(current.subarray(0, type.size));
  encodeInto(type, value, path, buf, 0, onNonMember);
  return buf;
}

/**
 * Writes `value` into `buf` at `offset`, throwing TYPE_MISMATCH (naming the path and the reason) on the
 * first violation. The target may be partly written when it throws: encode into a scratch copy.
 */
export function encodeInto(
  type: PlcType,
  value: unknown,
  path: string,
  buf: Buffer,
  offset: number,
  onNonMember?: NonMemberSink,
): void {
  switch (type.kind) {
    case 'primitive':
      encodePrimitive(type.name, value, path, buf, offset);
      return;
    case 'string':
      encodeString(type, value, path, buf, offset);
      return;
    case 'enum':
      encodePrimitive(type.base, enumValue(type, value, path, onNonMember), path, buf, offset);
      return;
    case 'struct':
      encodeStruct(type, value, path, buf, offset, onNonMember);
      return;
    case 'array':
      encodeArray(type, arrayStrides(type), 0, value, { path, indices: [] }, buf, offset, onNonMember);
      return;
  }
}

function decodeWide(buf: Buffer, offset: number, length: number): string {
  let end = offset;
  const limit = offset + length * 2;
  while (end < limit && buf.readUInt16LE(end) !== 0) end += 2;
  return buf.toString('utf16le', offset, end);
}

function decodeArray(
  type: ArrayType,
  strides: number[],
  dim: number,
  buf: Buffer,
  offset: number,
): PlcValue[] {
  const d = type.dimensions[dim];
  const stride = strides[dim] ?? type.element.size;
  const out: PlcValue[] = [];
  if (!d) return out;
  const last = dim === type.dimensions.length - 1;
  for (let i = 0; i < d.length; i++) {
    const at = offset + i * stride;
    out.push(last ? decode(type.element, buf, at) : decodeArray(type, strides, dim + 1, buf, at));
  }
  return out;
}

function encodeString(type: StringType, value: unknown, path: string, buf: Buffer, offset: number): void {
  if (typeof value !== 'string')
    throw mismatch(path, `expected a string for ${type.name}, got ${describeValue(value)}`);
  if (value.includes('\0')) throw mismatch(path, 'a string cannot contain NUL characters');
  if (type.wide) {
    if (value.length > type.length) {
      throw mismatch(path, `${value.length} characters do not fit ${type.name}`);
    }
    buf.fill(0, offset, offset + type.size);
    buf.write(value, offset, 'utf16le');
    return;
  }
  const bytes: number[] = [];
  for (const ch of value) {
    const b = cp1252Byte(ch.codePointAt(0) ?? 0);
    if (b === undefined) throw mismatch(path, `character '${ch}' is not in code page 1252 (STRING)`);
    bytes.push(b);
  }
  if (bytes.length > type.length) throw mismatch(path, `${bytes.length} characters do not fit ${type.name}`);
  buf.fill(0, offset, offset + type.size);
  for (let i = 0; i < bytes.length; i++) buf[offset + i] = bytes[i] ?? 0;
}

/**
 * The integer, a member name (case-insensitive), or `{ name }` (also `{ value }`, and `{ name, value }` as
 * clients written for the object form send back). An integer of the base range that is no member is still
 * written, as a PLC allows, and reported to `onNonMember`.
 */
function enumValue(type: EnumType, value: unknown, path: string, onNonMember?: NonMemberSink): number {
  const allowed = (): string => type.members.map((m) => m.name).join(', ');
  let v = value;
  if (typeof v === 'object' && v !== null && !Array.isArray(v)) {
    const o = v as { name?: unknown; value?: unknown };
    v = typeof o.name === 'string' && o.name !== '' ? o.name : o.value;
  }
  if (typeof v === 'string') {
    const key = v.trim().toUpperCase();
    const member = type.members.find((m) => m.name.toUpperCase() === key);
    if (!member) throw mismatch(path, `'${v}' is not a member of ${type.name} (${allowed()})`);
    return member.value;
  }
  if (typeof v === 'number' && Number.isInteger(v)) {
    const range = enumBaseRanges[type.base];
    if (range && (v < range[0] || v > range[1])) {
      throw mismatch(path, `${v} is outside the ${type.base} base of ${type.name}`);
    }
    if (!type.members.some((m) => m.value === v)) onNonMember?.(path, v, type);
    return v;
  }
  throw mismatch(
    path,
    `expected a member name of ${type.name} (${allowed()}) or an integer, got ${describeValue(value)}`,
  );
}

function encodeStruct(
  type: StructType,
  value: unknown,
  path: string,
  buf: Buffer,
  offset: number,
  onNonMember: NonMemberSink | undefined,
): void {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw mismatch(path, `expected an object for ${type.name}, got ${describeValue(value)}`);
  }
  for (const [key, member] of Object.entries(value)) {
    const m = findMember(type, key);
    if (!m) throw mismatch(path, `${type.name} has no member '${key}'`);
    encodeInto(m.type, member, `${path}.${m.name}`, buf, offset + m.offset, onNonMember);
  }
}

function encodeArray(
  type: ArrayType,
  strides: number[],
  dim: number,
  value: unknown,
  where: { path: string; indices: number[] },
  buf: Buffer,
  offset: number,
  onNonMember: NonMemberSink | undefined,
): void {
  const d = type.dimensions[dim];
  if (!d) return;
  const { path, indices } = where;
  const at = indices.length ? `${path}[${indices.join(',')}]` : path;
  if (!Array.isArray(value))
    throw mismatch(at, `expected an array for ${type.name}, got ${describeValue(value)}`);
  if (value.length !== d.length) {
    throw mismatch(at, `expected ${d.length} elements for ${type.name}, got ${value.length}`);
  }
  const stride = strides[dim] ?? type.element.size;
  const last = dim === type.dimensions.length - 1;
  for (let i = 0; i < d.length; i++) {
    const idx = [...indices, d.start + i];
    const item: unknown = value[i];
    const itemOffset = offset + i * stride;
    if (last) encodeInto(type.element, item, `${path}[${idx.join(',')}]`, buf, itemOffset, onNonMember);
    else encodeArray(type, strides, dim + 1, item, { path, indices: idx }, buf, itemOffset, onNonMember);
  }
}
