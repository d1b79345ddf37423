// InitialValues and scenarios declare arrays, structs (a struct of the scenario) and AT locations, so a
// test program written for TwinCAT tooling can be reproduced; bad declarations are listed at start-up.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Client } from 'ads-client';
import { ConfigError } from '../../../src/config/schema.ts';
import { createAdsServer } from '../../../src/simulator/ads-server/server.ts';
import { createSimulatedTarget } from '../../../src/targets/simulated/index.ts';
import { targetSettings, testConfig } from './helpers.ts';

const base = `contract: gvl-hmi/1
root: GVL_HMI
`;

function scenarioDir(extra: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'plc-gateway-scenario-'));
  writeFileSync(join(dir, 'machine.yaml'), base + extra);
  return dir;
}

const withTypes = `types:
  - name: ST_Foo
    members:
      - { name: nCount, type: INT }
      - { name: aRaw, type: 'ARRAY[0..3] OF BYTE' }
  - name: E_Light
    enum: [{ name: eOff, value: 0 }, { name: eOn, value: 5 }]
variables:
  GVL_Test.stFoo: { type: ST_Foo, value: { nCount: 5 }, location: '%MB2000' }
  GVL_Test.aLights: { type: 'ARRAY[1..2] OF E_Light', value: [eOn, eOff] }
  GVL_Test.nIn: { type: UINT, location: '%I*', value: 17 }
`;

describe('Declared arrays, structs and locations', () => {
  it('serves InitialValues of arrays, scenario structs and located symbols, over ADS too', async () => {
    const dir = scenarioDir(withTypes);
    const t = await createSimulatedTarget(
      'sim1',
      targetSettings({
        Scenario: dir,
        InitialValues: {
          'MAIN.aBuf': { type: 'ARRAY[0..1027] OF BYTE', location: '%MB0' },
          'MAIN.stFoo2': { type: 'ST_Foo', value: { nCount: 2, aRaw: [1, 2, 3, 4] } },
          'MAIN.aGrid': {
            type: 'ARRAY[0..1,0..1] OF LREAL',
            value: [
              [1, 2],
              [3, 4],
            ],
          },
          'MAIN.eMode': { type: 'E_MachineMode', value: 'eAuto' },
        },
      }),
      testConfig(),
    );
    await t.start();
    const server = createAdsServer({ plc: t.plc, port: 0 });
    const address = await server.listen();
    const client = new Client({
      targetAmsNetId: '127.0.0.1.1.1',
      targetAdsPort: 851,
      routerTcpPort: address.port,
      autoReconnect: false,
      hideConsoleWarnings: true,
    });
    try {
      assert.deepEqual((await t.read('MAIN.stFoo2')).value, { nCount: 2, aRaw: [1, 2, 3, 4] });
      assert.deepEqual((await t.read('MAIN.aGrid')).value, [
        [1, 2],
        [3, 4],
      ]);
      const raw = (path: string, size: number) => t.plc.readRaw(t.plc.resolve(path).offset, size);
      assert.equal(raw('MAIN.eMode', 2).readInt16LE(0), 10);
      assert.equal((await t.read('GVL_Test.stFoo.nCount')).value, 5);
      assert.deepEqual([...raw('GVL_Test.aLights', 4)], [5, 0, 0, 0]);
      assert.deepEqual(
        t.plc.program.areas.map((a) => [a.name, a.size]),
        [
          ['data', t.plc.program.size],
          ['M', 2008],
          ['I', 8],
          ['Q', 0],
        ],
      );
      await client.connect();
      const buf = await client.getSymbol('MAIN.aBuf');
      assert.deepEqual([buf.indexGroup, buf.indexOffset, buf.size], [0x4020, 0, 1028]);
      const foo = await client.getSymbol('GVL_Test.stFoo');
      assert.deepEqual([foo.indexGroup, foo.indexOffset], [0x4020, 2000]);
      assert.equal((await client.readValue('GVL_Test.nIn')).value, 17);
      assert.deepEqual((await client.readValue('MAIN.stFoo2')).value, { nCount: 2, aRaw: [1, 2, 3, 4] });
      const type = await client.getDataType('ST_Foo');
      assert.deepEqual(
        type.subItems.map((s) => s.name),
        ['nCount', 'aRaw'],
      );
    } finally {
      await client.disconnect().catch(() => undefined);
      await server.close();
      await t.close();
    }
  });

  it('lists bad InitialValues and bad scenario declarations by their paths', async () => {
    await assert.rejects(
      createSimulatedTarget(
        'sim1',
        targetSettings({
          Scenario: scenarioDir(withTypes),
          InitialValues: {
            'MAIN.a': { type: 'ST_Nope' },
            'MAIN.b': { type: 'BOOL', location: '%MX0.1' },
            'MAIN.c': { type: 'INT', location: '%Z7' },
            'MAIN.d': { type: 'ST_Foo', value: { nCount: 'x' } },
          },
        }),
        testConfig(),
      ),
      (err: unknown) => {
        assert.ok(err instanceof ConfigError);
        assert.equal(err.problems.length, 4);
        assert.match(
          err.problems[0] ?? '',
          /^PlcTargets\.sim1\.InitialValues\.MAIN\.a: unknown type 'ST_Nope'$/,
        );
        assert.match(err.problems[1] ?? '', /MAIN\.b: Location '%MX0\.1' addresses a bit/);
        assert.match(err.problems[2] ?? '', /MAIN\.c: Location '%Z7' is not %M, %I or %Q/);
        assert.match(err.problems[3] ?? '', /MAIN\.d: /);
        return true;
      },
    );
    const bad = `types:
  - name: ST_Bad
    members: [{ name: x, type: NOPE }]
  - name: E_Both
    members: [{ name: x, type: INT }]
    enum: [{ name: a, value: 1 }]
variables:
  GVL_Test.v: { type: 'ARRAY[0..1] OF INT', value: [1, 2, 3] }
`;
    await assert.rejects(
      createSimulatedTarget('sim1', targetSettings({ Scenario: scenarioDir(bad) }), testConfig()),
      (err: unknown) => {
        assert.ok(err instanceof ConfigError);
        assert.deepEqual(
          err.problems.map((p) => p.replace(/: .*$/, '')),
          ['PlcTargets.sim1.Scenario', 'PlcTargets.sim1.Scenario', 'PlcTargets.sim1.Scenario'],
        );
        assert.match(err.problems[0] ?? '', /\/types\/0: /);
        assert.match(
          err.problems[1] ?? '',
          /\/types\/1: a type declares either "members" \(a struct\) or "enum"/,
        );
        assert.match(err.problems[2] ?? '', /\/variables\/GVL_Test\.v: /);
        return true;
      },
    );
  });
});
