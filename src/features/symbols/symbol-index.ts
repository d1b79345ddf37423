// An index over one PLC's symbol tree: pre-order node list and one upper-cased text of all paths, so
// lookups, case-insensitive substring search and flat listings never walk or copy the tree per request.
import type { SymbolNode } from '../../targets/target.ts';

/** A symbol as a flat listing shows it: the node's fields without `children`. */
export interface FlatSymbol {
  instancePath: string;
  typeName: string;
  size: number;
  comment: string;
}

/** Shared by every request for the target: callers serialize its arrays and never change them. */
export interface SymbolIndex {
  /** The top-level symbols, each with its children recursively. */
  readonly roots: SymbolNode[];
  /** Every node of the tree in pre-order (a node, then its subtree). */
  readonly nodes: readonly SymbolNode[];
  /** `flat[i]` is `nodes[i]` without children, built once so listings allocate nothing per node. */
  readonly flat: FlatSymbol[];
  /** `subtreeEnd[i]`: the index just past the last descendant of `nodes[i]`. */
  readonly subtreeEnd: Uint32Array;
  /**
   * Every upper-cased instance path in pre-order, each between line feeds (which no path contains): one
   * string the engine scans natively, for search and for exact lookup alike.
   */
  readonly haystack: string;
  /** `starts[i]`: where the path of `nodes[i]` begins in `haystack`; one extra entry holds its length. */
  readonly starts: Uint32Array;
}

const separator = '\n';

export function buildSymbolIndex(roots: SymbolNode[]): SymbolIndex {
  const nodes: SymbolNode[] = [];
  const ends: number[] = [];
  // Recursion goes as deep as the type nesting (a handful of levels), never as wide as an array.
  const visit = (node: SymbolNode): void => {
    const index = nodes.length;
    nodes.push(node);
    ends.push(0);
    if (node.children) for (const child of node.children) visit(child);
    ends[index] = nodes.length;
  };
  for (const root of roots) visit(root);

  const upper = nodes.map((n) => n.instancePath.toUpperCase());
  const haystack = separator + upper.join(separator) + separator;
  const starts = new Uint32Array(nodes.length + 1);
  let offset = 1;
  for (let i = 0; i < upper.length; i++) {
    starts[i] = offset;
    offset += upper[i]!.length + 1;
  }
  starts[nodes.length] = haystack.length;
  return {
    roots,
    nodes,
    flat: nodes.map(({ instancePath, typeName, size, comment }) => ({
      instancePath,
      typeName,
      size,
      comment,
    })),
    subtreeEnd: Uint32Array.from(ends),
    haystack,
    starts,
  };
}

/** The lookup key of a path: case-insensitive, whitespace ignored (`aAxes[ 3 ]` is `aAxes[3]`). */
function pathKey(path: string): string {
  return path.replace(/\s+/g, '').toUpperCase();
}

export function findSymbol(index: SymbolIndex, path: string): SymbolNode | undefined {
  const key = pathKey(path);
  if (key === '' || key.includes(separator)) return undefined;
  const hit = index.haystack.indexOf(separator + key + separator);
  return hit < 0 ? undefined : index.nodes[nodeAt(index.starts, index.nodes.length, hit + 1)];
}

/**
 * Nodes whose instance path contains `text` (case-insensitive), in tree order. As a tree, only the outermost
 * matches are listed, each with its whole subtree: a match inside a listed subtree is already shown there.
 * Flat, every matching node is listed, without children.
 */
export function searchSymbols(index: SymbolIndex, text: string, flat: true): FlatSymbol[];
export function searchSymbols(index: SymbolIndex, text: string, flat: false): SymbolNode[];
export function searchSymbols(index: SymbolIndex, text: string, flat: boolean): FlatSymbol[] | SymbolNode[] {
  const out: Array<FlatSymbol | SymbolNode> = [];
  const needle = text.toUpperCase();
  // A line feed would match across two paths.
  if (needle.includes(separator)) return [];
  const { haystack, starts, subtreeEnd } = index;
  const count = index.nodes.length;
  // One native substring scan over all paths, jumping past each hit's path (or subtree) to the next candidate.
  let from = 0;
  while (from < haystack.length) {
    const hit = haystack.indexOf(needle, from);
    if (hit < 0) break;
    const i = nodeAt(starts, count, hit);
    if (flat) {
      out.push(index.flat[i]!);
      from = starts[i + 1]!;
    } else {
      out.push(index.nodes[i]!);
      from = starts[subtreeEnd[i]!]!;
    }
  }
  return out;
}

/** The node whose path contains haystack position `position`: the last start at or before it. */
function nodeAt(starts: Uint32Array, count: number, position: number): number {
  let lo = 0;
  let hi = count - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (starts[mid]! <= position) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}
