// Symbol and type services of the PLC runtime port: uploads, info by name, path resolution, handles by name.

import type { Program } from '../engine/program.ts';
import type { SimulatedPlc } from '../engine/plc.ts';
import type { ResolvedPath } from '../../plc/symbol-path.ts';
import type { MethodDef, StructType } from '../../plc/types.ts';
import { typeKey } from './protocol/ads-types.ts';
import { IndexGroup } from '../../plc/ads/constants.ts';
import { AdsError, AdsErrorCode } from '../../plc/ads/error-codes.ts';
import { buildSymbolCatalog, type SymbolCatalog } from './protocol/symbol-catalog.ts';
import { encodeSymbolEntry } from './protocol/type-entries.ts';

/** What a handle by name points at: a variable (any sub-path) or an RPC method of an instance. */
export type HandleTarget =
  | { kind: 'variable'; path: string; offset: number; size: number; typeName: string; version: number }
  | { kind: 'method'; instancePath: string; type: StructType; method: MethodDef; version: number };

const catalogs = new WeakMap<Program, SymbolCatalog>();

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
      catalog = buildSymbolCatalog(program.symbols, program.types.declaredTypes());
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
      indexGroup: IndexGroup.PlcMemory,
      indexOffset: r.offset,
      comment: r.comment,
    });
  }

  /** 0xF011: a struct, function block, enum or array entry; base and unknown types are 1808. */
  dataTypeInfo(name: string): Buffer {
    const entry = this.catalog().dataTypes.get(typeKey(name));
    if (!entry) throw new AdsError(AdsErrorCode.SymbolNotFound, `Data type '${name}' not found`);
    return entry;
  }

  /** 0xF003: `path` or `path#Method` (methods need the TcRpcEnable attribute). */
  handleTarget(name: string): HandleTarget {
    const version = this.plc.symbolVersion;
    const hash = name.indexOf('#');
    if (hash < 0) {
      const r = this.resolve(name);
      return {
        kind: 'variable',
        path: r.path,
        offset: r.offset,
        size: r.size,
        typeName: r.type.name,
        version,
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
    return { kind: 'method', instancePath: instance.path, type, method, version };
  }
}

/** The handles one client created; released with the connection. */
export class HandleTable {
  readonly #targets = new Map<number, HandleTarget>();

  constructor(
    private readonly nextId: () => number,
    private readonly limit: number,
  ) {}

  get size(): number {
    return this.#targets.size;
  }

  create(target: HandleTarget): number {
    if (this.#targets.size >= this.limit) {
      throw new AdsError(AdsErrorCode.NoMemory, `No more than ${this.limit} handles per client`);
    }
    const handle = this.nextId();
    this.#targets.set(handle, target);
    return handle;
  }

  /** The target of a live handle; 1809 when a program download made it stale. */
  get(handle: number, symbolVersion: number): HandleTarget {
    const target = this.#targets.get(handle);
    if (!target) throw new AdsError(AdsErrorCode.SymbolNotFound, `Handle ${handle} is not valid`);
    if (target.version !== symbolVersion) {
      throw new AdsError(AdsErrorCode.SymbolVersionInvalid, `Handle ${handle} predates a program download`);
    }
    return target;
  }

  release(handle: number): void {
    if (!this.#targets.delete(handle)) {
      throw new AdsError(AdsErrorCode.SymbolNotFound, `Handle ${handle} is not valid`);
    }
  }

  clear(): void {
    this.#targets.clear();
  }
}
