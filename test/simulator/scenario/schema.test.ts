// machine.yaml validation: schema edges and cross-field rules, every problem located by JSON Pointer.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { formatProblem, validateScenario } from '../../../src/simulator/scenario/index.ts';
import { scenarioDoc } from './helpers.ts';

function problems(doc: Record<string, unknown>): string[] {
  const result = validateScenario(structuredClone(doc));
  return result.ok ? [] : result.problems.map(formatProblem);
}

const axis = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  unit: 'mm',
  limits: { min: 0, max: 10, vmax: 1, amax: 1 },
  start: { position: 0 },
  ...extra,
});

describe('scenario schema', () => {
  test('a minimal scenario gets every default', () => {
    const result = validateScenario({ contract: 'gvl-hmi/1', root: 'GVL_HMI' });
    assert.ok(result.ok);
    assert.deepEqual(result.scenario, {
      contract: 'gvl-hmi/1',
      root: 'GVL_HMI',
      scanMs: 100,
      maxAxes: 16,
      parts: [],
      machine: { state: 1, mode: 0, speed: 0, speedSetpoint: 0, activeRecipeId: 0, activeRecipeVersion: 0 },
      axes: [],
      alarms: [],
      script: [],
      types: [],
      variables: {},
    });
  });

  test('axis defaults: unit, enabled, homed', () => {
    const result = validateScenario(
      scenarioDoc({
        axes: [{ id: 'a', limits: { min: 0, max: 1, vmax: 1, amax: 1 }, start: { position: 0 } }],
      }),
    );
    assert.ok(result.ok);
    assert.deepEqual(result.scenario.axes[0], {
      id: 'a',
      unit: '',
      limits: { min: 0, max: 1, vmax: 1, amax: 1 },
      start: { position: 0, enabled: true, homed: true },
    });
  });

  const edges: Array<[string, Record<string, unknown>, string[]]> = [
    ['scanMs 9', { scanMs: 9 }, ['/scanMs: must be >= 10']],
    ['scanMs 10', { scanMs: 10 }, []],
    ['scanMs 1000', { scanMs: 1000 }, []],
    ['scanMs 1001', { scanMs: 1001 }, ['/scanMs: must be <= 1000']],
    ['scanMs 1.5', { scanMs: 1.5 }, ['/scanMs: must be integer', '/scanMs: must be >= 10']],
    ['axis id of 15 characters', { parts: [], axes: [axis('a'.repeat(15))] }, []],
    [
      'axis id of 16 characters',
      { parts: [], axes: [axis('a'.repeat(16))] },
      ['/axes/0/id: must NOT have more than 15 characters'],
    ],
    ['unit of 7 characters', { parts: [], axes: [axis('a', { unit: 'mm/s^2x' })] }, []],
    [
      'unit of 8 characters',
      { parts: [], axes: [axis('a', { unit: 'mm/s^2xx' })] },
      ['/axes/0/unit: must NOT have more than 7 characters'],
    ],
    ['8 parts', { parts: ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'], axes: [] }, []],
    [
      '9 parts',
      { parts: ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'], axes: [] },
      ['/parts: must NOT have more than 8 items'],
    ],
    ['duplicate part', { parts: ['a', 'b', 'a'], axes: [] }, ['/parts/2: duplicates /parts/0 ("a")']],
    [
      'part name of 16 characters',
      { parts: ['p'.repeat(16)], axes: [] },
      ['/parts/0: must NOT have more than 15 characters'],
    ],
    [
      'maxAxes below the axis count',
      { parts: [], maxAxes: 1, axes: [axis('a'), axis('b')] },
      ['/maxAxes: must be at least 2, the number of axes declared (it is 1)'],
    ],
    [
      'default maxAxes 16 with 17 axes',
      { parts: [], axes: Array.from({ length: 17 }, (_, i) => axis(`a${i}`)) },
      ['/maxAxes: must be at least 17, the number of axes declared (it is 16)'],
    ],
    ['maxAxes 0', { maxAxes: 0 }, ['/maxAxes: must be >= 1']],
    [
      'vmax 0',
      {
        parts: [],
        axes: [axis('a'), axis('b'), axis('c', { limits: { min: 0, max: 1, vmax: 0, amax: 1 } })],
      },
      ['/axes/2/limits/vmax: must be > 0'],
    ],
    [
      'amax negative',
      { parts: [], axes: [axis('a', { limits: { min: 0, max: 1, vmax: 1, amax: -1 } })] },
      ['/axes/0/limits/amax: must be > 0'],
    ],
    [
      'min not below max',
      { parts: [], axes: [axis('a', { limits: { min: 5, max: 5, vmax: 1, amax: 1 } })] },
      ['/axes/0/limits/max: must be greater than min (5)'],
    ],
    [
      'start outside the limits',
      { parts: [], axes: [axis('a', { start: { position: 11, targetPos: -1 } })] },
      [
        '/axes/0/start/position: must be within the limits 0..10',
        '/axes/0/start/targetPos: must be within the limits 0..10',
      ],
    ],
    [
      'undeclared part',
      { parts: ['cell'], axes: [axis('arm.x')] },
      ['/axes/0/id: part "arm" is not declared in /parts'],
    ],
    [
      'duplicate axis id',
      { parts: [], axes: [axis('a'), axis('a')] },
      ['/axes/1/id: duplicates /axes/0/id ("a")'],
    ],
    ['unknown top-level key', { colour: 'red' }, ['/colour: is not a known key']],
    [
      'unknown nested key',
      { parts: [], axes: [axis('a', { speed: 1 })] },
      ['/axes/0/speed: is not a known key'],
    ],
    ['wrong contract', { contract: 'gvl-hmi/2' }, ['/contract: must be exactly "gvl-hmi/1"']],
    [
      'root not an identifier',
      { root: 'GVL HMI' },
      ['/root: must be an IEC identifier (a letter or _, then letters, digits or _)'],
    ],
    ['missing root', { root: undefined }, ['/root: is required']],
    [
      'machine state 4',
      { machine: { state: 4 } },
      ['/machine/state: must be 0 (Running), 1 (Idle), 2 (Fault) or 3 (Maintenance)'],
    ],
    ['mode outside INT', { machine: { mode: 40000 } }, ['/machine/mode: must be <= 32767']],
    [
      'missing limits',
      { parts: [], axes: [{ id: 'a', start: { position: 0 } }] },
      ['/axes/0/limits: is required'],
    ],
    [
      'unit with a control character',
      { parts: [], axes: [axis('a', { unit: 'm\tm' })] },
      ['/axes/0/unit: must contain only printable Latin-1 characters'],
    ],
  ];
  for (const [name, extra, expected] of edges) {
    test(name, () => {
      const doc = scenarioDoc(extra);
      for (const [k, v] of Object.entries(extra)) if (v === undefined) delete doc[k];
      assert.deepEqual(problems(doc), expected);
    });
  }

  test('every problem is reported at once', () => {
    const list = problems(
      scenarioDoc({
        scanMs: 5,
        parts: ['a', 'a'],
        machine: { state: 9 },
        axes: [axis('x', { unit: 'too long!' })],
      }),
    );
    assert.equal(list.length, 4, list.join('\n'));
  });
});

describe('scenario alarms and script', () => {
  const alarms = [{ key: 'HOT', equipment: 'oven', errorCode: 5, errorType: 'WARNING' }];
  const cases: Array<[string, Record<string, unknown>, string[]]> = [
    [
      'valid steps',
      {
        alarms,
        script: [
          { atCycle: 1, raise: 'HOT' },
          { atMs: 500, clear: 'HOT' },
          { atCycle: 3, every: 10, set: { path: 'aAxes[1].rTargetPos', value: 5 } },
          { atCycle: 9, fail: 'boom' },
        ],
      },
      [],
    ],
    [
      'bad errorType',
      { alarms: [{ key: 'A', errorType: 'FATAL' }] },
      ['/alarms/0/errorType: must be NONE, INFO, WARNING or ERROR'],
    ],
    [
      'duplicate alarm key',
      { alarms: [{ key: 'A' }, { key: 'A' }] },
      ['/alarms/1/key: duplicates /alarms/0/key ("A")'],
    ],
    [
      'raise of an unknown key',
      { alarms, script: [{ atCycle: 1, raise: 'COLD' }] },
      ['/script/0/raise: no alarm with key "COLD" in /alarms'],
    ],
    [
      'two triggers',
      { script: [{ atCycle: 1, atMs: 100, fail: 'x' }] },
      ['/script/0: must have exactly one of atCycle, atMs'],
    ],
    [
      'no action',
      { script: [{ atCycle: 1 }] },
      ['/script/0: must have exactly one of set, raise, clear, fail, ethercat'],
    ],
    [
      'two actions',
      { alarms, script: [{ atCycle: 1, raise: 'HOT', fail: 'x' }] },
      ['/script/0: must have exactly one of set, raise, clear, fail, ethercat'],
    ],
    [
      'every and everyMs',
      { script: [{ atCycle: 1, every: 2, everyMs: 200, fail: 'x' }] },
      ['/script/0: must have at most one of every, everyMs'],
    ],
    ['atCycle 0', { script: [{ atCycle: 0, fail: 'x' }] }, ['/script/0/atCycle: must be >= 1']],
    [
      'set of a runtime-owned symbol',
      { script: [{ atCycle: 1, set: { path: 'stRev.nHeader', value: 1 } }] },
      ['/script/0/set/path: must be stMachine.<member>, aAxes[<i>].<member> or aParts[<i>]'],
    ],
    [
      'set of an unknown member',
      { script: [{ atCycle: 1, set: { path: 'stMachine.nSpeed', value: 1 } }] },
      ['/script/0/set/path: stMachine has no member nSpeed'],
    ],
    [
      'set beyond maxAxes',
      { script: [{ atCycle: 1, set: { path: 'aAxes[17].rTargetPos', value: 1 } }] },
      ['/script/0/set/path: axis index must be 1..16'],
    ],
    [
      'set of a wrong value type',
      { script: [{ atCycle: 1, set: { path: 'aAxes[1].bEnabled', value: 1 } }] },
      ['/script/0/set/value: must be a boolean for BOOL'],
    ],
    [
      'set out of INT range',
      { script: [{ atCycle: 1, set: { path: 'stMachine.nMode', value: 70000 } }] },
      ['/script/0/set/value: must be an integer -32768..32767 for INT'],
    ],
    [
      'set of a too long part name',
      { script: [{ atCycle: 1, set: { path: 'aParts[2]', value: 'x'.repeat(16) } }] },
      ['/script/0/set/value: must be at most 15 characters for STRING(15)'],
    ],
  ];
  for (const [name, extra, expected] of cases) {
    test(name, () => assert.deepEqual(problems(scenarioDoc(extra)), expected));
  }
});
