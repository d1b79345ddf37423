// The published symbols of one PLC: `Mqtt.Targets.<plcId>.Symbols` entries expanded over the PLC's symbol tree.
// An entry names a path, `[*]` standing for every index of an array; a struct or array it names means its leaves.
import type { SymbolEntryConfig } from '../../config/schema.ts';
import type { SymbolNode } from '../../targets/target.ts';

/** One published leaf symbol and the entry that selected it (the first entry wins). */
export interface PublishedSymbol {
  readonly path: string;
  readonly typeName: string;
  readonly entry: SymbolEntryConfig;
}

/** A path pattern, `[*]` standing for any index list, matched case-insensitively. */
export function patternOf(path: string): RegExp {
  return new RegExp(`^${patternText(path)}$`, 'i');
}

/**
 * What an entry selects: the path itself, or anything under it, since a PLC's symbol tree may list `MAIN.nSpeed`
 * at the top with no `MAIN` node above it.
 */
function selectorOf(path: string): RegExp {
  return new RegExp(`^${patternText(path)}(?:[.[].*)?$`, 'i');
}

function patternText(path: string): string {
  const escaped = path.trim().replace(/[.*+?^${}()|[\]\\]/g, (c) => `\\${c}`);
  // `[*]` (escaped above as `\[\*\]`) matches any index list, e.g. [3] or [1,2].
  return escaped.replaceAll('\\[\\*\\]', '\\[[^\\]]+\\]');
}

function leavesOf(node: SymbolNode, out: SymbolNode[]): void {
  if (node.children === null || node.children.length === 0) out.push(node);
  else for (const c of node.children) leavesOf(c, out);
}

/**
 * The leaves the entries select, in tree order; `limit` bounds the result (the caller reports the overflow).
 * Entries that match nothing are returned in `unmatched`, so start-up can log them.
 */
export function expandEntries(
  entries: readonly SymbolEntryConfig[],
  tree: readonly SymbolNode[],
  limit: number,
): { symbols: PublishedSymbol[]; unmatched: string[]; truncated: boolean } {
  const patterns = entries.map((entry) => ({ entry, re: selectorOf(entry.Path), hit: false }));
  const seen = new Set<string>();
  const symbols: PublishedSymbol[] = [];
  let truncated = false;
  const visit = (node: SymbolNode): void => {
    const match = patterns.find((p) => p.re.test(node.instancePath));
    if (match) {
      match.hit = true;
      const leaves: SymbolNode[] = [];
      leavesOf(node, leaves);
      for (const leaf of leaves) {
        const key = leaf.instancePath.toUpperCase();
        if (seen.has(key)) continue;
        if (symbols.length >= limit) {
          truncated = true;
          return;
        }
        seen.add(key);
        symbols.push({ path: leaf.instancePath, typeName: leaf.typeName, entry: match.entry });
      }
      return;
    }
    for (const c of node.children ?? []) visit(c);
  };
  for (const node of tree) visit(node);
  return { symbols, unmatched: patterns.filter((p) => !p.hit).map((p) => p.entry.Path), truncated };
}
