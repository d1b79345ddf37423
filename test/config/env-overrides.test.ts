import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../../src/config/load.ts';
import { ConfigError } from '../../src/config/schema.ts';
import { minimalSettings, writeSettings } from './helpers.ts';

const base = {
  ...minimalSettings,
  PlcTargets: { line1: { Mode: 'Simulated', DisplayName: 'Line 1' } },
  PlcAlarms: { Targets: { line1: { SymbolPath: 'GVL.alarms' } } },
};

describe('loadConfig: environment overrides', () => {
  it('nests with __, coerces to the schema type and matches names case-insensitively', () => {
    const { settings, features } = loadConfig(writeSettings(base), {
      PlcAlarms__Targets__line1__CycleTimeMs: '500',
      PLCTARGETS__LINE1__displayname: 'Packaging',
      ratelimiting__enabled: 'false',
      RateLimiting__GlobalPerUser: '42',
      Features__Alarms: 'true',
      Features__Files__Enabled: 'true',
      Urls: 'http://0.0.0.0:8080',
      Logging__Level: 'debug',
    });
    assert.equal(settings.PlcAlarms.Targets.line1?.CycleTimeMs, 500);
    assert.equal(settings.PlcTargets.line1?.DisplayName, 'Packaging');
    assert.equal(settings.RateLimiting.Enabled, false);
    assert.equal(settings.RateLimiting.GlobalPerUser, 42);
    assert.equal(features.Alarms, true);
    assert.equal(features.Files, true);
    assert.equal(settings.Urls, 'http://0.0.0.0:8080');
    assert.equal(settings.Logging.Level, 'debug');
  });

  it('adds new entries, array items and replaces a scalar flag with { Enabled }', () => {
    const { settings, features } = loadConfig(writeSettings({ ...base, Features: { Rpc: true } }), {
      PlcTargets__line2__Mode: 'Simulated',
      PlcTargets__line2__ScenarioAutoStart: 'true',
      PlcTargets__line1__Rpc__Invokable__0: 'MAIN.fbRecipe.Load',
      PlcTargets__line1__Rpc__Invokable__1: 'MAIN.fbRecipe.Save',
      Features__Rpc__Enabled: 'false',
    });
    assert.equal(settings.PlcTargets.line2?.Mode, 'Simulated');
    assert.equal(settings.PlcTargets.line2?.ScenarioAutoStart, true);
    assert.deepEqual(settings.PlcTargets.line1?.Rpc.Invokable, ['MAIN.fbRecipe.Load', 'MAIN.fbRecipe.Save']);
    assert.equal(features.Rpc, false);
  });

  it('ignores variables that do not start with a settings section, and lone section names', () => {
    const config = loadConfig(writeSettings(base), {
      PATH: '/usr/bin',
      HOME: '/home/x',
      NODE_ENV: 'test',
      FILES: 'whatever',
      Nothing__Here: '1',
      PlcTargets____x: '1',
    });
    assert.equal(config.settings.Files.MaxBytes, 16 * 1024 * 1024);
  });

  it('reports an override that does not fit, by its settings path', () => {
    assert.throws(
      () =>
        loadConfig(writeSettings(base), {
          PlcAlarms__Targets__line1__CycleTimeMs: 'fast',
          PlcTargets__line1__Colour: 'red',
        }),
      (err: unknown) =>
        err instanceof ConfigError &&
        err.problems.includes('PlcAlarms.Targets.line1.CycleTimeMs: must be an integer') &&
        err.problems.includes(
          'PlcTargets.line1.Colour: unknown setting, not one of plc-gateway (check the spelling)',
        ),
    );
  });
});
