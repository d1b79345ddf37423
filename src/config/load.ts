// The settings loader: file -> environment overrides -> defaults -> validation -> resolved paths -> frozen Config.
import { dirname, isAbsolute, resolve } from 'node:path';
import { Value } from '@sinclair/typebox/value';
import { applyEnvOverrides } from './env-overrides.ts';
import { configuredPlcId, crossFieldProblems, crossFieldWarnings } from './cross-checks.ts';
import { takeForeignKeys } from './foreign-keys.ts';
import { readJsonFile } from './read-json.ts';
import { schemaProblems } from './schema-errors.ts';
import {
  ConfigError,
  SettingsSchema,
  featureDefaults,
  featureNames,
  type Config,
  type FeatureName,
  type Settings,
} from './schema.ts';

/** Recursively freezes plain objects and arrays so no part of the config can change after start-up. */
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/** Effective flags: `true|false` or `{ Enabled }`, missing ones from featureDefaults. */
function effectiveFeatures(features: Settings['Features']): Record<FeatureName, boolean> {
  const out = { ...featureDefaults };
  for (const name of featureNames) {
    const flag = features[name];
    if (typeof flag === 'boolean') out[name] = flag;
    else if (flag !== undefined) out[name] = flag.Enabled;
  }
  return out;
}

function resolvePath(contentRoot: string, path: string | undefined): string | undefined {
  return path === undefined || isAbsolute(path) ? path : resolve(contentRoot, path);
}

/**
 * Scenario, FileRoot, TextCatalog, ShelvingStateFile, the auth key files and the Redis TLS files are relative to the
 * content root.
 */
function resolvePaths(settings: Settings, contentRoot: string): void {
  for (const target of Object.values(settings.PlcTargets)) {
    if (target.Scenario !== undefined) target.Scenario = resolvePath(contentRoot, target.Scenario);
    if (target.FileRoot !== undefined) target.FileRoot = resolvePath(contentRoot, target.FileRoot);
  }
  const alarms = settings.PlcAlarms;
  if (alarms.TextCatalog !== undefined) alarms.TextCatalog = resolvePath(contentRoot, alarms.TextCatalog);
  if (alarms.ShelvingStateFile !== undefined)
    alarms.ShelvingStateFile = resolvePath(contentRoot, alarms.ShelvingStateFile);
  const auth = settings.Auth;
  if (auth.JwksFile !== undefined) auth.JwksFile = resolvePath(contentRoot, auth.JwksFile);
  if (auth.PublicKeyFile !== undefined) auth.PublicKeyFile = resolvePath(contentRoot, auth.PublicKeyFile);
  const cluster = settings.Cluster;
  for (const key of ['TlsCaFile', 'TlsCertFile', 'TlsKeyFile'] as const)
    if (cluster[key] !== undefined) cluster[key] = resolvePath(contentRoot, cluster[key]);
}

/** Alarm and MQTT targets are keyed by their PLC's configured spelling (plcIds match ignoring case), as answers name it. */
function spellTargetsAsConfigured(settings: Settings): void {
  const alarms = settings.PlcAlarms;
  alarms.Targets = Object.fromEntries(
    Object.entries(alarms.Targets).map(([id, t]) => [configuredPlcId(settings.PlcTargets, id) ?? id, t]),
  );
  // Mqtt.Targets too: the Sparkplug DeviceId and the JSON topics spell the plcId as PlcTargets does.
  const mqtt = settings.Mqtt;
  mqtt.Targets = Object.fromEntries(
    Object.entries(mqtt.Targets).map(([id, t]) => [configuredPlcId(settings.PlcTargets, id) ?? id, t]),
  );
}

/**
 * Builds the validated Config from a settings document already parsed from `file`'s folder.
 * Throws ConfigError listing every problem, each prefixed by its settings path.
 */
export function configFromDocument(
  document: unknown,
  contentRoot: string,
  env: NodeJS.ProcessEnv = process.env,
): Config {
  if (typeof document !== 'object' || document === null || Array.isArray(document)) {
    throw new ConfigError(['(root): the settings must be a JSON object']);
  }
  const doc = structuredClone(document) as Record<string, unknown>;
  const { problems: envProblems } = applyEnvOverrides(doc, env, SettingsSchema);
  const foreign = takeForeignKeys(doc);
  const defaulted: unknown = Value.Default(SettingsSchema, doc);
  const problems = [
    ...envProblems,
    ...foreign.problems,
    ...schemaProblems(SettingsSchema, defaulted),
    ...crossFieldProblems(defaulted as Record<string, unknown>, env.NODE_ENV),
  ];
  if (problems.length > 0) throw new ConfigError([...new Set(problems)]);

  const settings = defaulted as Settings;
  resolvePaths(settings, contentRoot);
  spellTargetsAsConfigured(settings);
  return deepFreeze({
    settings,
    contentRoot,
    features: effectiveFeatures(settings.Features),
    warnings: [...foreign.warnings, ...crossFieldWarnings(settings)],
  });
}

/**
 * Loads `file` (JSON, PascalCase keys), applies `__`-nested environment overrides from `env`, defaults and
 * validation. Relative paths resolve against the file's folder (the content root). The result is frozen.
 */
export function loadConfig(file: string, env: NodeJS.ProcessEnv = process.env): Config {
  const absolute = resolve(file);
  const read = readJsonFile(absolute);
  if (!read.ok) throw new ConfigError([read.problem]);
  return configFromDocument(read.value, dirname(absolute), env);
}
