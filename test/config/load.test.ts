import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { dirname, join } from 'node:path';
import { loadConfig } from '../../src/config/load.ts';
import { developmentSigningKey } from '../../src/config/development-key.ts';
import { featureDefaults } from '../../src/config/schema.ts';
import { minimalSettings, problemsOf, writeSettings } from './helpers.ts';
import { cycleLadder } from '../../src/features/notifications/options.ts';

const noEnv = {};

describe('loadConfig: defaults', () => {
  it('fills every section with its documented defaults', () => {
    const file = writeSettings({
      ...minimalSettings,
      PlcTargets: { line1: { Mode: 'Simulated' } },
      PlcAlarms: { Targets: { line1: { SymbolPath: 'GVL.alarms' } } },
    });
    const { settings, contentRoot, features } = loadConfig(file, noEnv);
    assert.equal(contentRoot, dirname(file));
    assert.equal(settings.Urls, 'http://127.0.0.1:5000');
    assert.equal(settings.Logging.Level, 'info');
    assert.equal(settings.Auth.ClockSkewSeconds, 30);
    assert.equal(settings.Auth.RoleClaimType, 'role');
    assert.equal(settings.Auth.DefaultPlcAccess, 'none');
    assert.deepEqual(settings.RateLimiting, {
      Enabled: true,
      GlobalPerUser: 200,
      AlarmReads: 50,
      RpcInvocations: 10,
      SymbolBrowsing: 10,
      NotificationConnections: 5,
      Lifecycle: 1,
      FileTransfers: 5,
      HistoryQueries: 10,
    });
    assert.deepEqual(settings.Notifications, {
      MaxSymbolsPerClient: 50,
      HeartbeatSeconds: 30,
      DefaultCycleTimeMs: 100,
      MinCycleTimeMs: 10,
      MaxCycleTimeMs: 60_000,
      MaxResendIntervalMs: 3_600_000,
      MinResendIntervalMs: 1000,
      MaxSubscriptionsPerUser: 250,
      QueueLength: 1000,
    });
    assert.deepEqual(settings.ConnectionLimits, { MaxPerUser: 20, MaxTotal: 2000 });
    assert.equal(settings.Simulation.MaxStepCycles, 100000);
    assert.equal(settings.Files.MaxBytes, 16 * 1024 * 1024);
    assert.equal(settings.Audit.Length, 10000);
    assert.deepEqual(settings.PlcTargets.line1, {
      DisplayName: '',
      Mode: 'Simulated',
      Port: 851,
      TcpPort: 48898,
      TimeoutMs: 5000,
      SymbolBrowseTimeoutMs: 30000,
      NotificationBudget: 500,
      NotificationRetryMs: 10000,
      NotificationRetryMaxMs: 60000,
      PlcClock: 'Utc',
      Rpc: { Invokable: [] },
      InitialValues: {},
      ScenarioAutoStart: false,
    });
    assert.deepEqual(settings.PlcAlarms.Targets.line1, {
      SymbolPath: 'GVL.alarms',
      CycleTimeMs: 200,
      PlcClock: 'Unspecified',
      AcknowledgeMethod: 'AcknowledgeAlarm',
      JournalLength: 10000,
      Suppression: [],
    });
    assert.deepEqual(features, featureDefaults);
  });

  it('takes feature flags as booleans or { Enabled }, the rest from the defaults', () => {
    const file = writeSettings({
      ...minimalSettings,
      Features: { Alarms: true, Symbols: { Enabled: false }, Files: { Enabled: true } },
    });
    const { features } = loadConfig(file, noEnv);
    assert.deepEqual(features, { ...featureDefaults, Alarms: true, Symbols: false, Files: true });
  });

  it('returns a deeply frozen config', () => {
    const file = writeSettings({ ...minimalSettings, PlcTargets: { line1: { Mode: 'Simulated' } } });
    const config = loadConfig(file, noEnv);
    assert.ok(Object.isFrozen(config));
    assert.ok(Object.isFrozen(config.settings));
    assert.ok(Object.isFrozen(config.features));
    assert.ok(Object.isFrozen(config.settings.PlcTargets.line1));
    assert.ok(Object.isFrozen(config.settings.PlcTargets.line1?.Rpc.Invokable));
    assert.throws(() => {
      (config.settings.RateLimiting as { Enabled: boolean }).Enabled = false;
    }, TypeError);
  });
});

describe('loadConfig: problems', () => {
  it('lists every schema and cross-field problem at once, each by its path', () => {
    const file = writeSettings({
      Bogus: 1,
      Logging: { Level: 'loud' },
      Features: { Alarm: true, Files: 'yes' },
      Auth: {},
      PlcTargets: {
        line1: { Mode: 'Virtual', AmsNetId: '1.2.3' },
        line2: {
          Mode: 'Real',
          Port: 70000,
          InitialValues: { 'MAIN.x': { value: 1, type: 'DINT', unit: 'm' } },
        },
        line3: { Mode: 'Real', AmsNetId: '5.1.2.3.1.1', Scenario: 'scenarios/demo' },
        'bad id!': { Mode: 'Simulated' },
      },
      PlcAlarms: { Targets: { line9: { SymbolPath: 'GVL.a', CycleTimeMs: 0 } } },
    });
    const problems = problemsOf(() => loadConfig(file, noEnv));
    assert.deepEqual(
      new Set(problems),
      new Set([
        'Bogus: unknown setting, not one of plc-gateway (check the spelling)',
        'Logging.Level: must be fatal, error, warn, info, debug, trace or silent',
        'Features.Alarm: unknown setting, not one of plc-gateway (check the spelling)',
        'Features.Files: must be true, false or an object { Enabled }',
        'PlcTargets.line1.Mode: must be Real or Simulated',
        'PlcTargets.line1.AmsNetId: must be six octets 0-255 separated by dots',
        'PlcTargets.line2.Port: must be at most 65535',
        'PlcTargets.line2.InitialValues.MAIN.x.unit: unknown setting, not one of plc-gateway (check the spelling)',
        'PlcTargets.bad id!: is not a valid id (use 1-64 letters, digits, _ or -)',
        'PlcAlarms.Targets.line9.CycleTimeMs: must be at least 1',
        'Auth: needs one key source: Authority, JwksFile, PublicKeyFile, SigningKey or UseDevelopmentKey',
        'PlcTargets.line2.AmsNetId: is required when Mode is Real',
        'PlcTargets.line3.Scenario: only allowed when Mode is Simulated',
        'PlcAlarms.Targets.line9: names no configured PLC (add PlcTargets.line9 or remove this entry)',
      ]),
    );
    assert.equal(problems.length, 14);
  });

  const crossCases: Array<{ name: string; settings: object; env?: NodeJS.ProcessEnv; problem: string }> = [
    {
      name: 'two key sources',
      settings: { Auth: { SigningKey: 'x'.repeat(32), Authority: 'https://login.example.com' } },
      problem: 'Auth: set exactly one key source, found Authority and SigningKey',
    },
    {
      name: 'a short signing key',
      settings: { Auth: { SigningKey: 'short' } },
      problem: 'Auth.SigningKey: must be at least 32 characters long',
    },
    {
      name: 'the development key in production',
      settings: minimalSettings,
      env: { NODE_ENV: 'production' },
      problem: 'Auth.UseDevelopmentKey: the built-in development key is refused when NODE_ENV=production',
    },
    {
      name: 'the development key pasted in as SigningKey in production',
      settings: { Auth: { SigningKey: developmentSigningKey } },
      env: { NODE_ENV: 'production' },
      problem: 'Auth.SigningKey: is the publicly known development key, refused when NODE_ENV=production',
    },
    {
      name: 'a Urls value that is not http://host:port',
      settings: { ...minimalSettings, Urls: 'ftp://example' },
      problem: 'Urls: must be an http:// URL with a host and port, for example http://127.0.0.1:5000',
    },
    {
      name: 'a notification retry cap below the first retry',
      settings: {
        ...minimalSettings,
        PlcTargets: {
          line1: { AmsNetId: '5.1.2.3.1.1', NotificationRetryMs: 20_000, NotificationRetryMaxMs: 19_999 },
        },
      },
      problem: 'PlcTargets.line1.NotificationRetryMaxMs: must not be below NotificationRetryMs (20000)',
    },
    {
      name: 'a default cycle below the floor stream clients are held to',
      settings: { ...minimalSettings, Notifications: { MinCycleTimeMs: 101 } },
      problem:
        'Notifications.DefaultCycleTimeMs: must lie within MinCycleTimeMs (101) and MaxCycleTimeMs (60000)',
    },
    {
      name: 'a cycle floor above the largest cycle',
      settings: { ...minimalSettings, Notifications: { MinCycleTimeMs: 200, MaxCycleTimeMs: 150 } },
      problem: 'Notifications.MinCycleTimeMs: must not be above Notifications.MaxCycleTimeMs',
    },
    {
      name: 'a default cycle above the largest one, floor below it',
      settings: { ...minimalSettings, Notifications: { MaxCycleTimeMs: 99 } },
      problem:
        'Notifications.DefaultCycleTimeMs: must lie within MinCycleTimeMs (10) and MaxCycleTimeMs (99)',
    },
    ...[
      ['not starting at the cycle floor', [20, 100]],
      ['not ascending', [10, 100, 100]],
      ['past the largest cycle', [10, 100, 60_001]],
      ['without the default cycle', [10, 50, 200]],
    ].map(([what, ladder]) => ({
      name: `a cycle ladder ${String(what)}`,
      settings: { ...minimalSettings, Notifications: { CycleLadderMs: ladder } },
      problem:
        'Notifications.CycleLadderMs: must ascend from MinCycleTimeMs (10) to at most MaxCycleTimeMs (60000) and hold DefaultCycleTimeMs (100)',
    })),
  ];
  for (const c of crossCases) {
    it(`rejects ${c.name}`, () => {
      const problems = problemsOf(() => loadConfig(writeSettings(c.settings), c.env ?? noEnv));
      assert.deepEqual(problems, [c.problem]);
    });
  }

  it('derives the cycle ladder from the cycle bounds; a given one that fits is taken', () => {
    const derived = loadConfig(writeSettings(minimalSettings), noEnv).settings.Notifications;
    assert.deepEqual(
      cycleLadder(derived),
      [10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000, 20_000, 50_000, 60_000],
    );
    const given = { CycleLadderMs: [10, 100, 60_000] };
    const config = loadConfig(writeSettings({ ...minimalSettings, Notifications: given }), noEnv);
    assert.deepEqual(cycleLadder(config.settings.Notifications), [10, 100, 60_000]);
  });

  it('fills the notification retry settings with their defaults; a cap equal to the first retry is fine', () => {
    const config = loadConfig(
      writeSettings({ ...minimalSettings, PlcTargets: { line1: { AmsNetId: '5.1.2.3.1.1' } } }),
      noEnv,
    );
    const line1 = config.settings.PlcTargets.line1;
    assert.deepEqual([line1?.NotificationRetryMs, line1?.NotificationRetryMaxMs], [10_000, 60_000]);
    const edge = { AmsNetId: '5.1.2.3.1.1', NotificationRetryMs: 20_000, NotificationRetryMaxMs: 20_000 };
    assert.doesNotThrow(() =>
      loadConfig(writeSettings({ ...minimalSettings, PlcTargets: { line1: edge } }), noEnv),
    );
  });

  it('accepts the development key outside production and exactly one real key source', () => {
    assert.doesNotThrow(() => loadConfig(writeSettings(minimalSettings), { NODE_ENV: 'development' }));
    const config = loadConfig(writeSettings({ Auth: { SigningKey: 'k'.repeat(32) } }), {
      NODE_ENV: 'production',
    });
    assert.equal(config.settings.Auth.UseDevelopmentKey, false);
  });

  it('reports an unreadable file and invalid JSON with a position', () => {
    const missing = join(dirname(writeSettings({})), 'nope.json');
    assert.deepEqual(
      problemsOf(() => loadConfig(missing, noEnv)),
      [`cannot read ${missing}: no such file`],
    );
    const bad = writeSettings('{\n  "Auth": {\n    "UseDevelopmentKey": true,\n  }\n}');
    const [problem] = problemsOf(() => loadConfig(bad, noEnv));
    assert.match(problem ?? '', /is not valid JSON: .* at line 4, column 3$/);
    const notObject = writeSettings('[1, 2]');
    assert.deepEqual(
      problemsOf(() => loadConfig(notObject, noEnv)),
      ['(root): the settings must be a JSON object'],
    );
  });
});

describe('loadConfig: content root', () => {
  it('resolves relative paths against the settings folder and keeps absolute ones', () => {
    const abs = join(dirname(writeSettings({})), 'elsewhere', 'jwks.json');
    const file = writeSettings({
      Auth: { JwksFile: abs },
      PlcTargets: {
        sim: { Mode: 'Simulated', Scenario: 'scenarios/demo', FileRoot: './files' },
        real: { AmsNetId: '5.1.2.3.1.1', FileRoot: '/srv/plc-files' },
      },
      PlcAlarms: { TextCatalog: 'texts/alarms.json' },
    });
    const root = dirname(file);
    const { settings } = loadConfig(file, noEnv);
    assert.equal(settings.PlcTargets.sim?.Scenario, join(root, 'scenarios', 'demo'));
    assert.equal(settings.PlcTargets.sim?.FileRoot, join(root, 'files'));
    assert.equal(settings.PlcTargets.real?.FileRoot, '/srv/plc-files');
    assert.equal(settings.PlcAlarms.TextCatalog, join(root, 'texts', 'alarms.json'));
    assert.equal(settings.Auth.JwksFile, abs);
  });

  it('resolves PublicKeyFile too', () => {
    const file = writeSettings({ Auth: { PublicKeyFile: 'keys/public.pem' } });
    assert.equal(
      loadConfig(file, noEnv).settings.Auth.PublicKeyFile,
      join(dirname(file), 'keys', 'public.pem'),
    );
  });
});
