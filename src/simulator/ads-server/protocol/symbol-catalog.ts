// The symbol and type services' answers for one program: symbol upload, data-type upload, upload
// info, lookups by name. Built once per program version (pure; the server caches it).

import type { PlcType, SymbolDef } from '../../../plc/index.ts';
import { isBaseType, typeHash, typeKey } from './ads-types.ts';
import type { MemoryArea } from '../../engine/index.ts';
import { locate } from './area-groups.ts';
import { EntryWriter, text } from './entry-writer.ts';
import { encodeDataTypeEntry, encodeSymbolEntry } from './type-entries.ts';

export interface SymbolCatalog {
  symbolUpload: Buffer;
  symbolCount: number;
  dataTypeUpload: Buffer;
  dataTypeCount: number;
  /** Data-type entries by `typeKey(name)`; base types are absent. */
  dataTypes: ReadonlyMap<string, Buffer>;
}

function visit(type: PlcType, found: Map<string, PlcType>): void {
  if (isBaseType(type)) return;
  const key = typeKey(type.name);
  if (found.has(key)) return;
  found.set(key, type);
  if (type.kind === 'array') visit(type.element, found);
  if (type.kind === 'struct') {
    for (const m of type.members) visit(m.type, found);
    for (const method of type.methods) {
      if (method.returnType) visit(method.returnType, found);
      for (const p of method.parameters) visit(p.type, found);
    }
  }
}

/**
 * Every struct, function block, enum and array type the symbols reach, then the `declared` types no symbol
 * uses (TwinCAT uploads every data type of the project, not only the instantiated ones), each once.
 */
function collectDataTypes(symbols: readonly SymbolDef[], declared: readonly PlcType[] = []): PlcType[] {
  const found = new Map<string, PlcType>();
  for (const s of symbols) visit(s.type, found);
  for (const t of declared) visit(t, found);
  return [...found.values()];
}

export function buildSymbolCatalog(
  symbols: readonly SymbolDef[],
  declared: readonly PlcType[] = [],
  areas: readonly MemoryArea[] = [],
): SymbolCatalog {
  const symbolEntries = symbols.map((s) =>
    encodeSymbolEntry({
      name: s.name,
      type: s.type,
      ...locate(areas, s.offset),
      comment: s.comment,
    }),
  );
  const dataTypes = new Map<string, Buffer>();
  for (const type of collectDataTypes(symbols, declared))
    dataTypes.set(typeKey(type.name), encodeDataTypeEntry(type));
  return {
    symbolUpload: Buffer.concat(symbolEntries),
    symbolCount: symbolEntries.length,
    dataTypeUpload: Buffer.concat([...dataTypes.values()]),
    dataTypeCount: dataTypes.size,
    dataTypes,
  };
}

/** UTF-8: names in entries are UTF-8 encoded. */
const CODE_PAGE_UTF8 = 65001;
const UPLOAD_INFO_64BIT = 0x1;

/** Upload info version 3 (64 bytes); clients reading fewer bytes get the older 24/8-byte layouts. */
export function encodeUploadInfo(catalog: SymbolCatalog): Buffer {
  const out = Buffer.alloc(64);
  out.writeUInt32LE(catalog.symbolCount, 0);
  out.writeUInt32LE(catalog.symbolUpload.length, 4);
  out.writeUInt32LE(catalog.dataTypeCount, 8);
  out.writeUInt32LE(catalog.dataTypeUpload.length, 12);
  out.writeUInt32LE(0, 16); // dynamic symbols: none
  out.writeUInt32LE(0, 20);
  out.writeUInt32LE(0, 24);
  out.writeUInt32LE(CODE_PAGE_UTF8, 28);
  out.writeUInt32LE(UPLOAD_INFO_64BIT, 32);
  return out;
}

/** Answer of 0xF003 (handle by name): handle, size, type decoration, type name. */
export function encodeHandleInfo(handle: number, size: number, typeName: string): Buffer {
  const name = text(typeName);
  return new EntryWriter(16 + name.length)
    .u32(handle)
    .u32(size)
    .u32(typeHash(typeName))
    .u16(name.length)
    .bytes(name)
    .u8(0)
    .toBuffer();
}
