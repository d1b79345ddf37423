// TwinCAT symbol and data-type entries (0xF00B/0xF009 symbols, 0xF00E/0xF011 types), byte-compatible
// with what ADS clients parse: fixed header, NUL-terminated strings, array infos, sub-items, methods,
// attributes and enum infos.

import type { ArrayDimension, MethodDef, PlcType, StructType } from '../../../plc/index.ts';
import { adsDataTypeOf, alignmentOf, AdsDataType, typeHash } from './ads-types.ts';
import { EntryWriter, text } from './entry-writer.ts';

const SymbolFlag = { Attributes: 0x1000 } as const;

const DataTypeFlag = {
  DataType: 0x1,
  DataItem: 0x2,
  MethodInfos: 0x800,
  Attributes: 0x1000,
  EnumInfos: 0x2000,
} as const;

const MethodFlag = { PlcCallingConvention: 0x1, Attributes: 0x8 } as const;
const ParamFlag = { In: 0x1, Out: 0x2 } as const;

interface Attribute {
  name: string;
  value: string;
}

/** What a symbol entry describes: a variable (or a part of one) at an index group and offset. */
export interface SymbolEntryInput {
  name: string;
  type: PlcType;
  indexGroup: number;
  indexOffset: number;
  comment: string;
  attributes?: readonly Attribute[];
}

function strings(w: EntryWriter, values: readonly Buffer[]): void {
  for (const v of values) w.bytes(v).u8(0);
}

function attributes(w: EntryWriter, list: readonly Attribute[]): void {
  w.u16(list.length);
  for (const a of list) {
    const name = text(a.name).subarray(0, 255);
    const value = text(a.value).subarray(0, 255);
    w.u8(name.length).u8(value.length);
    strings(w, [name, value]);
  }
}

function arrayInfos(w: EntryWriter, dims: readonly ArrayDimension[]): void {
  for (const d of dims) w.i32(d.start).u32(d.length);
}

/** A symbol entry, starting with its own u32 length. */
export function encodeSymbolEntry(input: SymbolEntryInput): Buffer {
  const w = new EntryWriter();
  const done = w.lengthSlot();
  const name = text(input.name);
  const type = text(input.type.name);
  const comment = text(input.comment);
  const attrs = input.attributes ?? [];
  w.u32(input.indexGroup).u32(input.indexOffset).u32(input.type.size).u32(adsDataTypeOf(input.type));
  w.u16(attrs.length > 0 ? SymbolFlag.Attributes : 0).u16(0);
  w.u16(name.length).u16(type.length).u16(comment.length);
  strings(w, [name, type, comment]);
  if (attrs.length > 0) attributes(w, attrs);
  done();
  return w.toBuffer();
}

interface ItemHeader {
  name: string;
  typeName: string;
  comment: string;
  size: number;
  offset: number;
  adsType: number;
  flags: number;
  dims: readonly ArrayDimension[];
  subItemCount: number;
  baseHash: number;
}

function itemHeader(w: EntryWriter, h: ItemHeader): void {
  const name = text(h.name);
  const type = text(h.typeName);
  const comment = text(h.comment);
  w.u32(1).u32(typeHash(h.name)).u32(h.baseHash).u32(h.size).u32(h.offset).u32(h.adsType).u32(h.flags);
  w.u16(name.length).u16(type.length).u16(comment.length).u16(h.dims.length).u16(h.subItemCount);
  strings(w, [name, type, comment]);
  arrayInfos(w, h.dims);
}

function memberEntry(name: string, type: PlcType, offset: number, comment: string): Buffer {
  const w = new EntryWriter();
  const done = w.lengthSlot();
  itemHeader(w, {
    name,
    typeName: type.name,
    comment,
    size: type.size,
    offset,
    adsType: adsDataTypeOf(type),
    flags: DataTypeFlag.DataItem,
    dims: type.kind === 'array' ? type.dimensions : [],
    subItemCount: 0,
    baseHash: typeHash(type.name),
  });
  done();
  return w.toBuffer();
}

function methodEntry(method: MethodDef, vTableIndex: number): Buffer {
  const w = new EntryWriter();
  const done = w.lengthSlot();
  const ret = method.returnType;
  const name = text(method.name);
  const retName = text(ret?.name ?? '');
  const comment = text(method.comment ?? '');
  w.u32(1)
    .u32(vTableIndex)
    .u32(ret?.size ?? 0)
    .u32(ret ? alignmentOf(ret) : 0)
    .u32(0)
    .zeros(16);
  const attrs = method.attributes ?? [];
  const flags = MethodFlag.PlcCallingConvention | (attrs.length > 0 ? MethodFlag.Attributes : 0);
  w.u32(ret ? adsDataTypeOf(ret) : AdsDataType.Void).u32(flags);
  w.u16(name.length).u16(retName.length).u16(comment.length).u16(method.parameters.length);
  strings(w, [name, retName, comment]);
  for (const p of method.parameters) {
    const pw = new EntryWriter();
    const pDone = pw.lengthSlot();
    const flags =
      p.direction === 'in'
        ? ParamFlag.In
        : p.direction === 'out'
          ? ParamFlag.Out
          : ParamFlag.In | ParamFlag.Out;
    const pName = text(p.name);
    const pType = text(p.type.name);
    pw.u32(p.type.size).u32(alignmentOf(p.type)).u32(adsDataTypeOf(p.type)).u32(flags).u32(0).zeros(16);
    pw.u16(0).u16(pName.length).u16(pType.length).u16(0);
    strings(pw, [pName, pType, Buffer.alloc(0)]);
    pDone();
    w.bytes(pw.toBuffer());
  }
  if (attrs.length > 0) attributes(w, attrs);
  done();
  return w.toBuffer();
}

function structBody(w: EntryWriter, type: StructType): void {
  for (const m of type.members) w.bytes(memberEntry(m.name, m.type, m.offset, m.comment ?? ''));
  if (type.methods.length > 0) {
    w.u16(type.methods.length);
    type.methods.forEach((m, i) => w.bytes(methodEntry(m, i)));
  }
}

/**
 * The data-type entry of a type, starting with its own u32 length. Uploads (0xF00E) carry only structs,
 * function blocks, enums and arrays; base types (primitives, STRING(n)) are answered by name (0xF011).
 */
export function encodeDataTypeEntry(type: PlcType): Buffer {
  const w = new EntryWriter();
  const done = w.lengthSlot();
  switch (type.kind) {
    case 'struct': {
      const flags = DataTypeFlag.DataType | (type.methods.length > 0 ? DataTypeFlag.MethodInfos : 0);
      itemHeader(w, {
        name: type.name,
        typeName: '',
        comment: type.comment ?? '',
        size: type.size,
        offset: 0,
        adsType: AdsDataType.BigType,
        flags,
        dims: [],
        subItemCount: type.members.length,
        baseHash: 0,
      });
      structBody(w, type);
      break;
    }
    case 'enum': {
      itemHeader(w, {
        name: type.name,
        typeName: type.base,
        comment: '',
        size: type.size,
        offset: 0,
        adsType: adsDataTypeOf(type),
        flags: DataTypeFlag.DataType | DataTypeFlag.EnumInfos,
        dims: [],
        subItemCount: 0,
        baseHash: typeHash(type.base),
      });
      w.u16(type.members.length);
      for (const member of type.members) {
        const name = text(member.name).subarray(0, 255);
        w.u8(name.length).bytes(name).u8(0);
        w.bytes(encodeEnumValue(member.value, type.size, type.base));
      }
      break;
    }
    case 'array':
      itemHeader(w, {
        name: type.name,
        typeName: type.element.name,
        comment: '',
        size: type.size,
        offset: 0,
        adsType: adsDataTypeOf(type),
        flags: DataTypeFlag.DataType,
        dims: type.dimensions,
        subItemCount: 0,
        baseHash: typeHash(type.element.name),
      });
      break;
    case 'primitive':
    case 'string':
      // TwinCAT 3.1 build 4022 and later answer 0xF011 for base types too: a DataType entry with no
      // base type name, no sub-items and the ADST id (ads-client's buildDataType treats it as final).
      itemHeader(w, {
        name: type.name,
        typeName: '',
        comment: '',
        size: type.size,
        offset: 0,
        adsType: adsDataTypeOf(type),
        flags: DataTypeFlag.DataType,
        dims: [],
        subItemCount: 0,
        baseHash: 0,
      });
      break;
  }
  done();
  return w.toBuffer();
}

const unsignedBases = new Set(['BYTE', 'WORD', 'DWORD', 'LWORD', 'USINT', 'UINT', 'UDINT', 'ULINT']);

function encodeEnumValue(value: number, size: number, base: string): Buffer {
  const out = Buffer.alloc(size);
  const signed = !unsignedBases.has(base);
  if (size === 8) {
    if (signed) out.writeBigInt64LE(BigInt(value));
    else out.writeBigUInt64LE(BigInt(value));
  } else if (signed) {
    out.writeIntLE(value, 0, size);
  } else {
    out.writeUIntLE(value, 0, size);
  }
  return out;
}
