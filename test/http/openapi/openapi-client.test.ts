// A client generated from the OpenAPI document (openapi-typescript) type-checks the README tour (tour/tour.ts): list
// PLCs, read and write a variable, list and acknowledge alarms. Types are generated into a temporary folder; a tour
// operation or field that left the document fails the compile (a deliberately broken copy shows the check bites),
// and the tour runs against a gateway, so the document describes what the gateway answers.
import { execFile } from 'node:child_process';
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { pathToFileURL } from 'node:url';
import { arrayPath, entry, listen, startAlarmRig } from '../../features/alarms/fixture.ts';
import { mintToken } from '../../helpers/tokens.ts';
import { openApiDocument } from './document.ts';

/** The tour's interface as the test uses it (tour.ts itself compiles only against the generated types). */
interface TourClient {
  listPlcs(): Promise<Array<{ plcId: string; isConnected: boolean }>>;
  readVariable(plcId: string, path: string): Promise<{ value: unknown; typeName: string }>;
  writeVariable(plcId: string, path: string, value: unknown): Promise<unknown>;
  listAlarms(): Promise<Array<{ code: string; scope: string; needsAcknowledgement: boolean }>>;
  acknowledgeAlarm(plcId: string, code: string): Promise<boolean>;
}

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

describe('the tour client against a running gateway', () => {
  test('lists PLCs, writes and reads a variable, lists and acknowledges an alarm', async () => {
    // Loaded by path: the tour is compiled only against generated types (above), not with the test project.
    const { tourClient } = (await import(pathToFileURL(tour).href)) as {
      tourClient: (base: string, token: string) => TourClient;
    };
    const rig = await startAlarmRig('simulated');
    try {
      const client = tourClient(await listen(rig), await mintToken());
      assert.deepEqual(await client.listPlcs(), [{ plcId: 'line1', isConnected: true }]);
      const slot = `${arrayPath}[5]`;
      await client.writeVariable('line1', slot, entry({ sKey: 'TOUR' }));
      assert.deepEqual(await client.readVariable('line1', `${slot}.sKey`), {
        value: 'TOUR',
        typeName: 'STRING(80)',
      });
      await rig.settle();
      const alarms = await client.listAlarms();
      assert.ok(alarms.some((a) => a.code === 'TOUR' && a.scope === 'line1' && a.needsAcknowledgement));
      assert.equal(await client.acknowledgeAlarm('line1', 'TOUR'), true);
    } finally {
      await rig.close();
    }
  });
});
