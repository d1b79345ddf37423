// PlcAlarms.TextCatalog: a flat JSON `{ "<sKey>": "<text>" }` (keys case-insensitive) plus culture siblings
// `<name>.<culture>.json`, preferred per key for requests whose Accept-Language names that culture.
import { readdir, readFile } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';
import { ConfigError } from '../../config/schema.ts';

type Texts = ReadonlyMap<string, string>;

export interface TextCatalog {
  /** Text of `key` for the cultures in preference order; "" when no file has it. */
  text(key: string, cultures: readonly string[]): string;
  /** Cultures with a sibling file (lower case), for tests and diagnostics. */
  readonly cultures: readonly string[];
  /** Whether the neutral file names `key` (alarm management takes it as a known alarm). */
  has(key: string): boolean;
}

const cultureTag = /^[a-z]{1,8}(-[a-z0-9]{1,8})*$/i;
const setting = 'PlcAlarms.TextCatalog';

async function readTexts(file: string): Promise<Texts> {
  let doc: unknown;
  try {
    doc = JSON.parse(await readFile(file, 'utf8'));
  } catch (err) {
    throw new ConfigError([`${setting}: cannot read ${file}: ${(err as Error).message}`]);
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
    throw new ConfigError([`${setting}: ${file} must hold a JSON object mapping alarm keys to texts`]);
  }
  const texts = new Map<string, string>();
  for (const [key, text] of Object.entries(doc)) {
    if (typeof text !== 'string') {
      throw new ConfigError([`${setting}: ${file}: the text of ${JSON.stringify(key)} is not a string`]);
    }
    texts.set(key.toLowerCase(), text);
  }
  return texts;
}

/** Loads the catalog and its culture siblings; throws ConfigError naming the setting when unreadable. */
export async function loadTextCatalog(file: string, onMissing: (key: string) => void): Promise<TextCatalog> {
  const neutral = await readTexts(file);
  const stem = basename(file, extname(file));
  const ext = extname(file);
  const byCulture = new Map<string, Texts>();
  for (const name of await readdir(dirname(file))) {
    if (!name.startsWith(`${stem}.`) || !name.endsWith(ext) || name === basename(file)) continue;
    const culture = name.slice(stem.length + 1, name.length - ext.length);
    if (cultureTag.test(culture))
      byCulture.set(culture.toLowerCase(), await readTexts(join(dirname(file), name)));
  }
  const reported = new Set<string>();
  return {
    cultures: [...byCulture.keys()],
    has: (key) => neutral.has(key.toLowerCase()),
    text(key, cultures) {
      const k = key.toLowerCase();
      for (const culture of cultures) {
        // de-AT falls back to de before the next preferred culture.
        for (let c = culture; c !== ''; c = c.includes('-') ? c.slice(0, c.lastIndexOf('-')) : '') {
          const hit = byCulture.get(c)?.get(k);
          if (hit !== undefined) return hit;
        }
      }
      const text = neutral.get(k);
      if (text !== undefined) return text;
      if (!reported.has(k)) {
        reported.add(k);
        onMissing(key);
      }
      return '';
    },
  };
}

/** A catalog for a gateway without TextCatalog: every description is "". */
export const emptyCatalog: TextCatalog = { cultures: [], has: () => false, text: () => '' };

/** Accept-Language -> cultures in preference order (lower case; `*` and q=0 left out). */
export function parseAcceptLanguage(header: string | undefined): string[] {
  if (header === undefined || header === '') return [];
  const ranked: Array<{ tag: string; q: number; i: number }> = [];
  header.split(',').forEach((part, i) => {
    const [tagPart, ...params] = part.trim().split(';');
    const tag = (tagPart ?? '').trim().toLowerCase();
    if (tag === '' || tag === '*' || !cultureTag.test(tag)) return;
    let q = 1;
    for (const p of params) {
      const m = /^\s*q\s*=\s*([0-9.]+)\s*$/i.exec(p);
      if (m) q = Number(m[1]);
    }
    if (q > 0 && Number.isFinite(q)) ranked.push({ tag, q, i });
  });
  return ranked.sort((a, b) => b.q - a.q || a.i - b.i).map((r) => r.tag);
}
