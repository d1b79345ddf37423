// PlcAlarms settings: every bad value fails start-up naming its setting; defaults and edges.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadConfig } from '../../src/config/load.ts';
import { ConfigError } from '../../src/config/schema.ts';
import { minimalSettings, writeSettings } from './helpers.ts';

function load(alarm: Record<string, unknown>, targets: object = { line1: { Mode: 'Simulated' } }) {
  return loadConfig(
    writeSettings({ ...minimalSettings, PlcTargets: targets, PlcAlarms: { Targets: { line1: alarm } } }),
    {},
  );
}

function problems(alarm: Record<string, unknown>, targets?: object): readonly string[] {
  try {
    load(alarm, targets);
  } catch (err) {
    assert.ok(err instanceof ConfigError, String(err));
    return err.problems;
  }
  return assert.fail('expected a ConfigError');
}

describe('PlcAlarms.Targets settings', () => {
  it('JournalLength is an integer from 1 to 1,000,000', () => {
    for (const n of [1, 1_000_000]) {
      assert.equal(
        load({ SymbolPath: 'GVL.a', JournalLength: n }).settings.PlcAlarms.Targets.line1?.JournalLength,
        n,
      );
    }
    assert.deepEqual(problems({ SymbolPath: 'GVL.a', JournalLength: 0 }), [
      'PlcAlarms.Targets.line1.JournalLength: must be at least 1',
    ]);
    assert.deepEqual(problems({ SymbolPath: 'GVL.a', JournalLength: 1_000_001 }), [
      'PlcAlarms.Targets.line1.JournalLength: must be at most 1000000',
    ]);
    assert.deepEqual(problems({ SymbolPath: 'GVL.a', JournalLength: 2.5 }), [
      'PlcAlarms.Targets.line1.JournalLength: must be an integer',
    ]);
  });

  it('SymbolPath is required; CycleTimeMs positive; PlcClock one of three; unknown keys refused', () => {
    assert.deepEqual(problems({}), ['PlcAlarms.Targets.line1.SymbolPath: is required']);
    assert.deepEqual(problems({ SymbolPath: 'GVL.a', CycleTimeMs: -5 }), [
      'PlcAlarms.Targets.line1.CycleTimeMs: must be at least 1',
    ]);
    assert.deepEqual(problems({ SymbolPath: 'GVL.a', PlcClock: 'UTC+1' }), [
      'PlcAlarms.Targets.line1.PlcClock: must be Unspecified, Utc or Local',
    ]);
    assert.deepEqual(problems({ SymbolPath: 'GVL.a', AcknowledgeMethod: '' }), [
      'PlcAlarms.Targets.line1.AcknowledgeMethod: must not be empty',
    ]);
    assert.deepEqual(problems({ SymbolPath: 'GVL.a', Clock: 'Utc' }), [
      'PlcAlarms.Targets.line1.Clock: unknown setting, not one of plc-gateway (check the spelling)',
    ]);
  });

  it('a target in the alarm section but not in PlcTargets fails start-up', () => {
    assert.deepEqual(problems({ SymbolPath: 'GVL.a' }, {}), [
      'PlcAlarms.Targets.line1: names no configured PLC (add PlcTargets.line1 or remove this entry)',
    ]);
  });

  it('defaults: CycleTimeMs 200, PlcClock Unspecified, AcknowledgeAlarm, JournalLength 10000', () => {
    assert.deepEqual(load({ SymbolPath: 'GVL.fbAlarms.aAlarms' }).settings.PlcAlarms.Targets.line1, {
      SymbolPath: 'GVL.fbAlarms.aAlarms',
      CycleTimeMs: 200,
      PlcClock: 'Unspecified',
      AcknowledgeMethod: 'AcknowledgeAlarm',
      JournalLength: 10000,
      Suppression: [],
    });
  });

  it('Suppression rules: exactly one of Equals, In, NotEquals; Keys not empty; nothing unknown', () => {
    const rule = (when: object, extra: object = {}) => ({
      SymbolPath: 'GVL.a',
      Suppression: [{ Keys: ['CONVEYOR_*'], When: { Symbol: 'GVL.nState', ...when }, ...extra }],
    });
    for (const when of [{ Equals: 3 }, { In: [3, 'Maintenance'] }, { NotEquals: true }]) {
      assert.equal(load(rule(when)).settings.PlcAlarms.Targets.line1?.Suppression.length, 1);
    }
    assert.deepEqual(problems(rule({})), [
      'PlcAlarms.Targets.line1.Suppression[0].When: needs exactly one of Equals, In or NotEquals',
    ]);
    assert.deepEqual(problems(rule({ Equals: 3, In: [4] })), [
      'PlcAlarms.Targets.line1.Suppression[0].When: needs exactly one of Equals, In or NotEquals, found Equals and In',
    ]);
    assert.match(
      problems(rule({ Equals: 3 }, { Keys: [] }))[0] ?? '',
      /^PlcAlarms\.Targets\.line1\.Suppression\[0\]\.Keys: /,
    );
    assert.match(problems(rule({ Equals: 3, Above: 2 }))[0] ?? '', /Above: unknown setting/);
  });
});

describe('PlcAlarms shelving settings', () => {
  const loadShelving = (shelving: object) =>
    loadConfig(
      writeSettings({
        ...minimalSettings,
        PlcTargets: { line1: { Mode: 'Simulated' } },
        PlcAlarms: { Targets: {}, ...shelving },
      }),
      {},
    );

  it('defaults: MaxShelveMinutes 480, MaxReasonLength 500, ShelvingJournalLength 1000', () => {
    const { MaxShelveMinutes, MaxReasonLength, ShelvingJournalLength } = loadShelving({}).settings.PlcAlarms;
    assert.deepEqual(
      { MaxShelveMinutes, MaxReasonLength, ShelvingJournalLength },
      { MaxShelveMinutes: 480, MaxReasonLength: 500, ShelvingJournalLength: 1000 },
    );
  });

  it('ShelvingStateFile resolves against the folder of the settings file', () => {
    const config = loadShelving({ ShelvingStateFile: 'data/shelving.json' });
    assert.equal(config.settings.PlcAlarms.ShelvingStateFile, `${config.contentRoot}/data/shelving.json`);
  });

  it('MaxShelveMinutes 1 to 525600 (a year), MaxReasonLength 1 to 4096', () => {
    assert.equal(loadShelving({ MaxShelveMinutes: 1 }).settings.PlcAlarms.MaxShelveMinutes, 1);
    assert.equal(loadShelving({ MaxShelveMinutes: 525_600 }).settings.PlcAlarms.MaxShelveMinutes, 525_600);
    for (const [setting, bad] of [
      ['MaxShelveMinutes', 0],
      ['MaxShelveMinutes', 525_601],
      ['MaxReasonLength', 0],
      ['MaxReasonLength', 4097],
      ['ShelvingJournalLength', 0],
    ] as const) {
      assert.throws(
        () => loadShelving({ [setting]: bad }),
        (err: Error) =>
          err instanceof ConfigError && err.problems.some((p) => p.startsWith(`PlcAlarms.${setting}: `)),
        `${setting} ${bad}`,
      );
    }
  });
});
