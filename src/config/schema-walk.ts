// Navigation over the TypeBox settings schema by key, case-insensitively, for env overrides and messages.
import { Kind, type TSchema } from '@sinclair/typebox';

export interface SchemaChild {
  /** The key as the schema spells it, or the given key where the schema allows any (Record ids). */
  key: string;
  schema: TSchema;
}

function propertiesOf(schema: TSchema): Record<string, TSchema> | undefined {
  return schema[Kind] === 'Object' ? (schema.properties as Record<string, TSchema>) : undefined;
}

/** The schema of `key` inside an object-like schema (Object, Record, or a union holding one). */
export function childSchema(schema: TSchema | undefined, key: string): SchemaChild | undefined {
  if (schema === undefined) return undefined;
  const properties = propertiesOf(schema);
  if (properties) {
    const lower = key.toLowerCase();
    const name = Object.keys(properties).find((k) => k.toLowerCase() === lower);
    const child = name === undefined ? undefined : properties[name];
    return name !== undefined && child ? { key: name, schema: child } : undefined;
  }
  if (schema[Kind] === 'Record') {
    const entry = Object.values(schema.patternProperties as Record<string, TSchema>)[0];
    return entry ? { key, schema: entry } : undefined;
  }
  if (schema[Kind] === 'Union') {
    for (const member of schema.anyOf as TSchema[]) {
      const found = childSchema(member, key);
      if (found) return found;
    }
  }
  return undefined;
}

/** The schema of one array element. */
export function itemSchema(schema: TSchema | undefined): TSchema | undefined {
  return schema?.[Kind] === 'Array' ? (schema.items as TSchema) : undefined;
}

/** True for schemas whose values are JSON scalars (settable from one environment string). */
export function isScalarSchema(schema: TSchema): boolean {
  const kind = schema[Kind];
  if (kind === 'Union') return (schema.anyOf as TSchema[]).some(isScalarSchema);
  return ['String', 'Number', 'Integer', 'Boolean', 'Literal'].includes(kind);
}
