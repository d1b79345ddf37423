// The PLC's uploaded type system (ADS data-type entries) as engine PlcTypes, so values are decoded and
// validated by the same codec the simulator uses. Layout (offsets, sizes) is taken from the PLC, never computed.
import { AppError } from '../../errors.ts';
import {
  arrayType,
  enumBaseRanges,
  parseTypeName,
  primitiveType,
  typeFromExpr,
  type ArrayDimension,
  type EnumType,
  type MethodDef,
  type MethodParameter,
  type PlcType,
  type PrimitiveName,
  type StructMember,
  type StructType,
  type TypeExpr,
} from '../../plc/index.ts';
import { opaque } from './undecodable.ts';

/** The fields of an uploaded data-type entry this catalog reads (ads-client's AdsDataType has them). */
export interface UploadedType {
  name: string;
  type: string;
  size: number;
  offset: number;
  comment: string;
  arrayInfos: ReadonlyArray<{ startIndex: number; length: number }>;
  subItems: readonly UploadedType[];
  enumInfos: ReadonlyArray<{ name: string; value: unknown }>;
  rpcMethods: readonly UploadedMethod[];
  attributes: ReadonlyArray<{ name: string; value: string }>;
}

export interface UploadedMethod {
  name: string;
  retunDataType: string;
  returnTypeSize: number;
  comment: string;
  parameters: ReadonlyArray<{ name: string; type: string; size: number; flags: number }>;
  attributes: ReadonlyArray<{ name: string; value: string }>;
}

const ParamFlag = { In: 1, Out: 2 } as const;
/** Derived types (STRING(n), ARRAY ...) a catalog remembers: callers may name any number of them. */
export const derivedTypeLimit = 1024;
/** Pointer-sized integers and references: shown as their address (x64 TwinCAT). */
const addressTypes = /^(?:POINTER\s+TO|REFERENCE\s+TO)\s|^(?:PVOID|UXINT|XWORD|__XWORD)$/i;
const signedAddressTypes = /^(?:XINT|__XINT)$/i;

function notDeclared(name: string): AppError {
  return new AppError('TYPE_NOT_FOUND', `Type ${name} is not declared.`);
}

/** Resolves type names against one upload; results are cached for the life of the catalog. */
export class TypeCatalog {
  readonly #entries = new Map<string, UploadedType>();
  /** Uploaded types as built: bounded by the upload. */
  readonly #built = new Map<string, PlcType>();
  /** Types named but not uploaded (STRING(n), ARRAY ...): bounded, oldest forgotten first. */
  readonly #derived = new Map<string, PlcType>();
  readonly #building = new Set<string>();

  constructor(entries: Iterable<UploadedType>) {
    for (const e of entries) this.#entries.set(e.name.trim().toUpperCase(), e);
  }

  get size(): number {
    return this.#entries.size;
  }

  /** Derived types remembered (diagnostics). */
  get derivedCount(): number {
    return this.#derived.size;
  }

  /** TYPE_NOT_FOUND for a name neither uploaded nor built in. */
  resolve(name: string): PlcType {
    const key = name.trim().toUpperCase();
    const hit = this.#built.get(key) ?? this.#derived.get(key);
    if (hit) return hit;
    const entry = this.#entries.get(key);
    if (!entry) {
      // Refused names throw before anything is remembered.
      const type = this.#fromName(name);
      if (this.#derived.size >= derivedTypeLimit) {
        const oldest = this.#derived.keys().next();
        if (!oldest.done) this.#derived.delete(oldest.value);
      }
      this.#derived.set(key, type);
      return type;
    }
    let type: PlcType;
    if (!this.#building.has(key)) {
      this.#building.add(key);
      try {
        type = this.#fromEntry(entry);
      } finally {
        this.#building.delete(key);
      }
    } else {
      // A type that contains itself can only do so through a reference: show the bytes, not a loop.
      type = opaque(entry.name, entry.size);
    }
    this.#built.set(key, type);
    return type;
  }

  /** Like resolve, but a type that cannot be resolved becomes an opaque value of `size` bytes. */
  resolveOr(name: string, size: number): PlcType {
    try {
      const t = this.resolve(name);
      return t.size === size || size === 0 ? t : opaque(name, size);
    } catch {
      return opaque(name, size);
    }
  }

  #fromName(name: string): PlcType {
    const text = name.trim();
    if (addressTypes.test(text)) return primitiveType('ULINT');
    if (signedAddressTypes.test(text)) return primitiveType('LINT');
    return this.#fromExpr(parseTypeName(text));
  }

  #fromExpr(expr: TypeExpr): PlcType {
    return typeFromExpr(
      expr,
      (name) => {
        if (!this.#entries.has(name.toUpperCase())) throw notDeclared(name);
        return this.resolve(name);
      },
      // Array elements resolve like any type name, so `ARRAY [..] OF PVOID` and cached elements work.
      (element) => (element.kind === 'named' ? this.resolve(element.name) : this.#fromExpr(element)),
    );
  }

  #fromEntry(e: UploadedType): PlcType {
    if (e.enumInfos.length > 0) return this.#enum(e) ?? opaque(e.name, e.size);
    if (e.arrayInfos.length > 0) {
      const element = this.resolveOr(e.type, 0);
      return arrayType(element, dimensions(e.arrayInfos));
    }
    if (e.subItems.length > 0 || e.rpcMethods.length > 0) return this.#struct(e);
    const base = e.type.trim();
    if (base !== '' && base.toUpperCase() !== e.name.trim().toUpperCase()) {
      // An alias (TYPE T_Speed : REAL; END_TYPE) reads and writes as the type it names.
      return this.resolveOr(base, e.size);
    }
    try {
      return this.#fromExpr(parseTypeName(e.name));
    } catch {
      return opaque(e.name, e.size);
    }
  }

  #enum(e: UploadedType): EnumType | undefined {
    const base = this.resolveOr(e.type, e.size);
    if (base.kind !== 'primitive' || !enumBaseRanges[base.name]) return undefined;
    const baseName: PrimitiveName = base.name;
    const members = e.enumInfos.map((m) => ({
      name: m.name,
      value: enumValue(m.value, baseName, base.size),
    }));
    return Object.freeze({
      kind: 'enum',
      name: e.name,
      base: baseName,
      size: base.size,
      members: Object.freeze(members.map((m) => Object.freeze(m))),
    });
  }

  #struct(e: UploadedType): StructType {
    const members: StructMember[] = e.subItems.map((s) =>
      Object.freeze({
        name: s.name,
        type: this.#memberType(s),
        offset: s.offset,
        ...(s.comment ? { comment: s.comment } : {}),
      }),
    );
    const methods: MethodDef[] = e.rpcMethods.map((m) => this.#method(m));
    return Object.freeze({
      kind: 'struct',
      name: e.name,
      size: e.size,
      members: Object.freeze(members),
      methods: Object.freeze(methods),
      ...(e.comment ? { comment: e.comment } : {}),
    });
  }

  #memberType(s: UploadedType): PlcType {
    if (s.arrayInfos.length > 0 && !/^\s*ARRAY\s*\[/i.test(s.type)) {
      const element = this.resolveOr(s.type, 0);
      return arrayType(element, dimensions(s.arrayInfos));
    }
    return this.resolveOr(s.type, s.size);
  }

  #method(m: UploadedMethod): MethodDef {
    const parameters: MethodParameter[] = m.parameters.map((p) =>
      Object.freeze({
        name: p.name,
        type: this.resolveOr(p.type, p.size),
        direction: direction(p.flags),
      }),
    );
    const returns = m.returnTypeSize > 0 && m.retunDataType.trim() !== '';
    return Object.freeze({
      name: m.name,
      returnType: returns ? this.resolveOr(m.retunDataType, m.returnTypeSize) : null,
      parameters: Object.freeze(parameters),
      attributes: Object.freeze(m.attributes.map((a) => ({ name: a.name, value: a.value }))),
      ...(m.comment ? { comment: m.comment } : {}),
    });
  }
}

function direction(flags: number): MethodParameter['direction'] {
  const input = (flags & ParamFlag.In) !== 0;
  const output = (flags & ParamFlag.Out) !== 0;
  if (input && output) return 'inout';
  return output ? 'out' : 'in';
}

function dimensions(infos: ReadonlyArray<{ startIndex: number; length: number }>): ArrayDimension[] {
  return infos.map((d) => ({ start: d.startIndex, length: d.length }));
}

/** Enum values arrive as raw bytes of the base type (ads-client leaves them undecoded). */
function enumValue(raw: unknown, base: PrimitiveName, size: number): number {
  if (typeof raw === 'number') return raw;
  if (typeof raw === 'bigint') return Number(raw);
  if (Buffer.isBuffer(raw) && raw.length >= size) {
    const range = enumBaseRanges[base];
    const signed = range !== undefined && range[0] < 0;
    return signed ? raw.readIntLE(0, size) : raw.readUIntLE(0, size);
  }
  return 0;
}
