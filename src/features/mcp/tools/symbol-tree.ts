// Cuts symbol trees to what an agent can read: children down to a depth, and a budget of nodes in all. A node
// whose children are cut keeps their count, so the agent knows to look deeper with get_symbol_info.
import type { SymbolNode } from '../../../targets/target.ts';

export interface BrowsedSymbol {
  instancePath: string;
  typeName: string;
  size: number;
  comment: string;
  /** Children within the depth, null for a leaf; absent when cut (then childCount says how many there are). */
  children?: BrowsedSymbol[] | null;
  childCount?: number;
}

export interface LimitedTree {
  symbols: BrowsedSymbol[];
  /** true when the node budget ran out before the whole answer (within the depth) was given. */
  truncated: boolean;
}

type Node = Omit<SymbolNode, 'children'> & { children?: SymbolNode[] | null };

export function limitTree(nodes: readonly Node[], depth: number, maxNodes: number): LimitedTree {
  let budget = maxNodes;
  let truncated = false;
  const visit = (list: readonly Node[], levels: number): BrowsedSymbol[] => {
    const out: BrowsedSymbol[] = [];
    for (const node of list) {
      if (budget === 0) {
        truncated = true;
        break;
      }
      budget--;
      const { instancePath, typeName, size, comment } = node;
      const symbol: BrowsedSymbol = { instancePath, typeName, size, comment };
      const children = node.children;
      if (children === undefined) {
        // A flat listing carries no children at all.
      } else if (children === null) symbol.children = null;
      else if (levels > 0) symbol.children = visit(children, levels - 1);
      else symbol.childCount = children.length;
      out.push(symbol);
    }
    return out;
  };
  const symbols = visit(nodes, depth);
  return { symbols, truncated };
}
