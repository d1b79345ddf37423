// The program's type system: user structs, function blocks and enums by name, plus derived array types.
import { AppError } from '../../errors.ts';
import {
  structType,
  enumBaseRanges,
  parseTypeName,
  typeExprName,
  typeFromExpr,
  type TypeExpr,
} from '../../plc/index.ts';
import type {
  EnumType,
  MethodDef,
  MethodParameter,
  PlcType,
  StructType,
  TypeAttribute,
} from '../../plc/index.ts';

export type TypeRef = string | PlcType;

export interface MemberDecl {
  name: string;
  type: TypeRef;
  comment?: string;
}

export interface MethodDecl {
  name: string;
  returnType: TypeRef | null;
  parameters?: ReadonlyArray<{ name: string; type: TypeRef; direction?: MethodParameter['direction'] }>;
  comment?: string;
  /** Defaults to `[{ name: 'TcRpcEnable', value: '' }]`: the simulator only declares callable methods. */
  attributes?: readonly TypeAttribute[];
}

export interface EnumMemberDecl {
  name: string;
  value: number;
}

/** Derived types (STRING(n), ARRAY ...) remembered once the program is built: callers may name any number. */
const derivedTypeLimit = 1024;

const identifier = /^[A-Za-z_][A-Za-z0-9_]*$/;
const typeIdentifier = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;

export class TypeRegistry {
  readonly #declared = new Map<string, EnumType | StructType>();
  readonly #derived = new Map<string, PlcType>();
  #sealed = false;

  /** Resolves a type name (case-insensitive) or passes a type through; TYPE_NOT_FOUND otherwise. */
  resolve(ref: TypeRef): PlcType {
    if (typeof ref !== 'string') return ref;
    const known = this.#declared.get(ref.trim().toUpperCase()) ?? this.#derived.get(ref.trim().toUpperCase());
    if (known) return known;
    const type = this.#build(parseTypeName(ref));
    // Every type the program uses is resolved before it is sealed; names asked for later are only
    // remembered up to the limit, so a caller naming ever new types cannot grow the registry.
    const remember = !this.#sealed || this.#derived.size < derivedTypeLimit;
    if (remember && (type.kind === 'array' || type.kind === 'string')) {
      this.#derived.set(type.name.toUpperCase(), type);
    }
    return type;
  }

  /** Derived types remembered (diagnostics). */
  get derivedCount(): number {
    return this.#derived.size;
  }

  /** Like resolve, but undefined instead of an error. */
  lookup(name: string): PlcType | undefined {
    try {
      return this.resolve(name);
    } catch {
      return undefined;
    }
  }

  /** User-declared structs, function blocks and enums, in declaration order. */
  declaredTypes(): Array<EnumType | StructType> {
    return [...this.#declared.values()];
  }

  /** Array types resolved so far (every array a symbol or member uses is among them). */
  arrayTypes(): PlcType[] {
    return [...this.#derived.values()].filter((t) => t.kind === 'array');
  }

  defineStruct(
    name: string,
    members: readonly MemberDecl[],
    options: { methods?: readonly MethodDecl[]; comment?: string } = {},
  ): StructType {
    this.#checkNew(name);
    const methods = (options.methods ?? []).map((m) => this.#method(name, m));
    const laid = members.map((m) => {
      if (!identifier.test(m.name)) throw bad(`${name}: invalid member name '${m.name}'.`);
      return { name: m.name, type: this.resolve(m.type), ...(m.comment ? { comment: m.comment } : {}) };
    });
    const type = structType(name, laid, methods, options.comment);
    this.#declared.set(name.toUpperCase(), type);
    return type;
  }

  defineEnum(name: string, members: readonly EnumMemberDecl[], base: string = 'INT'): EnumType {
    this.#checkNew(name);
    const baseType = this.resolve(base);
    const range = baseType.kind === 'primitive' ? enumBaseRanges[baseType.name] : undefined;
    if (baseType.kind !== 'primitive' || !range) {
      throw bad(`${name}: enum base type ${base} is not an integer type of at most 32 bits.`);
    }
    if (members.length === 0) throw bad(`${name}: an enum needs members.`);
    const names = new Set<string>();
    for (const m of members) {
      if (!identifier.test(m.name)) throw bad(`${name}: invalid member name '${m.name}'.`);
      if (names.has(m.name.toUpperCase())) throw bad(`${name}: duplicate member ${m.name}.`);
      names.add(m.name.toUpperCase());
      if (!Number.isInteger(m.value) || m.value < range[0] || m.value > range[1]) {
        throw bad(`${name}.${m.name}: value ${m.value} is outside ${baseType.name}.`);
      }
    }
    const type: EnumType = Object.freeze({
      kind: 'enum',
      name,
      base: baseType.name,
      size: baseType.size,
      members: Object.freeze(members.map((m) => Object.freeze({ name: m.name, value: m.value }))),
    });
    this.#declared.set(name.toUpperCase(), type);
    return type;
  }

  /** After sealing, declaring types fails (resolving derived array names still works). */
  seal(): void {
    this.#sealed = true;
  }

  #method(owner: string, m: MethodDecl): MethodDef {
    if (!identifier.test(m.name)) throw bad(`${owner}: invalid method name '${m.name}'.`);
    const parameters = (m.parameters ?? []).map((p) => {
      if (!identifier.test(p.name)) throw bad(`${owner}.${m.name}: invalid parameter name '${p.name}'.`);
      return Object.freeze({ name: p.name, type: this.resolve(p.type), direction: p.direction ?? 'in' });
    });
    return Object.freeze({
      name: m.name,
      returnType: m.returnType === null ? null : this.resolve(m.returnType),
      parameters: Object.freeze(parameters),
      attributes: Object.freeze([...(m.attributes ?? [{ name: 'TcRpcEnable', value: '' }])]),
      ...(m.comment ? { comment: m.comment } : {}),
    });
  }

  #checkNew(name: string): void {
    if (this.#sealed) throw bad(`Cannot declare ${name}: the program is already built.`);
    if (!typeIdentifier.test(name)) throw bad(`Invalid type name '${name}'.`);
    const expr = parseTypeName(name);
    if (expr.kind !== 'named') throw bad(`${name} is a built-in type.`);
    if (this.#declared.has(name.toUpperCase())) throw bad(`Type ${name} is already declared.`);
  }

  #build(expr: TypeExpr): PlcType {
    return typeFromExpr(
      expr,
      (name) => {
        const t = this.#declared.get(name.toUpperCase());
        if (!t) throw new AppError('TYPE_NOT_FOUND', `Type ${name} is not declared.`);
        return t;
      },
      // Elements go through resolve() by name so nested arrays are cached (and listed) like any other.
      (element) => this.resolve(typeExprName(element)),
    );
  }
}

function bad(message: string): AppError {
  return new AppError('VALIDATION_ERROR', message);
}
