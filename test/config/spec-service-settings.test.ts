// Settings files written for the spec's service (an ASP.NET Core app): host keys and keys of features not
// here yet are ignored with one warning each, LogLevel.Default maps onto Logging.Level, our own misspelt keys
// still fail, NetIds are six octets, plcIds are one id whatever their case.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../../src/config/load.ts';
import { problemsOf, specServiceSettings, writeSettings } from './helpers.ts';

describe("settings written for the spec's service", () => {
  it('start, each foreign key ignored with one warning naming it', () => {
    const config = loadConfig(writeSettings(specServiceSettings), {});
    assert.deepEqual(
      config.warnings.map((w) => w.setting),
      [
        'AllowedHosts',
        'Kestrel',
        'Logging.LogLevel.Default',
        'Logging.LogLevel.Microsoft.AspNetCore',
        'Logging.LogLevel.Microsoft.Hosting.Lifetime',
        'Logging.Console',
        'AmsRouter.Routes',
        'PlcTargets.Line1.EtherCat.MasterNetId',
      ],
    );
    for (const w of config.warnings) {
      assert.ok(w.message.includes(w.setting), w.message);
      if (w.setting !== 'Logging.LogLevel.Default') assert.match(w.message, /^Ignored setting /);
    }
    const message = (key: string): string => config.warnings.find((w) => w.setting === key)?.message ?? '';
    assert.match(message('AllowedHosts'), /ASP\.NET Core host setting/);
    assert.match(message('PlcTargets.Line1.EtherCat.MasterNetId'), /I\/O server device list/);
    assert.match(message('Logging.LogLevel.Microsoft.AspNetCore'), /per-category/);
    assert.equal(
      message('Logging.LogLevel.Default'),
      "Logging.Level is 'warn', taken from Logging.LogLevel.Default 'Warning' (set Logging.Level instead).",
    );
    assert.equal(config.settings.Logging.Level, 'warn');
    assert.equal(config.settings.AmsRouter.NetId, '192.168.10.50.1.1');
    assert.deepEqual(Object.keys(config.settings.AmsRouter), ['NetId']);
    assert.equal(config.features.Alarms, true);
    assert.equal(config.features.EtherCatDiagnostics, false);
    assert.deepEqual(config.settings.PlcTargets.Line1?.EtherCat, {
      PollingIntervalMs: 1000,
      CrcErrorThreshold: 100,
      EnableNotifications: true,
      TimeoutMs: 5000,
    });
  });

  it('maps every .NET level onto ours, from the file or the environment', () => {
    const cases: Array<[string, string]> = [
      ['Trace', 'trace'],
      ['Debug', 'debug'],
      ['Information', 'info'],
      ['Warning', 'warn'],
      ['Error', 'error'],
      ['Critical', 'fatal'],
      ['None', 'silent'],
      ['information', 'info'],
    ];
    for (const [dotnet, ours] of cases) {
      const file = writeSettings({
        Auth: { UseDevelopmentKey: true },
        Logging: { LogLevel: { Default: dotnet } },
      });
      assert.equal(loadConfig(file, {}).settings.Logging.Level, ours, dotnet);
    }
    const plain = writeSettings({ Auth: { UseDevelopmentKey: true } });
    const fromEnv = loadConfig(plain, { Logging__LogLevel__Default: 'Error' });
    assert.equal(fromEnv.settings.Logging.Level, 'error');
    assert.deepEqual(
      fromEnv.warnings.map((w) => w.setting),
      ['Logging.LogLevel.Default'],
    );
  });

  it('keeps Logging.Level when it is set, and says LogLevel.Default is ignored', () => {
    const file = writeSettings({
      Auth: { UseDevelopmentKey: true },
      Logging: { Level: 'debug', LogLevel: { Default: 'Warning' } },
    });
    const config = loadConfig(file, {});
    assert.equal(config.settings.Logging.Level, 'debug');
    assert.deepEqual(config.warnings, [
      {
        setting: 'Logging.LogLevel.Default',
        message: 'Ignored setting Logging.LogLevel.Default: Logging.Level is set and wins.',
      },
    ]);
  });

  it('refuses a LogLevel.Default that is no .NET level', () => {
    const file = writeSettings({
      Auth: { UseDevelopmentKey: true },
      Logging: { LogLevel: { Default: 'Loud' } },
    });
    assert.deepEqual(
      problemsOf(() => loadConfig(file, {})),
      ['Logging.LogLevel.Default: must be Trace, Debug, Information, Warning, Error, Critical or None'],
    );
  });

  it('still fails on a misspelt key of ours, worded apart from the warning', () => {
    const file = writeSettings({
      ...specServiceSettings,
      Featurs: { Alarms: true },
      AmsRouter: { NetID: '1.2.3.4.1.1' },
      PlcTargets: { line1: { Mode: 'Simulated', EtherCAT: {}, DisplayNmae: 'x' } },
    });
    const problems = problemsOf(() => loadConfig(file, {}));
    assert.deepEqual(problems, [
      'Featurs: unknown setting, not one of plc-gateway (check the spelling)',
      'AmsRouter.NetID: unknown setting, not one of plc-gateway (check the spelling)',
      'PlcTargets.line1.EtherCAT: unknown setting, not one of plc-gateway (check the spelling)',
      'PlcTargets.line1.DisplayNmae: unknown setting, not one of plc-gateway (check the spelling)',
    ]);
    for (const p of problems) assert.doesNotMatch(p, /Ignored/);
  });
});

describe('AMS NetIds', () => {
  it('accept six octets 0-255 only, for the gateway as for targets', () => {
    const load = (router: string, target: string) =>
      loadConfig(
        writeSettings({
          Auth: { UseDevelopmentKey: true },
          AmsRouter: { NetId: router },
          PlcTargets: { press: { AmsNetId: target } },
        }),
        {},
      );
    assert.equal(load('255.0.10.99.1.1', '5.1.2.3.1.1').settings.AmsRouter.NetId, '255.0.10.99.1.1');
    const message = 'must be six octets 0-255 separated by dots';
    for (const bad of ['999.1.1.1.1.1', '1.2.3.4.1', '1.2.3.4.1.1.1', '1.2.3.4.1.256', '1.2.3.4.1.x', '']) {
      assert.deepEqual(
        problemsOf(() => load(bad, bad)),
        [`AmsRouter.NetId: ${message}`, `PlcTargets.press.AmsNetId: ${message}`],
        bad,
      );
    }
  });
});

describe('plcIds in the settings', () => {
  it('fail start-up when two differ only in case', () => {
    const file = writeSettings({
      Auth: { UseDevelopmentKey: true },
      PlcTargets: {
        line1: { Mode: 'Simulated' },
        LINE1: { Mode: 'Simulated' },
        Line2: { Mode: 'Simulated' },
      },
      PlcAlarms: { Targets: { line2: { SymbolPath: 'a.b' }, LINE2: { SymbolPath: 'a.b' } } },
    });
    assert.deepEqual(
      problemsOf(() => loadConfig(file, {})),
      [
        'PlcTargets.LINE1: plcIds are matched ignoring case, and PlcTargets.line1 is the same id',
        'PlcAlarms.Targets.LINE2: plcIds are matched ignoring case, and PlcAlarms.Targets.line2 is the same id',
      ],
    );
  });

  it('name alarm targets by the PLC whatever the case, in its configured spelling', () => {
    const config = loadConfig(writeSettings(specServiceSettings), {});
    assert.deepEqual(Object.keys(config.settings.PlcAlarms.Targets), ['Line1']);
  });
});
