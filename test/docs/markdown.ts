// Reading the project's Markdown as GitHub renders it: heading anchors (GitHub's slugs), links outside code, and
// the shell blocks of a section. Shared by the documentation tests.
import { readFileSync } from 'node:fs';

/** Lines outside fenced code blocks, with their 1-based numbers; inline code spans blanked. */
export function proseLines(text: string): Array<{ line: number; text: string }> {
  const out: Array<{ line: number; text: string }> = [];
  let fence: string | undefined;
  text.split('\n').forEach((raw, i) => {
    const marker = /^\s*(```+|~~~+)/.exec(raw)?.[1];
    if (marker !== undefined) {
      if (fence === undefined) fence = marker;
      else if (marker.startsWith(fence)) fence = undefined;
      return;
    }
    if (fence === undefined) out.push({ line: i + 1, text: raw.replace(/(`+)[^`]*?\1/g, '') });
  });
  return out;
}

/** GitHub's anchor for a heading text: lower case, punctuation dropped, each space a hyphen. */
export function slug(heading: string): string {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** Every anchor a document offers: its headings' slugs, repeats numbered -1, -2, ... as GitHub does. */
export function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  let fence = false;
  for (const line of text.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fence = !fence;
    const heading = fence ? undefined : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const base = slug(heading);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    result.add(n === 0 ? base : `${base}-${n}`);
  }
  return result;
}

export interface Link {
  readonly line: number;
  readonly target: string;
}

/** Inline links and images outside code: `[text](target)`, `![alt](target "title")`. */
export function links(text: string): Link[] {
  const found: Link[] = [];
  for (const { line, text: prose } of proseLines(text)) {
    for (const m of prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      found.push({ line, target: m[1]! });
    }
  }
  return found;
}

/** The text of the `## title` section: up to the next heading of the same or a higher level (not in code). */
export function section(text: string, title: string): string {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => l === `## ${title}`);
  if (start < 0) throw new Error(`no section "## ${title}"`);
  let fence = false;
  let end = lines.length;
  for (let i = start + 1; i < lines.length; i++) {
    if (/^\s*(```|~~~)/.test(lines[i]!)) fence = !fence;
    if (!fence && /^#{1,2} /.test(lines[i]!)) {
      end = i;
      break;
    }
  }
  return lines.slice(start + 1, end).join('\n');
}

/** The bodies of the ```sh blocks of a text. */
export function shellBlocks(text: string): string[] {
  return [...text.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
}

export function read(file: string): string {
  return readFileSync(file, 'utf8');
}
