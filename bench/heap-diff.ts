// Compares two V8 heap snapshots (as bench:soak --heap-snapshots writes them): live objects grouped by kind and
// constructor name, the groups that grew most in count and bytes from the first to the second. A leak shows as a
// group that grows with time under a steady load; a cache or ring filling up shows as one that stops at its bound.
// Run: node --import tsx bench/heap-diff.ts FIRST.heapsnapshot SECOND.heapsnapshot [--top 25]
import { readFileSync } from 'node:fs';

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
  nodes: number[];
  strings: string[];
}

type Groups = Map<string, { count: number; bytes: number }>;

function groups(file: string): Groups {
  const s = JSON.parse(readFileSync(file, 'utf8')) as Snapshot;
  const fields = s.snapshot.meta.node_fields;
  const width = fields.length;
  const typeAt = fields.indexOf('type');
  const nameAt = fields.indexOf('name');
  const sizeAt = fields.indexOf('self_size');
  const types = s.snapshot.meta.node_types[0];
  const out: Groups = new Map();
  for (let i = 0; i < s.nodes.length; i += width) {
    const type = types[s.nodes[i + typeAt]!] ?? '?';
    // Strings and numbers are grouped by kind alone: their "name" is their content.
    const name = ['string', 'number', 'concatenated string', 'sliced string'].includes(type)
      ? ''
      : (s.strings[s.nodes[i + nameAt]!] ?? '');
    const key = `${type}:${name.slice(0, 80)}`;
    const g = out.get(key) ?? { count: 0, bytes: 0 };
    g.count++;
    g.bytes += s.nodes[i + sizeAt]!;
    out.set(key, g);
  }
  return out;
}

const [first, second] = process.argv.slice(2).filter((a) => !a.startsWith('--'));
if (first === undefined || second === undefined) {
  console.error('usage: heap-diff FIRST.heapsnapshot SECOND.heapsnapshot [--top N]');
  process.exit(2);
}
const topAt = process.argv.indexOf('--top');
const top = topAt > 0 ? Number(process.argv[topAt + 1]) : 25;
const a = groups(first);
const b = groups(second);
const total = (g: Groups): number => [...g.values()].reduce((s, x) => s + x.bytes, 0);
const rows = [...new Set([...a.keys(), ...b.keys()])].map((key) => {
  const x = a.get(key) ?? { count: 0, bytes: 0 };
  const y = b.get(key) ?? { count: 0, bytes: 0 };
  return { key, dCount: y.count - x.count, dBytes: y.bytes - x.bytes, count: y.count };
});
console.log(`live heap ${(total(a) / 1048576).toFixed(2)} MiB -> ${(total(b) / 1048576).toFixed(2)} MiB`);
console.log('grew most (bytes):');
for (const r of rows.sort((p, q) => q.dBytes - p.dBytes).slice(0, top)) {
  console.log(
    `  ${(r.dBytes / 1024).toFixed(1).padStart(9)} KiB  ${String(r.dCount).padStart(7)} objects (now ${r.count})  ${r.key}`,
  );
}
