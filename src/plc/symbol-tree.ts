// The browsable symbol tree: top-level symbols with struct members and array elements as children.
import type { ArrayType, PlcType, SymbolDef, SymbolNode } from './types.ts';

/** Every top-level symbol with its children, recursively; linear in the number of nodes produced. */
export function symbolTree(symbols: readonly SymbolDef[]): SymbolNode[] {
  return symbols.map((s) => symbolNode(s.name, s.type, s.comment));
}

/** The node of one instance (a symbol, a member or an element) with its children. */
export function symbolNode(instancePath: string, type: PlcType, comment: string): SymbolNode {
  return {
    instancePath,
    typeName: type.name,
    size: type.size,
    comment,
    children: childrenOf(instancePath, type),
  };
}

function childrenOf(path: string, type: PlcType): SymbolNode[] | null {
  if (type.kind === 'struct') {
    if (type.members.length === 0) return null;
    return type.members.map((m) => symbolNode(`${path}.${m.name}`, m.type, m.comment ?? ''));
  }
  if (type.kind === 'array') return elementNodes(path, type);
  return null;
}

function elementNodes(path: string, type: ArrayType): SymbolNode[] {
  const out: SymbolNode[] = [];
  const dims = type.dimensions;
  const idx = dims.map((d) => d.start);
  let total = 1;
  for (const d of dims) total *= d.length;
  for (let n = 0; n < total; n++) {
    out.push(symbolNode(`${path}[${idx.join(',')}]`, type.element, ''));
    // Odometer increment, last index fastest (memory order).
    for (let i = dims.length - 1; i >= 0; i--) {
      const d = dims[i];
      if (!d) break;
      const next = (idx[i] ?? d.start) + 1;
      if (next < d.start + d.length) {
        idx[i] = next;
        break;
      }
      idx[i] = d.start;
    }
  }
  return out;
}
