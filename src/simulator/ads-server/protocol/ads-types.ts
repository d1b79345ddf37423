// How the engine's PlcType maps onto TwinCAT's type vocabulary: ADS data type ids, base types, name keys.

import type { PlcType, PrimitiveName } from '../../../plc/index.ts';

/** ADST_* ids that TwinCAT reports in symbol and data-type entries. */
export const AdsDataType = {
  Void: 0,
  Int16: 2,
  Int32: 3,
  Real32: 4,
  Real64: 5,
  Int8: 16,
  UInt8: 17,
  UInt16: 18,
  UInt32: 19,
  Int64: 20,
  UInt64: 21,
  String: 30,
  WString: 31,
  Bit: 33,
  BigType: 65,
} as const;

const primitiveIds: Readonly<Record<PrimitiveName, number>> = {
  BOOL: AdsDataType.Bit,
  BYTE: AdsDataType.UInt8,
  WORD: AdsDataType.UInt16,
  DWORD: AdsDataType.UInt32,
  LWORD: AdsDataType.UInt64,
  SINT: AdsDataType.Int8,
  USINT: AdsDataType.UInt8,
  INT: AdsDataType.Int16,
  UINT: AdsDataType.UInt16,
  DINT: AdsDataType.Int32,
  UDINT: AdsDataType.UInt32,
  LINT: AdsDataType.Int64,
  ULINT: AdsDataType.UInt64,
  REAL: AdsDataType.Real32,
  LREAL: AdsDataType.Real64,
  TIME: AdsDataType.UInt32,
  LTIME: AdsDataType.UInt64,
  DATE: AdsDataType.UInt32,
  DT: AdsDataType.UInt32,
  TOD: AdsDataType.UInt32,
};

export function adsDataTypeOf(type: PlcType): number {
  switch (type.kind) {
    case 'primitive':
      return primitiveIds[type.name];
    case 'string':
      return type.wide ? AdsDataType.WString : AdsDataType.String;
    case 'enum':
      return primitiveIds[type.base];
    case 'struct':
      return AdsDataType.BigType;
    case 'array':
      return type.element.kind === 'struct' || type.element.kind === 'array'
        ? AdsDataType.BigType
        : adsDataTypeOf(type.element);
  }
}

/**
 * Primitives and strings are TwinCAT base types: a runtime answers "symbol not found" for them and
 * clients fall back to their built-in definitions.
 */
export function isBaseType(type: PlcType): boolean {
  return type.kind === 'primitive' || type.kind === 'string';
}

/** Lookup key of a type name: TwinCAT compares names case-insensitively and ignores blanks. */
export function typeKey(name: string): string {
  return name.replace(/\s+/g, '').toUpperCase();
}

/** A stable 32-bit hash (FNV-1a) of a type name, used where entries carry hash values. */
export function typeHash(name: string): number {
  let hash = 0x811c9dc5;
  for (const ch of typeKey(name)) {
    hash ^= ch.charCodeAt(0);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

/** Alignment TwinCAT reports for RPC parameters: the size of the largest primitive inside, at most 8. */
export function alignmentOf(type: PlcType): number {
  switch (type.kind) {
    case 'primitive':
    case 'enum':
      return Math.min(type.size, 8);
    case 'string':
      return type.wide ? 2 : 1;
    case 'array':
      return alignmentOf(type.element);
    case 'struct':
      return type.members.reduce((max, m) => Math.max(max, alignmentOf(m.type)), 1);
  }
}
