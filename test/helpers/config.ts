// testConfig(overrides): a validated Config from partial settings, defaults applied, signed with the test key.
import { Value } from '@sinclair/typebox/value';
import {
  featureDefaults,
  featureNames,
  SettingsSchema,
  type Config,
  type FeatureName,
  type Settings,
} from '../../src/config/schema.ts';

/** HS256 key every test token is signed with (see mintToken). */
export const testSigningKey = 'test-signing-key-for-plc-gateway-tests-0123456789';

/** Partial settings; nested objects merge into the defaults, and `undefined` removes a default (e.g. Auth.SigningKey). */
export type SettingsOverrides = { [K in keyof Settings]?: unknown };

const baseSettings = {
  Auth: { SigningKey: testSigningKey },
  // PLC targets come from the test's fake registry; settings only need them for areas that read per-target config.
  PlcTargets: {},
};

export function testConfig(overrides: SettingsOverrides = {}, contentRoot = process.cwd()): Config {
  const merged = deepMerge(baseSettings, overrides);
  const settings: Settings = Value.Parse(SettingsSchema, merged);
  const features = Object.fromEntries(
    featureNames.map((name) => {
      const flag = settings.Features[name];
      const enabled =
        flag === undefined ? featureDefaults[name] : typeof flag === 'boolean' ? flag : flag.Enabled;
      return [name, enabled];
    }),
  ) as Record<FeatureName, boolean>;
  return Object.freeze({ settings, contentRoot, features, warnings: [] });
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function deepMerge(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) {
    if (value === undefined) delete out[key];
    else if (isPlainObject(value) && isPlainObject(out[key])) out[key] = deepMerge(out[key], value);
    else out[key] = value;
  }
  return out;
}
