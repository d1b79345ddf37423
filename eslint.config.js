// Lint rules, including the layering rules of the design (features never reach an adapter directly).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import importX, { createNodeResolver } from 'eslint-plugin-import-x';

const portOnly = [
  {
    group: ['**/targets/ads/**', 'ads-client', '**/simulator/**', '**/plc/ads/**'],
    message: 'Features reach PLCs only through the PlcTarget port.',
  },
];
const noHttp = [
  {
    group: ['fastify', '@fastify/*', '**/http/**', '**/guards/**', '**/features/**', '**/cli/**'],
    message: 'Drivers and the simulator never import HTTP.',
  },
];
const noTargets = [
  { group: ['**/targets/**'], message: 'The simulator stands alone: share PLC code through src/plc.' },
];
const noSimulator = [
  { group: ['**/simulator/**'], message: 'The ADS driver never reaches into the simulator: use src/plc.' },
];
const pureCore = [{ group: ['ads-client', 'yaml'], message: 'The engine is a pure core.' }];
const plcModel = [
  {
    group: ['**/config/**', 'ads-client', 'yaml'],
    message: 'src/plc is the bottom layer: it imports nothing above it.',
  },
];
const pureCorePaths = ['node:net', 'net', 'node:fs', 'fs', 'node:fs/promises', 'node:child_process'];

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
    plugins: { 'import-x': importX },
    settings: {
      'import-x/extensions': ['.ts', '.js'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.js'] })],
    },
    rules: { 'import-x/no-cycle': ['error', { ignoreExternal: true }] },
  },
  // Layering. A later block replaces an earlier block's options for the same rule, so each block lists its
  // folder's restrictions in full, built from the layers below it.
  ...layer(['src/features/**/*.ts', 'src/http/**/*.ts', 'src/guards/**/*.ts'], portOnly),
  ...layer(['src/targets/**/*.ts'], noHttp),
  ...layer(['src/targets/ads/**/*.ts'], [...noHttp, ...noSimulator]),
  ...layer(['src/simulator/**/*.ts'], [...noHttp, ...noTargets]),
  ...layer(['src/simulator/engine/**/*.ts'], [...noHttp, ...noTargets, ...pureCore], pureCorePaths),
  ...layer(['src/plc/**/*.ts'], [...noHttp, ...noTargets, ...noSimulator, ...plcModel], pureCorePaths),
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
