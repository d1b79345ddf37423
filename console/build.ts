// Builds the web console with esbuild: one JS and one CSS bundle under content-hashed names, the page that loads
// them, and a gzip copy of each asset for clients that accept it. `npm run build` runs it into dist/console.
import { gzipSync } from 'node:zlib';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const consoleRoot = fileURLToPath(new URL('.', import.meta.url));

export interface BuiltAsset {
  readonly name: string;
  readonly bytes: number;
  readonly gzipBytes: number;
}

export interface ConsoleBuild {
  readonly outDir: string;
  readonly assets: readonly BuiltAsset[];
  /** Every source file bundled, relative to the working folder (esbuild's metafile). */
  readonly inputs: readonly string[];
}

function page(script: string, style: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>plc-gateway console</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="assets/${style}">
<script type="module" src="assets/${script}"></script>
</head>
<body>
<div id="app"></div>
<noscript>The plc-gateway console needs JavaScript.</noscript>
</body>
</html>
`;
}

/** Builds the console into `outDir` (emptied first) and reports every asset's size, raw and gzipped. */
export async function buildConsole(outDir: string): Promise<ConsoleBuild> {
  await rm(outDir, { recursive: true, force: true });
  const assetsDir = join(outDir, 'assets');
  await mkdir(assetsDir, { recursive: true });
  const result = await build({
    entryPoints: { app: join(consoleRoot, 'src', 'main.tsx') },
    bundle: true,
    minify: true,
    format: 'esm',
    target: ['chrome109', 'firefox115', 'safari16'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    entryNames: '[name]-[hash]',
    assetNames: '[name]-[hash]',
    outdir: assetsDir,
    legalComments: 'external',
    metafile: true,
    logLevel: 'silent',
  });
  const outputs = Object.keys(result.metafile.outputs).map((file) => basename(file));
  const script = outputs.find((name) => name.endsWith('.js'));
  const style = outputs.find((name) => name.endsWith('.css'));
  if (script === undefined || style === undefined) throw new Error('console build: no JS or CSS bundle');
  await writeFile(join(outDir, 'index.html'), page(script, style));
  const assets: BuiltAsset[] = [];
  for (const name of outputs) {
    const content = await readFile(join(assetsDir, name));
    const gzipped = gzipSync(content, { level: 9 });
    await writeFile(join(assetsDir, `${name}.gz`), gzipped);
    assets.push({ name, bytes: content.length, gzipBytes: gzipped.length });
  }
  return { outDir, assets, inputs: Object.keys(result.metafile.inputs) };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const out = resolve(process.argv[2] ?? join(consoleRoot, '..', 'dist', 'console'));
  const built = await buildConsole(out);
  for (const a of built.assets) {
    console.log(
      `${a.name.padEnd(32)} ${String(a.bytes).padStart(8)} B  ${String(a.gzipBytes).padStart(7)} B gzip`,
    );
  }
}
