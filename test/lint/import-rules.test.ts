// The repository's own lint configuration refuses an import cycle anywhere in src/ and a back-edge between the
// layers (the simulator reaching up into the gateway). The configuration is copied as it is into a temporary
// tree (with the repository's node_modules linked) and probe modules are linted there, so the checkout is
// never touched; only the import rules run, so no type information is needed.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { ESLint } from 'eslint';

const checkout = resolve(import.meta.dirname, '..', '..');
const repo = mkdtempSync(join(tmpdir(), 'plc-lint-'));
for (const file of ['eslint.config.js', 'package.json']) copyFileSync(join(checkout, file), join(repo, file));
symlinkSync(join(checkout, 'node_modules'), join(repo, 'node_modules'), 'dir');
const probeDir = join(repo, 'src', 'probe');
const importRules = new Set(['import-x/no-cycle', 'no-restricted-imports']);

const eslint = new ESLint({
  cwd: repo,
  ruleFilter: ({ ruleId }) => importRules.has(ruleId),
  // The type-aware rules are filtered out, so the probes need no TypeScript program.
  overrideConfig: { languageOptions: { parserOptions: { projectService: false, project: null } } },
});

/** Writes the probe modules (name -> source) and lints the first; answers its import-rule messages. */
async function lintProbe(
  files: Record<string, string>,
): Promise<Array<{ ruleId: string | null; message: string }>> {
  rmSync(probeDir, { recursive: true, force: true });
  for (const [name, source] of Object.entries(files)) {
    mkdirSync(join(probeDir, name, '..'), { recursive: true });
    writeFileSync(join(probeDir, name), source);
  }
  const [first] = Object.keys(files);
  assert.ok(first);
  const [result] = await eslint.lintFiles([relative(repo, join(probeDir, first))]);
  assert.ok(result);
  return result.messages.map(({ ruleId, message }) => ({ ruleId, message }));
}

describe('import rules of eslint.config.js', () => {
  after(() => rmSync(probeDir, { recursive: true, force: true }));

  it('passes modules that import one way', async () => {
    const messages = await lintProbe({
      'a.ts': "import { b } from './b.ts';\nexport const a = (): number => b + 1;\n",
      'b.ts': 'export const b = 1;\n',
    });
    assert.deepEqual(messages, []);
  });

  it('fails on an import cycle', async () => {
    const messages = await lintProbe({
      'a.ts': "import { b } from './b.ts';\nexport const a = (): number => b() + 1;\n",
      'b.ts': "import { a } from './a.ts';\nexport const b = (): number => a() - 1;\n",
    });
    assert.deepEqual(
      messages.map((m) => m.ruleId),
      ['import-x/no-cycle'],
      JSON.stringify(messages),
    );
  });

  it('fails on a cycle through a third module', async () => {
    const messages = await lintProbe({
      'a.ts': "import { b } from './b.ts';\nexport const a = (): number => b() + 1;\n",
      'b.ts': "import { c } from './nested/c.ts';\nexport const b = (): number => c() + 1;\n",
      'nested/c.ts': "import { a } from '../a.ts';\nexport const c = (): number => a() - 2;\n",
    });
    assert.deepEqual(
      messages.map((m) => m.ruleId),
      ['import-x/no-cycle'],
    );
  });
});

describe('layering rules of eslint.config.js', () => {
  const probe = join(repo, 'src', 'simulator', 'engine', 'probe.ts');
  after(() => rmSync(repo, { recursive: true, force: true }));

  const lint = async (source: string): Promise<Array<string | null>> => {
    mkdirSync(join(probe, '..'), { recursive: true });
    writeFileSync(probe, source);
    const [result] = await eslint.lintFiles([relative(repo, probe)]);
    assert.ok(result);
    return result.messages.map((m) => m.ruleId);
  };

  it('lets the engine import the PLC model below it', async () => {
    assert.deepEqual(await lint("export type { PrimitiveType } from '../../plc/types.ts';\n"), []);
  });

  it('refuses the engine an import of the gateway above it: targets, HTTP, guards', async () => {
    for (const path of ['../../targets/target.ts', '../../http/envelope.ts', '../../guards/principal.ts']) {
      assert.deepEqual(await lint(`export type * from '${path}';\n`), ['no-restricted-imports'], path);
    }
  });
});
