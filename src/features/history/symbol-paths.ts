// Resolves the configured paths of a PLC to the scalar symbols they name, `[*]` standing for every array index.
import type { SymbolNode } from '../../targets/target.ts';

export interface Resolved {
  /** The configured path each entry came from, with the symbols it names. */
  readonly found: ReadonlyArray<{ readonly path: string; readonly symbols: readonly string[] }>;
  /** One line per entry that names nothing recordable. */
  readonly problems: readonly string[];
}

function flatten(nodes: readonly SymbolNode[], into: Map<string, SymbolNode>): void {
  for (const n of nodes) {
    into.set(n.instancePath.toUpperCase(), n);
    if (n.children) flatten(n.children, into);
  }
}

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Matches `paths` against the PLC's symbol tree (case-insensitively, as the PLC does). */
export function resolvePaths(paths: readonly string[], tree: readonly SymbolNode[]): Resolved {
  const all = new Map<string, SymbolNode>();
  flatten(tree, all);
  const found: Array<{ path: string; symbols: string[] }> = [];
  const problems: string[] = [];
  for (const path of paths) {
    let nodes: SymbolNode[];
    if (path.includes('[*]')) {
      const pattern = new RegExp(`^${path.split('[*]').map(escape).join('\\[[^\\]]+\\]')}$`, 'i');
      nodes = [...all.values()].filter((n) => pattern.test(n.instancePath));
    } else {
      const node = all.get(path.trim().toUpperCase());
      nodes = node ? [node] : [];
    }
    if (nodes.length === 0) {
      problems.push(`'${path}': no such symbol`);
      continue;
    }
    const composite = nodes.find((n) => n.children !== null && n.children.length > 0);
    if (composite) {
      problems.push(`'${path}': ${composite.instancePath} is a struct or array; record its members instead`);
      continue;
    }
    found.push({ path, symbols: nodes.map((n) => n.instancePath) });
  }
  return { found, problems };
}
