#!/usr/bin/env node
// CLI entry: runs the compiled build (dist/). The published package ships dist/ without the sources; in a
// checkout, a dist/ older than src/ is refused rather than run, and without any dist/ the sources run
// through tsx (a development dependency).
import { existsSync, readdirSync, statSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const built = join(root, 'dist', 'main.js');
const sources = join(root, 'src');

/** The newest modification time of a file under `dir`, in ms. */
function newest(dir) {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
}

if (existsSync(built)) {
  if (existsSync(sources) && newest(sources) > statSync(built).mtimeMs) {
    process.stderr.write(
      'plc-gateway: dist/ is older than src/; run `npm run build` (or delete dist/ to run the sources).\n',
    );
    process.exit(1);
  }
  await import(pathToFileURL(built).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import(pathToFileURL(join(sources, 'main.ts')).href);
}
