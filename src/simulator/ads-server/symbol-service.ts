// Symbol and type services of the PLC runtime port: uploads, info by name, path resolution, handles by name.

import type { Program, SimulatedPlc } from '../engine/index.ts';
import type { ResolvedPath, MethodDef, StructType } from '../../plc/index.ts';
import { typeKey } from './protocol/ads-types.ts';
import { locate } from './protocol/area-groups.ts';
import { AdsError, AdsErrorCode } from '../../plc/ads/index.ts';
import { buildSymbolCatalog, type SymbolCatalog } from './protocol/symbol-catalog.ts';
import { encodeDataTypeEntry, encodeSymbolEntry } from './protocol/type-entries.ts';
import { primitiveType, stringType, parseTypeName, type TypeExpr } from '../../plc/index.ts';

/** What a handle by name points at: a variable (any sub-path) or an RPC method of an instance. */
export type HandleTarget =
  | { kind: 'variable'; path: string; offset: number; size: number; typeName: string }
  | { kind: 'method'; instancePath: string; type: StructType; method: MethodDef };

const catalogs = new WeakMap<Program, SymbolCatalog>();

/** The entry of an elementary type or STRING(n)/WSTRING(n) by name; undefined for anything else. */
function baseTypeEntry(name: string): Buffer | undefined {
  let expr: TypeExpr;
  try {
    expr = parseTypeName(name);
  } catch {
    return undefined;
  }
  if (expr.kind === 'primitive') return encodeDataTypeEntry(primitiveType(expr.name));
  if (expr.kind === 'string') {
    try {
      return encodeDataTypeEntry(stringType(expr.length, expr.wide));
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** Names arrive as `name\0` in the write data, cp1252 (identifiers are ASCII). */
export function decodeName(data: Buffer): string {
  const end = data.indexOf(0);
  return data
    .subarray(0, end < 0 ? data.length : end)
    .toString('latin1')
    .trim();
}

export class SymbolService {
  constructor(private readonly plc: SimulatedPlc) {}

  /** The uploads of the current program, built once per program. */
  catalog(): SymbolCatalog {
    const program = this.plc.program;
    let catalog = catalogs.get(program);
    if (!catalog) {
      catalog = buildSymbolCatalog(program.symbols, program.types.declaredTypes(), program.areas);
      catalogs.set(program, catalog);
    }
    return catalog;
  }

  /** A variable or part of one; "symbol not found" (1808) for anything else. */
  resolve(name: string): ResolvedPath {
    try {
      return this.plc.resolve(name);
    } catch {
      throw new AdsError(AdsErrorCode.SymbolNotFound, `Symbol '${name}' not found`);
    }
  }

  /** 0xF009: the symbol entry of a path, as TwinCAT answers for sub-paths too. */
  symbolInfo(name: string): Buffer {
    const r = this.resolve(name);
    return encodeSymbolEntry({
      name: r.path,
      type: r.type,
      ...locate(this.plc.program.areas, r.offset),
      comment: r.comment,
    });
  }

  /** 0xF011: the program's types, and base types (INT, STRING(80), ...) as TwinCAT 4022+ answers them. */
  dataTypeInfo(name: string): Buffer {
    const entry = this.catalog().dataTypes.get(typeKey(name)) ?? baseTypeEntry(name);
    if (!entry) throw new AdsError(AdsErrorCode.SymbolNotFound, `Data type '${name}' not found`);
    return entry;
  }

  /** 0xF003: `path` or `path#Method` (methods need the TcRpcEnable attribute). */
  handleTarget(name: string): HandleTarget {
    const hash = name.indexOf('#');
    if (hash < 0) {
      const r = this.resolve(name);
      return {
        kind: 'variable',
        path: r.path,
        offset: r.offset,
        size: r.size,
        typeName: r.type.name,
      };
    }
    const instance = this.resolve(name.slice(0, hash));
    const methodName = name
      .slice(hash + 1)
      .trim()
      .toUpperCase();
    const type = instance.type;
    const method =
      type.kind === 'struct' ? type.methods.find((m) => m.name.toUpperCase() === methodName) : undefined;
    const callable = method?.attributes?.some((a) => a.name.toUpperCase() === 'TCRPCENABLE') ?? false;
    if (type.kind !== 'struct' || !method || !callable) {
      throw new AdsError(AdsErrorCode.SymbolNotFound, `RPC method '${name}' not found`);
    }
    return { kind: 'method', instancePath: instance.path, type, method };
  }
}
