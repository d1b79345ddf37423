import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError } from '../../../src/config/schema.ts';
import { createSimulatedTarget } from '../../../src/targets/simulated/index.ts';
import { targetSettings, testConfig } from './helpers.ts';

async function target(values: Record<string, unknown>) {
  const t = await createSimulatedTarget(
    'sim1',
    targetSettings({ InitialValues: values as never }),
    testConfig(),
  );
  await t.start();
  return t;
}

describe('InitialValues', () => {
  it('declares typed symbols with values or type defaults', async () => {
    const t = await target({
      'MAIN.Speed': { value: 1500, type: 'DINT' },
      'MAIN.tDelay': { type: 'time' },
      'MAIN.sName': 'Line 1',
      'MAIN.sLong': 'x'.repeat(100),
      'MAIN.nBig': { value: '-9223372036854775808', type: 'lint' },
      'MAIN.dtStart': { value: '2024-05-01T08:00:00Z', type: 'DATE_AND_TIME' },
      'MAIN.wsText': { value: 'ü', type: 'WSTRING(10)' },
      'MAIN.sShort': { value: 'abc', type: 'STRING(3)' },
      Flag: { value: true, type: 'Bool' },
    });
    const read = async (p: string) => {
      const r = await t.read(p);
      return [r.value, r.typeName];
    };
    assert.deepEqual(await read('MAIN.Speed'), [1500, 'DINT']);
    assert.deepEqual(await read('main.tdelay'), [0, 'TIME']);
    assert.deepEqual(await read('MAIN.sName'), ['Line 1', 'STRING(80)']);
    assert.deepEqual(await read('MAIN.sLong'), ['x'.repeat(100), 'STRING(100)']);
    assert.deepEqual(await read('MAIN.nBig'), ['-9223372036854775808', 'LINT']);
    assert.deepEqual(await read('MAIN.dtStart'), ['2024-05-01T08:00:00.000Z', 'DT']);
    assert.deepEqual(await read('MAIN.wsText'), ['ü', 'WSTRING(10)']);
    assert.deepEqual(await read('MAIN.sShort'), ['abc', 'STRING(3)']);
    assert.deepEqual(await read('flag'), [true, 'BOOL']);
  });

  it('lists every bad entry by its settings path', async () => {
    await assert.rejects(
      createSimulatedTarget(
        'line2',
        targetSettings({
          InitialValues: {
            'MAIN.ok': { value: 1, type: 'INT' },
            'MAIN.a': { value: 1, type: 'FLOAT' },
            'MAIN.b': { value: 70000, type: 'INT' },
            'MAIN.c': { value: 5 },
            'MAIN.d': 12,
            'MAIN.e': { value: 'x', type: 'E_ErrorType' },
            'MAIN.f': 'snow ☃',
            'MAIN.g': { value: 'toolong', type: 'STRING(3)' },
            'bad name': { value: 1, type: 'INT' },
            'GVL_Sim.eMachineMode': { value: 1, type: 'INT' },
          } as never,
        }),
        testConfig(),
      ),
      (err: unknown) => {
        assert.ok(err instanceof ConfigError);
        assert.deepEqual(err.problems, [
          "PlcTargets.line2.InitialValues.MAIN.a: unknown type 'FLOAT'",
          'PlcTargets.line2.InitialValues.MAIN.b: 70000 is outside INT (-32768..32767)',
          'PlcTargets.line2.InitialValues.MAIN.c: a value needs a "type"',
          'PlcTargets.line2.InitialValues.MAIN.d: a value needs a "type" (only a bare string defaults to STRING)',
          "PlcTargets.line2.InitialValues.MAIN.e: 'x' is not a member of E_ErrorType (NONE, INFO, WARNING, ERROR)",
          "PlcTargets.line2.InitialValues.MAIN.f: character '☃' is not in code page 1252 (STRING)",
          'PlcTargets.line2.InitialValues.MAIN.g: 7 characters do not fit STRING(3)',
          'PlcTargets.line2.InitialValues.bad name: not a valid symbol name (identifiers separated by dots)',
          'PlcTargets.line2.InitialValues.GVL_Sim.eMachineMode: a symbol of this name already exists',
        ]);
        return true;
      },
    );
  });
});
