// A client generated from the OpenAPI document (openapi-typescript) type-checks the README tour (tour/tour.ts): list
// PLCs, read and write a variable, list and acknowledge alarms. Types are generated into a temporary folder; a tour
// operation or field that left the document fails the compile. A deliberately broken copy shows the check bites.
import { execFile } from 'node:child_process';
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { openApiDocument } from './document.ts';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '../../..');
const tour = resolve(import.meta.dirname, 'tour/tour.ts');

const tsconfig = {
  compilerOptions: {
    target: 'ES2023',
    lib: ['ES2023', 'DOM'],
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    strict: true,
    noEmit: true,
    allowImportingTsExtensions: true,
    skipLibCheck: true,
    types: [],
  },
  files: ['tour.ts'],
};

async function typecheck(dir: string): Promise<{ ok: boolean; output: string }> {
  try {
    await run(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', dir]);
    return { ok: true, output: '' };
  } catch (err) {
    const { stdout = '', stderr = '' } = err as { stdout?: string; stderr?: string };
    return { ok: false, output: stdout + stderr };
  }
}

describe('a client generated from the OpenAPI document', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'openapi-client-'));
    await writeFile(join(dir, 'openapi.json'), JSON.stringify(await openApiDocument()));
    await run(process.execPath, [
      join(root, 'node_modules/openapi-typescript/bin/cli.js'),
      join(dir, 'openapi.json'),
      '-o',
      join(dir, 'api.ts'),
    ]);
    await writeFile(join(dir, 'tsconfig.json'), JSON.stringify(tsconfig));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  test('the README tour type-checks against it', async () => {
    await copyFile(tour, join(dir, 'tour.ts'));
    const result = await typecheck(dir);
    assert.ok(result.ok, result.output);
  });

  test('an operation or a field the tour uses that is not in the document fails the check', async () => {
    const source = await readFile(tour, 'utf8');
    for (const [from, to] of [
      ["operations['getAlarms']", "operations['getAlarmList']"],
      ['data.acknowledged', 'data.done'],
    ] as const) {
      assert.ok(source.includes(from), from);
      await writeFile(join(dir, 'tour.ts'), source.replace(from, to));
      const result = await typecheck(dir);
      assert.ok(!result.ok, `${to} compiled`);
      assert.match(result.output, /error TS/);
    }
  });
});
