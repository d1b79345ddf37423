// Lint rules, including the layering rules of the design (features never reach an adapter directly).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import importX, { createNodeResolver } from 'eslint-plugin-import-x';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative, sep } from 'node:path';
import ts from 'typescript';

// The layers of src/, top to bottom. A module imports only from its own layer or the layers below it; the
// entry points (main.ts, cli/, app.ts) wire everything together and sit on top.
const layers = [
  { name: 'entry points', patterns: ['**/main.ts', '**/cli/**', '**/app.ts'] },
  { name: 'features', patterns: ['**/features/**'] },
  { name: 'feature-kit', patterns: ['**/feature-kit/**'] },
  { name: 'cluster', patterns: ['**/cluster/**'] },
  { name: 'http', patterns: ['**/http/**'] },
  { name: 'guards', patterns: ['**/guards/**'] },
  { name: 'audit', patterns: ['**/audit/**'] },
  { name: 'targets', patterns: ['**/targets/**'] },
  { name: 'simulator', patterns: ['**/simulator/**'] },
  { name: 'config', patterns: ['**/config/**'] },
  { name: 'plc', patterns: ['**/plc/**'] },
  { name: 'errors', patterns: ['**/errors.ts'] },
];
const arrow = layers
  .slice(1)
  .map((l) => l.name)
  .join(' -> ');

/** Restrictions of a layer: every layer above it, each with a message saying which way the arrow points. */
function above(name) {
  const at = layers.findIndex((l) => l.name === name);
  return layers.slice(0, at).map((l) => ({
    group: l.patterns,
    message: `src/${name} is below ${l.name}: imports point down only (${arrow}).`,
  }));
}

const portOnly = [
  {
    group: ['**/targets/ads/**', 'ads-client', '**/simulator/**', '**/plc/ads/**'],
    message: 'Features reach PLCs only through the PlcTarget port.',
  },
];
const noHttp = [
  {
    group: ['fastify', '@fastify/*'],
    message: 'Drivers, the simulator, config and the PLC model never import HTTP (fastify).',
  },
];
const noSimulator = [
  { group: ['**/simulator/**'], message: 'The ADS driver never reaches into the simulator: use src/plc.' },
];
const pureCore = [{ group: ['ads-client', 'yaml'], message: 'The engine is a pure core.' }];
const plcModel = [
  {
    group: ['ads-client', 'yaml'],
    message: 'src/plc is the bottom layer: it imports nothing above it.',
  },
];
const pureCorePaths = ['node:net', 'net', 'node:fs', 'fs', 'node:fs/promises', 'node:child_process'];

// The import graph of src/ with type-only imports included (import-x/no-cycle skips them). Kept across the files
// of a run; a file is read again when its modification time changed (`checked` holds those seen this file).
const graph = new Map();
function importsOf(file, checked) {
  const known = graph.get(file);
  if (known && checked.has(file)) return known.targets;
  checked.add(file);
  const stamp = statSync(file).mtimeMs;
  if (known && known.stamp === stamp) return known.targets;
  const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  const targets = importedFiles
    .map((i) => i.fileName)
    .filter((name) => name.startsWith('.'))
    .map((name) => normalize(join(dirname(file), name)))
    .filter((target) => existsSync(target));
  graph.set(file, { stamp, targets });
  return targets;
}

/** A path from `from` back to `to` through the import graph, or undefined. */
function pathBack(from, to, checked) {
  const seen = new Set([from]);
  const queue = [[from]];
  while (queue.length > 0) {
    const route = queue.shift();
    for (const next of importsOf(route.at(-1), checked)) {
      if (next === to) return [...route, next];
      if (!seen.has(next)) {
        seen.add(next);
        queue.push([...route, next]);
      }
    }
  }
  return undefined;
}

const source = (node) => node.source?.value;
const importNodes = [
  'ImportDeclaration',
  'ExportNamedDeclaration',
  'ExportAllDeclaration',
  'ImportExpression',
];

/** Calls `check(node, resolvedPath)` for each relative import of the file, type-only ones included. */
function eachImport(context, check) {
  const file = context.physicalFilename;
  const visit = (node) => {
    const spec = source(node);
    if (typeof spec !== 'string' || !spec.startsWith('.')) return;
    const target = normalize(join(dirname(file), spec));
    if (existsSync(target)) check(node, target);
  };
  return Object.fromEntries(importNodes.map((type) => [type, visit]));
}

/** The package a module belongs to: its feature folder, or the nearest folder above it with an index.ts. */
function packageOf(target, src) {
  const parts = relative(src, target).split(sep);
  if (parts[0] === '..') return undefined;
  if (parts[0] === 'features' && parts.length > 2) return join(src, 'features', parts[1]);
  for (let folder = dirname(target); folder.startsWith(src + sep); folder = dirname(folder)) {
    if (existsSync(join(folder, 'index.ts'))) return folder;
  }
  return undefined;
}

const layering = {
  rules: {
    'no-cycle': {
      meta: {
        type: 'problem',
        messages: { cycle: 'Import cycle (type-only imports count): {{route}}. Point the arrow one way.' },
        schema: [],
      },
      create(context) {
        const file = context.physicalFilename;
        const root = context.cwd;
        const checked = new Set();
        return eachImport(context, (node, target) => {
          const route = pathBack(target, file, checked);
          if (route) {
            const shown = [file, ...route].map((f) => relative(root, f)).join(' -> ');
            context.report({ node, messageId: 'cycle', data: { route: shown } });
          }
        });
      },
    },
    'public-index': {
      meta: {
        type: 'problem',
        messages: {
          index:
            "Import {{package}} through its public index '{{index}}', not its internals: a feature folder, and " +
            'any folder with an index.ts, is seen from outside only through that index.',
        },
        schema: [],
      },
      create(context) {
        const file = context.physicalFilename;
        const src = join(context.cwd, 'src');
        return eachImport(context, (node, target) => {
          const folder = packageOf(target, src);
          if (!folder || file.startsWith(folder + sep) || target === join(folder, 'index.ts')) return;
          const index = relative(dirname(file), join(folder, 'index.ts'));
          context.report({
            node,
            messageId: 'index',
            data: { package: relative(context.cwd, folder), index },
          });
        });
      },
    },
  },
};

/** One folder's import restrictions: pattern groups plus forbidden module paths. */
function layer(files, patterns, paths = []) {
  return [{ files, rules: { 'no-restricted-imports': ['error', { paths, patterns }] } }];
}

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'bin/**', 'eslint.config.js', 'test/http/openapi/tour/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    files: ['src/**/*.ts'],
    plugins: { 'import-x': importX, layering },
    settings: {
      'import-x/extensions': ['.ts', '.js'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.js'] })],
    },
    rules: {
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      'layering/no-cycle': 'error',
      'layering/public-index': 'error',
    },
  },
  // Layering. A later block replaces an earlier block's options for the same rule, so each block lists its
  // folder's restrictions in full: every layer above it, and the packages it must not reach.
  ...layer(['src/features/**/*.ts'], [...above('features'), ...portOnly]),
  ...layer(['src/feature-kit/**/*.ts'], [...above('feature-kit'), ...portOnly]),
  ...layer(['src/cluster/**/*.ts'], [...above('cluster'), ...portOnly]),
  ...layer(['src/http/**/*.ts'], [...above('http'), ...portOnly]),
  ...layer(['src/guards/**/*.ts'], [...above('guards'), ...portOnly]),
  ...layer(['src/audit/**/*.ts'], [...above('audit'), ...portOnly]),
  ...layer(['src/targets/**/*.ts'], [...above('targets'), ...noHttp]),
  ...layer(['src/targets/ads/**/*.ts'], [...above('targets'), ...noHttp, ...noSimulator]),
  ...layer(['src/simulator/**/*.ts'], [...above('simulator'), ...noHttp]),
  ...layer(['src/simulator/engine/**/*.ts'], [...above('simulator'), ...noHttp, ...pureCore], pureCorePaths),
  ...layer(['src/config/**/*.ts'], [...above('config'), ...noHttp]),
  ...layer(['src/plc/**/*.ts'], [...above('plc'), ...noHttp, ...plcModel], pureCorePaths),
  ...layer(['src/errors.ts'], [...above('errors'), ...noHttp]),
  // The console talks to the gateway only through its public API: from src/ it may import types, nothing else.
  {
    files: ['console/**/*.ts', 'console/**/*.tsx'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/src/**'],
              allowTypeImports: true,
              message: 'The console imports only types from src/.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      // node:test's describe/it return promises the runner itself awaits.
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            {
              from: 'package',
              name: ['describe', 'it', 'test', 'suite', 'before', 'after', 'beforeEach', 'afterEach'],
              package: 'node:test',
            },
          ],
        },
      ],
    },
  },
);
