// Parser for IEC type names as TwinCAT writes them: primitives, STRING(n), WSTRING(n), ARRAY [a..b] OF T.
import { AppError } from '../errors.ts';
import { arrayType, primitiveType, stringType } from './memory-layout.ts';
import {
  primitiveAliases,
  primitiveSizes,
  type ArrayDimension,
  type PlcType,
  type PrimitiveName,
} from './types.ts';

export type TypeExpr =
  | { kind: 'primitive'; name: PrimitiveName }
  | { kind: 'string'; length: number; wide: boolean }
  | { kind: 'array'; dimensions: ArrayDimension[]; element: TypeExpr }
  | { kind: 'named'; name: string };

/** The default length of a bare STRING or WSTRING. */
export const defaultStringLength = 80;

const arrayPattern = /^ARRAY\s*\[([^\]]*)\]\s*OF\s+(.+)$/is;
const stringPattern = /^(W?STRING)\s*(?:[([]\s*(\d+)\s*[)\]])?$/i;
const rangePattern = /^\s*(-?\d+)\s*\.\.\s*(-?\d+)\s*$/;
const identPattern = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;

/** Maps a primitive name or alias (case-insensitive) to its canonical name. */
function primitiveName(text: string): PrimitiveName | undefined {
  const upper = text.toUpperCase();
  if (Object.hasOwn(primitiveSizes, upper)) return upper as PrimitiveName;
  return primitiveAliases[upper];
}

export function parseTypeName(text: string): TypeExpr {
  const trimmed = text.trim();
  const array = arrayPattern.exec(trimmed);
  if (array) {
    const dimensions = (array[1] ?? '').split(',').map((part) => {
      const range = rangePattern.exec(part);
      if (!range) throw invalid(text, `bad array range '${part.trim()}'`);
      const start = Number(range[1]);
      const end = Number(range[2]);
      if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || end < start) {
        throw invalid(text, `bad array range '${part.trim()}'`);
      }
      return { start, length: end - start + 1 };
    });
    return { kind: 'array', dimensions, element: parseTypeName(array[2] ?? '') };
  }
  const str = stringPattern.exec(trimmed);
  if (str) {
    const wide = (str[1] ?? '').length === 7;
    const length = str[2] === undefined ? defaultStringLength : Number(str[2]);
    return { kind: 'string', length, wide };
  }
  const prim = primitiveName(trimmed);
  if (prim) return { kind: 'primitive', name: prim };
  if (identPattern.test(trimmed)) return { kind: 'named', name: trimmed };
  throw invalid(text, 'not a type name');
}

function invalid(text: string, why: string): AppError {
  return new AppError('TYPE_NOT_FOUND', `Invalid type name '${text}': ${why}.`);
}

/**
 * The type an expression names: elementary types and strings directly, arrays over their element, and
 * user types through `named` (the program's declarations, or the PLC's uploaded types). `element` resolves
 * array elements, so a caller can cache the element types it builds.
 */
export function typeFromExpr(
  expr: TypeExpr,
  named: (name: string) => PlcType,
  element: (expr: TypeExpr) => PlcType = (e) => typeFromExpr(e, named),
): PlcType {
  switch (expr.kind) {
    case 'primitive':
      return primitiveType(expr.name);
    case 'string':
      return stringType(expr.length, expr.wide);
    case 'array':
      return arrayType(element(expr.element), expr.dimensions);
    case 'named':
      return named(expr.name);
  }
}

/** An expression written back as a type name (`ARRAY [1..3] OF STRING(80)`). */
export function typeExprName(expr: TypeExpr): string {
  switch (expr.kind) {
    case 'primitive':
      return expr.name;
    case 'string':
      return `${expr.wide ? 'WSTRING' : 'STRING'}(${expr.length})`;
    case 'named':
      return expr.name;
    case 'array': {
      const dims = expr.dimensions.map((d) => `${d.start}..${d.start + d.length - 1}`).join(',');
      return `ARRAY [${dims}] OF ${typeExprName(expr.element)}`;
    }
  }
}
