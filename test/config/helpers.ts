// Writes throwaway settings files for loader and CLI tests.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { ConfigError } from '../../src/config/schema.ts';

/** A fresh folder with `appsettings.json` holding `settings`; returns the file path. */
export function writeSettings(settings: unknown, name = 'appsettings.json'): string {
  const dir = mkdtempSync(join(tmpdir(), 'plc-gateway-config-'));
  const file = join(dir, name);
  writeFileSync(file, typeof settings === 'string' ? settings : JSON.stringify(settings, null, 2));
  return file;
}

/** The problems of the ConfigError `fn` throws; fails the test when it throws nothing or something else. */
export function problemsOf(fn: () => unknown): readonly string[] {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof ConfigError, `expected ConfigError, got ${String(err)}`);
    return err.problems;
  }
  assert.fail('expected a ConfigError');
}

export const minimalSettings = { Auth: { UseDevelopmentKey: true } };

/** An appsettings.json as the spec's service ships it, with our keys where they are the same. */
export const specServiceSettings = {
  Logging: {
    LogLevel: {
      Default: 'Warning',
      'Microsoft.AspNetCore': 'Warning',
      'Microsoft.Hosting.Lifetime': 'Information',
    },
    Console: { FormatterName: 'json' },
  },
  AllowedHosts: '*',
  Kestrel: { Endpoints: { Http: { Url: 'http://0.0.0.0:5000' } } },
  Urls: 'http://127.0.0.1:5000',
  Features: { Alarms: { Enabled: true }, TypeMetadata: true, EtherCatDiagnostics: { Enabled: false } },
  Auth: { UseDevelopmentKey: true },
  AmsRouter: {
    NetId: '192.168.10.50.1.1',
    Routes: [{ Name: 'PLC1', Address: '192.168.10.20', NetId: '192.168.10.20.1.1' }],
  },
  PlcTargets: {
    Line1: {
      DisplayName: 'Line 1',
      Mode: 'Simulated',
      EtherCat: { MasterNetId: '192.168.10.20.3.1' },
    },
  },
  PlcAlarms: { Targets: { line1: { SymbolPath: 'GVL_HMI.fbAlarms.aAlarms' } } },
};
