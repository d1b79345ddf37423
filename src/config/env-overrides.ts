// Environment overrides in the ASP.NET style: `PlcAlarms__Targets__line1__CycleTimeMs=500` sets that setting.
import type { TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { childSchema, isScalarSchema, itemSchema, type SchemaChild } from './schema-walk.ts';

type Container = Record<string, unknown> | unknown[];

function isContainer(value: unknown): value is Container {
  return typeof value === 'object' && value !== null;
}

/** The key already present in `container` that matches `segment` case-insensitively, if any. */
function existingKey(container: Container, segment: string): string | undefined {
  if (Array.isArray(container)) return undefined;
  const lower = segment.toLowerCase();
  return Object.keys(container).find((k) => k.toLowerCase() === lower);
}

/** Turns an environment string into the type the schema expects there (numbers, booleans). */
function coerce(schema: TSchema | undefined, raw: string): unknown {
  if (schema === undefined) return raw;
  return Value.Convert(schema, raw);
}

function setIn(container: Container, key: string, value: unknown): void {
  if (Array.isArray(container)) container[Number(key)] = value;
  else container[key] = value;
}

function getIn(container: Container, key: string): unknown {
  return Array.isArray(container) ? container[Number(key)] : container[key];
}

export interface EnvOverrideResult {
  /** Names of the variables applied, sorted. */
  applied: string[];
  problems: string[];
}

/**
 * Applies every environment variable whose first `__` segment names a top-level setting (case-insensitive).
 * Segments map onto keys already in the file, then onto schema keys, case-insensitively; new ids are kept
 * as written; numeric segments index arrays. Mutates `doc`.
 */
export function applyEnvOverrides(
  doc: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
  rootSchema: TSchema,
): EnvOverrideResult {
  const result: EnvOverrideResult = { applied: [], problems: [] };
  for (const name of Object.keys(env).sort()) {
    const raw = env[name];
    if (raw === undefined) continue;
    const segments = name.split('__');
    if (segments.some((s) => s === '')) continue;
    const top = childSchema(rootSchema, segments[0] ?? '');
    if (!top) continue;
    // A lone name like `FILES` must not clobber a whole settings section with a string.
    if (segments.length === 1 && !isScalarSchema(top.schema)) continue;
    const problem = applyOne(doc, rootSchema, segments, raw);
    if (problem) result.problems.push(`${name} (environment): ${problem}`);
    else result.applied.push(name);
  }
  return result;
}

function applyOne(doc: Container, rootSchema: TSchema, segments: string[], raw: string): string | undefined {
  let container: Container = doc;
  let schema: TSchema | undefined = rootSchema;
  for (const [index, segment] of segments.entries()) {
    const isArray = Array.isArray(container);
    if (isArray && !/^\d+$/.test(segment)) return `'${segment}' is not an array index`;
    const child: SchemaChild | undefined = isArray ? undefined : childSchema(schema, segment);
    const key = isArray ? segment : (existingKey(container, segment) ?? child?.key ?? segment);
    const nextSchema: TSchema | undefined = isArray ? itemSchema(schema) : child?.schema;
    if (index === segments.length - 1) {
      setIn(container, key, coerce(nextSchema, raw));
      return undefined;
    }
    let next = getIn(container, key);
    if (!isContainer(next)) {
      // The variable wins over a scalar in the file (for example a feature flag `true` gets `Enabled`).
      next = itemSchema(nextSchema) !== undefined ? [] : {};
      setIn(container, key, next);
    }
    container = next as Container;
    schema = nextSchema;
  }
  return undefined;
}
