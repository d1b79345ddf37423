// Declarations written in settings and scenario files, checked and declared on a ProgramBuilder: a
// variable (`{ type, value, location, comment }`, or a bare string for a STRING) and a struct or enum.
import { isAppError } from '../../errors.ts';
import { defaultStringLength } from '../../plc/index.ts';
import type { ProgramBuilder } from './program.ts';

export interface TypeDeclaration {
  name: string;
  /** A struct's members, in memory order. */
  members?: ReadonlyArray<{ name: string; type: string; comment?: string }>;
  /** An enum's members (exactly one of members and enum). */
  enum?: ReadonlyArray<{ name: string; value: number }>;
  /** An enum's integer type; INT by default. */
  base?: string;
  comment?: string;
}

const symbolName = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;

/** Why a declaration failed, without a trailing period or a repeated name prefix. */
function reasonOf(err: unknown, name: string): string {
  if (!isAppError(err)) throw err;
  const prefix = `${name}: `;
  const message = err.message.startsWith(prefix) ? err.message.slice(prefix.length) : err.message;
  return message.replace(/\.$/, '');
}

/**
 * Declares one variable of any type the builder knows (elementary, STRING(n), arrays, declared structs
 * and enums), at an `AT %MB0`-style location when given; returns why it cannot be declared, or undefined.
 */
export function declareVariable(builder: ProgramBuilder, name: string, entry: unknown): string | undefined {
  if (!symbolName.test(name)) return 'not a valid symbol name (identifiers separated by dots)';
  if (builder.hasSymbol(name)) return 'a symbol of this name already exists';
  if (typeof entry === 'string') {
    const type = `STRING(${Math.max(defaultStringLength, [...entry].length)})`;
    return attempt(name, () => builder.symbol(name, type, { value: entry }));
  }
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
    return 'a value needs a "type" (only a bare string defaults to STRING)';
  }
  const o = entry as { type?: unknown; value?: unknown; location?: unknown; comment?: unknown };
  if (typeof o.type !== 'string' || o.type.trim() === '') return 'a value needs a "type"';
  if (o.location !== undefined && typeof o.location !== 'string') return '"location" must be a string';
  if (o.comment !== undefined && typeof o.comment !== 'string') return '"comment" must be a string';
  const type = o.type;
  if (builder.types.lookup(type) === undefined) return `unknown type '${type}'`;
  return attempt(name, () =>
    builder.symbol(name, type, {
      ...(o.value === undefined ? {} : { value: o.value }),
      ...(o.location === undefined ? {} : { location: o.location as string }),
      ...(o.comment === undefined ? {} : { comment: o.comment as string }),
    }),
  );
}

/** Declares a struct or an enum; returns why it cannot be declared, or undefined. */
export function declareType(builder: ProgramBuilder, decl: TypeDeclaration): string | undefined {
  if ((decl.members === undefined) === (decl.enum === undefined)) {
    return 'a type declares either "members" (a struct) or "enum" (an enum)';
  }
  return attempt(decl.name, () => {
    if (decl.members !== undefined) builder.struct(decl.name, decl.members, decl.comment);
    else builder.enum(decl.name, decl.enum ?? [], decl.base ?? 'INT');
  });
}

function attempt(name: string, run: () => unknown): string | undefined {
  try {
    run();
    return undefined;
  } catch (err) {
    return reasonOf(err, name);
  }
}
