// The symbol entries of History and Mqtt are one definition (same problems for the same bad entry in either), and
// Mqtt.Targets names PLCs as the rest of the settings do: ignoring case, spelled as PlcTargets spells them, every
// unknown one listed when the settings load.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadConfig } from '../../src/config/load.ts';
import { minimalSettings, problemsOf, writeSettings } from './helpers.ts';

const plcs = { line1: { Mode: 'Simulated' }, Line2: { Mode: 'Simulated' } };

function load(settings: Record<string, unknown>) {
  return loadConfig(writeSettings({ ...minimalSettings, PlcTargets: plcs, ...settings }), {});
}

const badEntry = { Path: '', Mode: 'Sometimes', CycleTimeMs: 0, Deadband: -1, MaxIntervalSeconds: 1.5, X: 1 };

/** The problems of `entry` in `section`, with the section's prefix taken off. */
function entryProblems(section: 'History' | 'Mqtt', entry: object): string[] {
  const settings =
    section === 'History'
      ? { Features: { History: true }, History: { Targets: { line1: { Symbols: [entry] } } } }
      : { Mqtt: { Enabled: true, Targets: { line1: { Symbols: [entry] } } } };
  const prefix = `${section}.Targets.line1.Symbols[0]`;
  return problemsOf(() => load(settings))
    .map((p) => {
      assert.ok(p.startsWith(prefix), p);
      return p.slice(prefix.length);
    })
    .sort();
}

describe('symbol entries (History and Mqtt share one)', () => {
  it('reports the same problems for the same bad entry in History and in Mqtt', () => {
    const history = entryProblems('History', badEntry);
    assert.deepEqual(history, [
      '.CycleTimeMs: must be at least 1',
      '.Deadband: must be at least 0',
      '.MaxIntervalSeconds: must be an integer',
      '.Mode: must be OnChange or Cyclic',
      '.Path: must not be empty',
      '.X: unknown setting, not one of plc-gateway (check the spelling)',
    ]);
    assert.deepEqual(entryProblems('Mqtt', badEntry), history);
    assert.deepEqual(entryProblems('Mqtt', {}), entryProblems('History', {}));
  });

  it('fills the same defaults in both, and takes the edges (CycleTimeMs 1, Deadband 0, MaxIntervalSeconds 0)', () => {
    const entry = { Path: 'MAIN.a[*]' };
    const edges = { Path: 'MAIN.b', Mode: 'Cyclic', CycleTimeMs: 1, Deadband: 0, MaxIntervalSeconds: 0 };
    const config = load({
      Features: { History: true },
      History: { Targets: { line1: { Symbols: [entry, edges] } } },
      Mqtt: { Enabled: true, Targets: { line1: { Symbols: [entry, edges] } } },
    });
    const defaults = {
      Path: 'MAIN.a[*]',
      Mode: 'OnChange',
      CycleTimeMs: 1000,
      Deadband: 0,
      MaxIntervalSeconds: 0,
    };
    assert.deepEqual(config.settings.History.Targets.line1?.Symbols, [defaults, edges]);
    assert.deepEqual(config.settings.Mqtt.Targets.line1?.Symbols, [defaults, edges]);
  });
});

describe('Mqtt.Targets plcIds', () => {
  it('matches plcIds ignoring case and keys each target as PlcTargets spells it', () => {
    const config = load({
      Mqtt: { Enabled: true, Targets: { LINE1: { Alarms: true }, line2: { Symbols: [{ Path: 'MAIN' }] } } },
    });
    assert.deepEqual(Object.keys(config.settings.Mqtt.Targets).sort(), ['Line2', 'line1']);
    assert.equal(config.settings.Mqtt.Targets.line1?.Alarms, true);
    assert.equal(config.settings.Mqtt.Targets.Line2?.Symbols[0]?.Path, 'MAIN');
  });

  it('lists every unknown plcId and every case twin when the settings load', () => {
    const problems = problemsOf(() =>
      load({ Mqtt: { Enabled: true, Targets: { line1: {}, Line1: {}, line9: {}, press: {} } } }),
    );
    assert.deepEqual(
      new Set(problems),
      new Set([
        'Mqtt.Targets.line9: names no configured PLC (add PlcTargets.line9 or remove this entry)',
        'Mqtt.Targets.press: names no configured PLC (add PlcTargets.press or remove this entry)',
        'Mqtt.Targets.Line1: plcIds are matched ignoring case, and Mqtt.Targets.line1 is the same id',
      ]),
    );
    assert.equal(problems.length, 3);
  });

  it('checks the targets only while Mqtt is enabled (a switched-off block may name PLCs of another plant)', () => {
    assert.doesNotThrow(() => load({ Mqtt: { Enabled: false, Targets: { line9: {} } } }));
    assert.deepEqual(
      problemsOf(() =>
        loadConfig(
          writeSettings({ ...minimalSettings, PlcTargets: plcs, Mqtt: { Targets: { line9: {} } } }),
          { Mqtt__Enabled: 'true' },
        ),
      ),
      ['Mqtt.Targets.line9: names no configured PLC (add PlcTargets.line9 or remove this entry)'],
    );
  });
});
