// Instance paths: `GVL_HMI.aAxes[3].rPosition`, `a[1,2]`, resolved case-insensitively to type and offset.
import { AppError } from '../errors.ts';
import { arrayStrides, findMember } from './memory-layout.ts';
import type { PlcType, SymbolDef } from './types.ts';

interface PathSegment {
  name: string;
  /** Each bracket group, e.g. `a[1,2][3]` -> [[1, 2], [3]]. */
  subscripts: number[][];
}

/** A path resolved against a program: canonical spelling, type and absolute memory offset. */
export interface ResolvedPath {
  path: string;
  type: PlcType;
  offset: number;
  size: number;
  symbol: SymbolDef;
  /** The symbol's or struct member's comment; '' for an array element. */
  comment: string;
}

const segmentPattern = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*((?:\[[^\]]*\]\s*)*)$/;

/** Splits a path into segments; SYMBOL_NOT_FOUND when it is not well formed. */
function parsePath(path: string): PathSegment[] {
  const segments: PathSegment[] = [];
  for (const part of splitDots(path)) {
    const m = segmentPattern.exec(part);
    if (!m) throw notFound(path);
    const subscripts: number[][] = [];
    const groups = (m[2] ?? '').match(/\[[^\]]*\]/g) ?? [];
    for (const g of groups) {
      const indices = g
        .slice(1, -1)
        .split(',')
        .map((s) => s.trim());
      if (indices.some((s) => !/^-?\d{1,15}$/.test(s))) throw notFound(path);
      subscripts.push(indices.map(Number));
    }
    segments.push({ name: m[1] ?? '', subscripts });
  }
  if (segments.length === 0) throw notFound(path);
  return segments;
}

/** Dots inside brackets do not separate segments (they never occur in valid paths anyway). */
function splitDots(path: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < path.length; i++) {
    const c = path[i];
    if (c === '[') depth++;
    else if (c === ']') depth--;
    else if (c === '.' && depth === 0) {
      parts.push(path.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(path.slice(start));
  return parts;
}

/**
 * Resolves `path` given a lookup of top-level symbols by upper-case name. Symbol names may contain
 * dots (`MAIN.nSpeed`), so the longest dotted prefix naming a symbol wins.
 */
export function resolvePath(
  path: string,
  symbolByName: (upper: string) => SymbolDef | undefined,
): ResolvedPath {
  const segments = parsePath(path);
  let symbol: SymbolDef | undefined;
  let used = 0;
  let prefix = '';
  for (let k = 0; k < segments.length; k++) {
    const seg = segments[k];
    if (!seg) break;
    prefix = k === 0 ? seg.name.toUpperCase() : `${prefix}.${seg.name.toUpperCase()}`;
    const found = symbolByName(prefix);
    if (found) {
      symbol = found;
      used = k + 1;
    }
    if (seg.subscripts.length > 0) break;
  }
  if (!symbol) throw notFound(path);
  let type: PlcType = symbol.type;
  let offset = symbol.offset;
  let canonical = symbol.name;
  let comment = symbol.comment;
  for (let k = used - 1; k < segments.length; k++) {
    const seg = segments[k];
    if (!seg) break;
    if (k >= used) {
      if (type.kind !== 'struct') throw notFound(path);
      const member = findMember(type, seg.name);
      if (!member) throw notFound(path);
      type = member.type;
      offset += member.offset;
      canonical += `.${member.name}`;
      comment = member.comment ?? '';
    }
    for (const indices of seg.subscripts) {
      if (type.kind !== 'array' || indices.length !== type.dimensions.length) throw notFound(path);
      const strides = arrayStrides(type);
      for (let i = 0; i < indices.length; i++) {
        const idx = indices[i] ?? 0;
        const d = type.dimensions[i];
        if (!d || idx < d.start || idx >= d.start + d.length) {
          throw new AppError(
            'SYMBOL_NOT_FOUND',
            `Index ${idx} is outside the bounds of ${canonical} (${type.name}).`,
          );
        }
        offset += (idx - d.start) * (strides[i] ?? 0);
      }
      canonical += `[${indices.join(',')}]`;
      comment = '';
      type = type.element;
    }
  }
  return { path: canonical, type, offset, size: type.size, symbol, comment };
}

function notFound(path: string): AppError {
  return new AppError('SYMBOL_NOT_FOUND', `Symbol '${path}' not found.`);
}
