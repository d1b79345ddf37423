// InitialValues settings -> symbols of the simulated program; every bad entry is reported at once.
import { ConfigError, type PlcTargetConfig } from '../../config/schema.ts';
import { isAppError } from '../../errors.ts';
import { defaultStringLength, parseTypeName, type ProgramBuilder } from '../../simulator/engine/index.ts';

const symbolName = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;

/**
 * Declares one symbol per entry: `{ value, type }` with an elementary IEC type (case-insensitive;
 * no value = the type's default), or a bare string = STRING(80), longer when the text needs it.
 * Throws ConfigError listing `PlcTargets.<id>.InitialValues.<path>: reason` for every bad entry.
 */
export function declareInitialValues(
  builder: ProgramBuilder,
  targetId: string,
  entries: PlcTargetConfig['InitialValues'] | Readonly<Record<string, unknown>>,
): void {
  const problems: string[] = [];
  for (const [name, entry] of Object.entries(entries)) {
    const reason = declareOne(builder, name, entry);
    if (reason) problems.push(`PlcTargets.${targetId}.InitialValues.${name}: ${reason}`);
  }
  if (problems.length) throw new ConfigError(problems);
}

function declareOne(builder: ProgramBuilder, name: string, entry: unknown): string | undefined {
  if (!symbolName.test(name)) return 'not a valid symbol name (identifiers separated by dots)';
  if (builder.hasSymbol(name)) return 'a symbol of this name already exists';
  let typeName: string;
  let value: unknown;
  if (typeof entry === 'string') {
    typeName = `STRING(${Math.max(defaultStringLength, [...entry].length)})`;
    value = entry;
  } else if (typeof entry === 'object' && entry !== null && !Array.isArray(entry)) {
    const o = entry as { type?: unknown; value?: unknown };
    if (typeof o.type !== 'string' || o.type.trim() === '') return 'a value needs a "type"';
    typeName = o.type;
    value = o.value;
  } else {
    return 'a value needs a "type" (only a bare string defaults to STRING)';
  }
  try {
    const expr = parseTypeName(typeName);
    if (expr.kind !== 'primitive' && expr.kind !== 'string') {
      return `unknown type '${typeName}' (elementary IEC types only)`;
    }
  } catch {
    return `unknown type '${typeName}'`;
  }
  try {
    builder.symbol(name, typeName, value === undefined ? {} : { value });
    return undefined;
  } catch (err) {
    if (!isAppError(err)) throw err;
    const prefix = `${name}: `;
    const message = err.message.startsWith(prefix) ? err.message.slice(prefix.length) : err.message;
    return message.replace(/\.$/, '');
  }
}
