// The layering rules of eslint.config.js for every layer: an import cycle fails even when its imports are
// type-only, a lower layer importing a higher one fails with a message saying which way the arrow points, and a
// feature, or any folder with an index.ts, is reached from outside only through that index. Probe modules are
// linted in a temporary copy of the configuration (the repository's node_modules linked), so the checkout is never
// touched.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ESLint } from 'eslint';

const checkout = resolve(import.meta.dirname, '..', '..');
const repo = mkdtempSync(join(tmpdir(), 'plc-layers-'));
for (const file of ['eslint.config.js', 'package.json']) copyFileSync(join(checkout, file), join(repo, file));
symlinkSync(join(checkout, 'node_modules'), join(repo, 'node_modules'), 'dir');
const rules = new Set(['layering/no-cycle', 'layering/public-index', 'no-restricted-imports']);

const eslint = new ESLint({
  cwd: repo,
  ruleFilter: ({ ruleId }) => rules.has(ruleId),
  overrideConfig: { languageOptions: { parserOptions: { projectService: false, project: null } } },
});

/** Writes the modules (path under src/ -> source), lints the first, and removes them again. */
async function lint(
  files: Record<string, string>,
): Promise<Array<{ ruleId: string | null; message: string }>> {
  const paths = Object.keys(files).map((name) => join(repo, 'src', name));
  Object.values(files).forEach((text, i) => {
    mkdirSync(join(paths[i]!, '..'), { recursive: true });
    writeFileSync(paths[i]!, text);
  });
  try {
    const [result] = await eslint.lintFiles([paths[0]!]);
    assert.ok(result);
    return result.messages.map(({ ruleId, message }) => ({ ruleId, message }));
  } finally {
    rmSync(join(repo, 'src'), { recursive: true, force: true });
  }
}

after(() => rmSync(repo, { recursive: true, force: true }));

describe('layering/no-cycle', () => {
  it('fails on a cycle of type-only imports, naming the route', async () => {
    const messages = await lint({
      'http/a.ts': "import type { B } from './b.ts';\nexport type A = { b?: B };\n",
      'http/b.ts': "import type { A } from './a.ts';\nexport type B = { a?: A };\n",
    });
    assert.deepEqual(
      messages.map((m) => m.ruleId),
      ['layering/no-cycle'],
    );
    assert.match(messages[0]!.message, /src\/http\/a\.ts -> src\/http\/b\.ts -> src\/http\/a\.ts/);
  });

  it('passes type-only imports that point one way', async () => {
    const messages = await lint({
      'http/a.ts': "import type { B } from './b.ts';\nexport type A = { b?: B };\n",
      'http/b.ts': 'export type B = { n: number };\n',
    });
    assert.deepEqual(messages, []);
  });
});

describe('layer direction', () => {
  const cases: Array<[string, string, string]> = [
    ['cluster/probe.ts', '../features/alarms/index.ts', 'features'],
    ['cluster/probe.ts', '../feature-kit/feature-context.ts', 'feature-kit'],
    ['http/probe.ts', '../cluster/cluster.ts', 'cluster'],
    ['http/probe.ts', '../feature-kit/feature-context.ts', 'feature-kit'],
    ['guards/probe.ts', '../http/protocol-rules.ts', 'http'],
    ['feature-kit/probe.ts', '../features/ethercat/index.ts', 'features'],
    ['features/alarms/probe.ts', '../../app.ts', 'entry points'],
    ['audit/probe.ts', '../guards/principal.ts', 'guards'],
    ['targets/probe.ts', '../audit/store.ts', 'audit'],
    ['plc/probe.ts', '../config/schema.ts', 'config'],
  ];
  for (const [file, path, layer] of cases) {
    it(`refuses src/${file} an import of ${layer}, saying the arrow points down`, async () => {
      const messages = await lint({ [file]: `export type * from '${path}';\n` });
      assert.deepEqual(
        messages.map((m) => m.ruleId),
        ['no-restricted-imports'],
      );
      assert.match(messages[0]!.message, new RegExp(`below ${layer}: imports point down only`));
    });
  }

  it('lets a layer import the layers below it', async () => {
    for (const [file, path] of [
      ['features/alarms/probe.ts', '../../feature-kit/feature-context.ts'],
      ['feature-kit/probe.ts', '../cluster/start-cluster.ts'],
      ['cluster/probe.ts', '../http/streams/stream-ledger.ts'],
      ['http/probe.ts', '../guards/principal.ts'],
      ['guards/probe.ts', '../targets/target.ts'],
    ]) {
      assert.deepEqual(await lint({ [file!]: `export type * from '${path}';\n` }), [], file);
    }
  });
});

describe('layering/public-index', () => {
  it("refuses a feature another feature's internals", async () => {
    const messages = await lint({
      'features/mcp/probe.ts': "export { listPlcs } from '../plcs/service.ts';\n",
      'features/plcs/service.ts': 'export const listPlcs = (): string[] => [];\n',
      'features/plcs/index.ts': "export { listPlcs } from './service.ts';\n",
    });
    assert.deepEqual(
      messages.map((m) => m.ruleId),
      ['layering/public-index'],
    );
    assert.match(
      messages[0]!.message,
      /src\/features\/plcs through its public index '\.\.\/plcs\/index\.ts'/,
    );
  });

  it("refuses a module outside a folder with an index.ts that folder's internals", async () => {
    const messages = await lint({
      'targets/probe.ts': "export { layout } from '../plc/layout.ts';\n",
      'plc/layout.ts': 'export const layout = 1;\n',
      'plc/index.ts': "export { layout } from './layout.ts';\n",
    });
    assert.deepEqual(
      messages.map((m) => m.ruleId),
      ['layering/public-index'],
    );
    assert.match(messages[0]!.message, /src\/plc through its public index '\.\.\/plc\/index\.ts'/);
  });

  it('lets a module import its own package directly, and a folder without an index.ts file by file', async () => {
    const messages = await lint({
      'targets/ads/probe.ts':
        "export { a } from './a.ts';\nexport { schema } from '../../config/schema.ts';\n",
      'targets/ads/a.ts': 'export const a = 1;\n',
      'targets/ads/index.ts': "export { a } from './a.ts';\n",
      'config/schema.ts': 'export const schema = 1;\n',
    });
    assert.deepEqual(messages, []);
  });

  it('lets a feature import another through its index, and its own modules directly', async () => {
    const messages = await lint({
      'features/mcp/probe.ts': "export { listPlcs } from '../plcs/index.ts';\nexport { x } from './x.ts';\n",
      'features/mcp/x.ts': 'export const x = 1;\n',
      'features/plcs/service.ts': 'export const listPlcs = (): string[] => [];\n',
      'features/plcs/index.ts': "export { listPlcs } from './service.ts';\n",
    });
    assert.deepEqual(messages, []);
  });
});
