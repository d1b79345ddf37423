// ProgramBuilder declares types, symbols and method implementations; build() yields an immutable Program.
import { AppError } from '../../errors.ts';
import {
  encode,
  alignUp,
  alignmentOf,
  maxTypeSize,
  parseIecLocation,
  type IecLocation,
  resolvePath,
  type ResolvedPath,
  symbolNode,
  symbolTree,
} from '../../plc/index.ts';
import { areaAt, layoutAreas, type MemoryArea } from './located-areas.ts';
import {
  TypeRegistry,
  type EnumMemberDecl,
  type MemberDecl,
  type MethodDecl,
  type TypeRef,
} from './type-registry.ts';
import type {
  EnumType,
  MethodDef,
  PlcType,
  PlcValue,
  StructType,
  SymbolDef,
  SymbolNode,
} from '../../plc/index.ts';

/** The PLC a method body runs on, as far as a body may use it: values by path. */
export interface MethodPlc {
  read(path: string): PlcValue;
  write(path: string, value: unknown): void;
}

export interface MethodContext {
  plc: MethodPlc;
  /** Canonical path of the function block instance. */
  instancePath: string;
  /** Absolute memory offset of the instance. */
  offset: number;
  type: StructType;
  method: MethodDef;
}

interface MethodOutcome {
  returnValue: PlcValue;
  outputs?: Record<string, PlcValue>;
}

/** A method body; inputs arrive decoded (canonical JSON values) by parameter name. */
export type MethodImpl = (ctx: MethodContext, inputs: Record<string, PlcValue>) => MethodOutcome;

export interface SymbolOptions {
  comment?: string;
  /** Initial value (JSON, validated by the codec); zero bytes otherwise. */
  value?: unknown;
  /** `AT %MB0`-style location in the flags (%M), inputs (%I) or outputs (%Q) area. */
  location?: string;
}

const symbolName = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;
const resolveCacheLimit = 10_000;

export class ProgramBuilder {
  readonly types = new TypeRegistry();
  readonly #symbols: SymbolDef[] = [];
  readonly #byName = new Map<string, SymbolDef>();
  readonly #values: Array<{ offset: number; bytes: Buffer }> = [];
  readonly #methods = new Map<string, MethodImpl>();
  /** Located symbols: their place in #symbols, placed by build() once every area's size is known. */
  readonly #located: Array<{ index: number; def: SymbolDef; location: IecLocation; bytes?: Buffer }> = [];
  #next = 0;
  #built = false;

  type(ref: TypeRef): PlcType {
    return this.types.resolve(ref);
  }

  struct(name: string, members: readonly MemberDecl[], comment?: string): StructType {
    return this.types.defineStruct(name, members, comment ? { comment } : {});
  }

  /** A struct with methods; a method given an `implementation` is callable through invoke. */
  functionBlock(
    name: string,
    members: readonly MemberDecl[],
    methods: ReadonlyArray<MethodDecl & { implementation?: MethodImpl }>,
    comment?: string,
  ): StructType {
    const type = this.types.defineStruct(name, members, { methods, ...(comment ? { comment } : {}) });
    for (const m of methods) if (m.implementation) this.method(name, m.name, m.implementation);
    return type;
  }

  enum(name: string, members: readonly EnumMemberDecl[], base = 'INT'): EnumType {
    return this.types.defineEnum(name, members, base);
  }

  method(typeName: string, methodName: string, implementation: MethodImpl): this {
    this.#checkOpen();
    const type = this.types.resolve(typeName);
    if (
      type.kind !== 'struct' ||
      !type.methods.some((m) => m.name.toUpperCase() === methodName.toUpperCase())
    ) {
      throw new AppError('VALIDATION_ERROR', `${typeName} declares no method ${methodName}.`);
    }
    this.#methods.set(methodKey(type.name, methodName), implementation);
    return this;
  }

  /** Allocates the next aligned offset for a top-level symbol; a located symbol's offset is set by build(). */
  symbol(name: string, type: TypeRef, options: SymbolOptions = {}): SymbolDef {
    this.#checkOpen();
    if (!symbolName.test(name)) throw new AppError('VALIDATION_ERROR', `Invalid symbol name '${name}'.`);
    if (this.#byName.has(name.toUpperCase())) {
      throw new AppError('VALIDATION_ERROR', `Symbol ${name} is already declared.`);
    }
    const t = this.types.resolve(type);
    const bytes = options.value === undefined ? undefined : encode(t, options.value, name);
    if (options.location !== undefined) {
      const location = parseIecLocation(options.location);
      // The offset is known at build(): the located areas follow the data area.
      const def: SymbolDef = Object.freeze({ name, type: t, offset: -1, comment: options.comment ?? '' });
      this.#located.push({ index: this.#symbols.length, def, location, ...(bytes ? { bytes } : {}) });
      this.#symbols.push(def);
      this.#byName.set(name.toUpperCase(), def);
      return def;
    }
    const offset = alignUp(this.#next, alignmentOf(t));
    if (offset + t.size > maxTypeSize) throw new AppError('VALIDATION_ERROR', 'The program is too large.');
    const def: SymbolDef = Object.freeze({ name, type: t, offset, comment: options.comment ?? '' });
    this.#next = offset + t.size;
    this.#symbols.push(def);
    this.#byName.set(name.toUpperCase(), def);
    if (bytes) this.#values.push({ offset, bytes });
    return def;
  }

  hasSymbol(name: string): boolean {
    return this.#byName.has(name.toUpperCase());
  }

  build(): Program {
    this.#checkOpen();
    this.#built = true;
    this.types.seal();
    const { areas, offsets } = layoutAreas(
      alignUp(this.#next, 8),
      this.#located.map((l) => ({ type: l.def.type, location: l.location })),
    );
    const last = areas[areas.length - 1];
    const image = Buffer.alloc(last ? last.offset + last.size : 0);
    for (const v of this.#values) v.bytes.copy(image, v.offset);
    const symbols = [...this.#symbols];
    this.#located.forEach((l, i) => {
      const offset = offsets[i] ?? 0;
      symbols[l.index] = Object.freeze({ ...l.def, offset });
      l.bytes?.copy(image, offset);
    });
    return new Program(this.types, Object.freeze(symbols), image, new Map(this.#methods), areas);
  }

  #checkOpen(): void {
    if (this.#built) throw new AppError('VALIDATION_ERROR', 'The program is already built.');
  }
}

function methodKey(typeName: string, methodName: string): string {
  return `${typeName.toUpperCase()}#${methodName.toUpperCase()}`;
}

/** An immutable program: type system, symbol table with offsets, initial memory image, method bodies. */
export class Program {
  readonly types: TypeRegistry;
  readonly symbols: readonly SymbolDef[];
  /** Bytes of the data area (IG 0x4040 in ADS terms). */
  readonly size: number;
  /** The data area, then the flags (%M), inputs (%I) and outputs (%Q) areas, in memory order. */
  readonly areas: readonly MemoryArea[];
  readonly #image: Buffer;
  readonly #methods: ReadonlyMap<string, MethodImpl>;
  readonly #byName: ReadonlyMap<string, SymbolDef>;
  readonly #resolved = new Map<string, ResolvedPath>();
  #dataTypes: readonly PlcType[] | undefined;

  constructor(
    types: TypeRegistry,
    symbols: readonly SymbolDef[],
    image: Buffer,
    methods: ReadonlyMap<string, MethodImpl>,
    areas: readonly MemoryArea[] = [{ name: 'data', offset: 0, size: image.length }],
  ) {
    this.types = types;
    this.symbols = symbols;
    this.areas = Object.freeze(areas.map((a) => Object.freeze({ ...a })));
    this.size = this.areas[0]?.size ?? image.length;
    this.#image = image;
    this.#methods = methods;
    this.#byName = new Map(symbols.map((s) => [s.name.toUpperCase(), s] as const));
  }

  /** A fresh copy of the initial memory image. */
  createMemory(): Buffer {
    return Buffer.from(this.#image);
  }

  /** The area an absolute offset lies in. */
  areaAt(offset: number): MemoryArea {
    return areaAt(this.areas, offset);
  }

  /** A top-level symbol by name, case-insensitive. */
  symbol(name: string): SymbolDef | undefined {
    return this.#byName.get(name.toUpperCase());
  }

  /** SYMBOL_NOT_FOUND for an unknown path or an index out of bounds. */
  resolve(path: string): ResolvedPath {
    const cached = this.#resolved.get(path);
    if (cached) return cached;
    const r = resolvePath(path, (upper) => this.#byName.get(upper));
    if (this.#resolved.size >= resolveCacheLimit) this.#resolved.clear();
    this.#resolved.set(path, r);
    return r;
  }

  method(typeName: string, methodName: string): MethodImpl | undefined {
    return this.#methods.get(methodKey(typeName, methodName));
  }

  /**
   * Every struct, function block, enum and array type the program declares or uses (members, method
   * parameters, symbols), each listed after the types it contains: what an ADS data-type upload serves.
   */
  dataTypes(): readonly PlcType[] {
    if (this.#dataTypes) return this.#dataTypes;
    const seen = new Set<string>();
    const out: PlcType[] = [];
    const visit = (t: PlcType | null): void => {
      if (!t || t.kind === 'primitive' || t.kind === 'string') return;
      const key = t.name.toUpperCase();
      if (seen.has(key)) return;
      seen.add(key);
      if (t.kind === 'array') visit(t.element);
      if (t.kind === 'struct') {
        for (const m of t.members) visit(m.type);
        for (const m of t.methods) {
          visit(m.returnType);
          for (const p of m.parameters) visit(p.type);
        }
      }
      out.push(t);
    };
    for (const t of this.types.declaredTypes()) visit(t);
    for (const s of this.symbols) visit(s.type);
    this.#dataTypes = Object.freeze(out);
    return this.#dataTypes;
  }

  symbolTree(): SymbolNode[] {
    return symbolTree(this.symbols);
  }

  /** One instance with its children; the node carries the canonical path. */
  symbolNode(path: string): SymbolNode {
    const r = this.resolve(path);
    return symbolNode(r.path, r.type, r.comment);
  }
}
