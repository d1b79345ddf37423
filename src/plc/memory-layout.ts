// TwinCAT x64 memory layout: alignment rules and constructors for string, array and struct types.
import { AppError } from '../errors.ts';
import {
  primitiveSizes,
  type ArrayDimension,
  type ArrayType,
  type MethodDef,
  type PlcType,
  type PrimitiveName,
  type PrimitiveType,
  type StringType,
  type StructMember,
  type StructType,
} from './types.ts';

/** TwinCAT's default pack mode on x64: nothing is aligned to more than 8 bytes. */
const maxAlignment = 8;
/** Longest STRING(n) / WSTRING(n) accepted. */
const maxStringLength = 65535;
/** Largest single type or program image, in bytes. */
export const maxTypeSize = 256 * 1024 * 1024;

const primitiveCache = new Map<PrimitiveName, PrimitiveType>();

export function primitiveType(name: PrimitiveName): PrimitiveType {
  let t = primitiveCache.get(name);
  if (!t) {
    t = Object.freeze({ kind: 'primitive', name, size: primitiveSizes[name] });
    primitiveCache.set(name, t);
  }
  return t;
}

export function stringType(length: number, wide = false): StringType {
  if (!Number.isInteger(length) || length < 1 || length > maxStringLength) {
    throw new AppError('VALIDATION_ERROR', `String length ${length} is outside 1..${maxStringLength}.`);
  }
  return Object.freeze({
    kind: 'string',
    name: `${wide ? 'WSTRING' : 'STRING'}(${length})`,
    length,
    wide,
    size: (length + 1) * (wide ? 2 : 1),
  });
}

/** Natural alignment capped at the pack mode; STRING is byte-aligned, WSTRING word-aligned. */
export function alignmentOf(type: PlcType): number {
  switch (type.kind) {
    case 'primitive':
    case 'enum':
      return Math.min(type.size, maxAlignment);
    case 'string':
      return type.wide ? 2 : 1;
    case 'array':
      return alignmentOf(type.element);
    case 'struct': {
      let a = 1;
      for (const m of type.members) a = Math.max(a, alignmentOf(m.type));
      return a;
    }
  }
}

export function alignUp(offset: number, alignment: number): number {
  return Math.ceil(offset / alignment) * alignment;
}

/** `ARRAY [1..16] OF ST_HmiAxis`, multi-dimensional `ARRAY [1..2,0..3] OF INT`. */
function arrayTypeName(dimensions: readonly ArrayDimension[], element: PlcType): string {
  const dims = dimensions.map((d) => `${d.start}..${d.start + d.length - 1}`).join(',');
  return `ARRAY [${dims}] OF ${element.name}`;
}

export function arrayType(element: PlcType, dimensions: readonly ArrayDimension[]): ArrayType {
  if (dimensions.length === 0) throw new AppError('VALIDATION_ERROR', 'An array needs a dimension.');
  let count = 1;
  for (const d of dimensions) {
    if (!Number.isSafeInteger(d.start) || !Number.isInteger(d.length) || d.length < 1) {
      throw new AppError('VALIDATION_ERROR', `Invalid array bounds ${d.start}..${d.start + d.length - 1}.`);
    }
    count *= d.length;
  }
  const size = count * element.size;
  if (size > maxTypeSize) throw new AppError('VALIDATION_ERROR', `Array of ${size} bytes is too large.`);
  return Object.freeze({
    kind: 'array',
    name: arrayTypeName(dimensions, element),
    element,
    dimensions: Object.freeze(dimensions.map((d) => Object.freeze({ start: d.start, length: d.length }))),
    size,
  });
}

export interface MemberSpec {
  name: string;
  type: PlcType;
  comment?: string;
}

/** Lays out members in declaration order, each aligned; the size is padded to the struct alignment. */
export function structType(
  name: string,
  members: readonly MemberSpec[],
  methods: readonly MethodDef[] = [],
  comment?: string,
): StructType {
  const seen = new Set<string>();
  const laid: StructMember[] = [];
  let offset = 0;
  let alignment = 1;
  for (const m of members) {
    const key = m.name.toUpperCase();
    if (seen.has(key)) throw new AppError('VALIDATION_ERROR', `${name}: duplicate member ${m.name}.`);
    seen.add(key);
    const a = alignmentOf(m.type);
    alignment = Math.max(alignment, a);
    offset = alignUp(offset, a);
    laid.push(
      Object.freeze({ name: m.name, type: m.type, offset, ...(m.comment ? { comment: m.comment } : {}) }),
    );
    offset += m.type.size;
  }
  const size = alignUp(offset, alignment);
  if (size > maxTypeSize) throw new AppError('VALIDATION_ERROR', `${name} is too large.`);
  return Object.freeze({
    kind: 'struct',
    name,
    size,
    members: Object.freeze(laid),
    methods: Object.freeze([...methods]),
    ...(comment ? { comment } : {}),
  });
}

const memberMaps = new WeakMap<StructType, Map<string, StructMember>>();

/** A struct member by name, case-insensitive as in TwinCAT. */
export function findMember(type: StructType, name: string): StructMember | undefined {
  let map = memberMaps.get(type);
  if (!map) {
    map = new Map(type.members.map((m) => [m.name.toUpperCase(), m] as const));
    memberMaps.set(type, map);
  }
  return map.get(name.toUpperCase());
}

/** Byte distance between consecutive indices of each dimension. */
export function arrayStrides(type: ArrayType): number[] {
  const strides: number[] = new Array<number>(type.dimensions.length);
  let stride = type.element.size;
  for (let i = type.dimensions.length - 1; i >= 0; i--) {
    strides[i] = stride;
    stride *= type.dimensions[i]?.length ?? 1;
  }
  return strides;
}
