// The PLC's uploaded symbols resolved with the engine's path rules: instance path -> index group/offset + type.
import { resolvePath, symbolNode, type PlcType, type SymbolDef, type SymbolNode } from '../../plc/index.ts';
import type { TypeCatalog } from './type-catalog.ts';

/** The fields of an uploaded symbol entry this table reads (ads-client's AdsSymbol has them). */
export interface UploadedSymbol {
  name: string;
  type: string;
  size: number;
  comment: string;
  indexGroup: number;
  indexOffset: number;
}

/** Where a path's value lives on the PLC and how to read it. */
export interface SymbolAddress {
  /** Canonical spelling (as the PLC declares it). */
  path: string;
  indexGroup: number;
  indexOffset: number;
  size: number;
  type: PlcType;
  comment: string;
}

const resolveCacheLimit = 10_000;

export class SymbolTable {
  readonly #defs: SymbolDef[] = [];
  readonly #byName = new Map<string, SymbolDef>();
  readonly #groups = new Map<SymbolDef, number>();
  readonly #resolved = new Map<string, SymbolAddress>();

  constructor(symbols: Iterable<UploadedSymbol>, types: TypeCatalog) {
    for (const s of symbols) {
      const key = s.name.trim().toUpperCase();
      if (this.#byName.has(key)) continue;
      // The index offset stands in for the engine's memory offset: members add their offsets to it.
      const def: SymbolDef = Object.freeze({
        name: s.name.trim(),
        type: types.resolveOr(s.type, s.size),
        offset: s.indexOffset,
        comment: s.comment,
      });
      this.#defs.push(def);
      this.#byName.set(key, def);
      this.#groups.set(def, s.indexGroup);
    }
  }

  get count(): number {
    return this.#defs.length;
  }

  /** SYMBOL_NOT_FOUND for an unknown path or an index out of bounds (the engine's messages). */
  resolve(path: string): SymbolAddress {
    const hit = this.#resolved.get(path);
    if (hit) return hit;
    const r = resolvePath(path, (upper) => this.#byName.get(upper));
    const address: SymbolAddress = {
      path: r.path,
      indexGroup: this.#groups.get(r.symbol) ?? 0,
      indexOffset: r.offset,
      size: r.size,
      type: r.type,
      comment: r.comment,
    };
    if (this.#resolved.size >= resolveCacheLimit) this.#resolved.clear();
    this.#resolved.set(path, address);
    return address;
  }

  /** Every symbol with its children, recursively, in upload order. */
  tree(): SymbolNode[] {
    return this.#defs.map((d) => symbolNode(d.name, d.type, d.comment));
  }
}
