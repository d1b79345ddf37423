// The Rpc.Invokable allow-list and the method-call parser, as tables.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { compileAllowList, parseMethodCall } from '../../../src/features/methods/invokable.ts';

describe('parseMethodCall', () => {
  const cases: Array<[string, { instancePath: string; method: string } | undefined]> = [
    ['GVL.fbAlarms.AcknowledgeAlarm', { instancePath: 'GVL.fbAlarms', method: 'AcknowledgeAlarm' }],
    ['GVL.fbAlarms#AcknowledgeAlarm', { instancePath: 'GVL.fbAlarms', method: 'AcknowledgeAlarm' }],
    ['MAIN.fb.Reset', { instancePath: 'MAIN.fb', method: 'Reset' }],
    ['GVL.aFb[2].Reset', { instancePath: 'GVL.aFb[2]', method: 'Reset' }],
    ['GVL.aFb[1,2].Reset', { instancePath: 'GVL.aFb[1,2]', method: 'Reset' }],
    ['GVL.a.b#Run', { instancePath: 'GVL.a.b', method: 'Run' }],
    ['fb.M', { instancePath: 'fb', method: 'M' }],
    ['Reset', undefined],
    ['.Reset', undefined],
    ['GVL.fb.', undefined],
    ['GVL.fb#', undefined],
    ['#Reset', undefined],
    ['GVL.aFb[2]', undefined],
    ['GVL.fb.Re set', undefined],
    ['GVL.fb.1st', undefined],
    ['a#b#C', undefined],
  ];
  for (const [text, expected] of cases) {
    test(`${JSON.stringify(text)} -> ${JSON.stringify(expected)}`, () => {
      assert.deepEqual(parseMethodCall(text), expected);
    });
  }
});

describe('compileAllowList', () => {
  const call = (text: string) => parseMethodCall(text)!;
  const cases: Array<[patterns: string[], call: string, allowed: boolean]> = [
    [[], 'GVL.fb.Reset', false],
    [['GVL.fb.Reset'], 'GVL.fb.Reset', true],
    [['GVL.fb.Reset'], 'gvl.FB.reset', true],
    [['GVL.fb#Reset'], 'GVL.fb.Reset', true],
    [['GVL.fb.Reset'], 'GVL.fb#Reset', true],
    [['GVL.fb.Reset'], 'GVL.fb.ResetAll', false],
    [['GVL.fb.Reset'], 'GVL.fb2.Reset', false],
    [['GVL.fb.Reset'], 'X.GVL.fb.Reset', false],
    [['GVL.fb.Reset'], 'GVL.fb.sub.Reset', false],
    [['GVL.fb.*'], 'GVL.fb.Reset', true],
    [['GVL.fb.*'], 'GVL.fb.sub.Reset', false],
    [['GVL.*.Reset'], 'GVL.fbA.Reset', true],
    [['GVL.*.Reset'], 'GVL.aFb[3].Reset', true],
    [['GVL.*.Reset'], 'GVL.a.b.Reset', false],
    [['GVL.aFb[*].Reset'], 'GVL.aFb[12].Reset', true],
    [['GVL.aFb[*].Reset'], 'GVL.aFbX.Reset', false],
    [['GVL.aFb[1].Reset'], 'GVL.aFb[10].Reset', false],
    [['GVL.fb*.Run'], 'GVL.fbPump.Run', true],
    [['GVL.fb*.Run'], 'GVL.xfb.Run', false],
    [['GVL.**'], 'GVL.a.b.c.Run', true],
    [['GVL.**'], 'GVL_Other.a.Run', false],
    [['**.Reset'], 'A.b[1].Reset', true],
    [['**.Reset'], 'A.b.Run', false],
    [['**'], 'Any.thing.At.All', true],
    [['GVL.f?.Reset'], 'GVL.fb.Reset', false],
    [['GVL.f(b).Reset'], 'GVL.fb.Reset', false],
    [['A.x.Run', 'B.y.Stop'], 'B.y.Stop', true],
    [['A.x.Run', 'B.y.Stop'], 'B.y.Run', false],
    [['  GVL.fb.Reset  '], 'GVL.fb.Reset', true],
  ];
  for (const [patterns, text, allowed] of cases) {
    test(`${JSON.stringify(patterns)} ${allowed ? 'allows' : 'denies'} ${text}`, () => {
      assert.equal(compileAllowList(patterns)(call(text)), allowed);
    });
  }
});
