// Lint rules, including the layering rules of the design (features never reach an adapter directly).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'bin/**', 'eslint.config.js'] },
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
    files: ['src/features/**/*.ts', 'src/http/**/*.ts', 'src/guards/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/targets/ads/**', 'ads-client'],
              message: 'Features reach PLCs only through the PlcTarget port.',
            },
            {
              group: ['**/simulator/engine/**', '**/simulator/ads-server/**'],
              message: 'Features reach PLCs only through the PlcTarget port.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/targets/**/*.ts', 'src/simulator/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['fastify', '@fastify/*', '**/http/**', '**/features/**'],
              message: 'Drivers never import HTTP.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/simulator/engine/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: ['node:net', 'net', 'node:fs', 'fs', 'node:fs/promises'],
          // The port's value shapes are shared with the engine; no adapter or HTTP code is.
          patterns: [
            { regex: '/targets/(?!target\\.ts$)', message: 'The engine is a pure core.' },
            { group: ['fastify', '@fastify/*'], message: 'The engine is a pure core.' },
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
