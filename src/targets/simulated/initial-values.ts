// InitialValues settings -> symbols of the simulated program; every bad entry is reported at once.
import { ConfigError, type PlcTargetConfig } from '../../config/schema.ts';
import { declareVariable, type ProgramBuilder } from '../../simulator/engine/index.ts';

/**
 * Declares one symbol per entry: `{ type, value?, location? }` with any type the program knows
 * (elementary, STRING(n), arrays, built-in and scenario structs and enums; case-insensitive; no value =
 * the type's default), optionally at an `AT %MB0`-style location, or a bare string = STRING(80), longer
 * when the text needs it. Throws ConfigError listing `PlcTargets.<id>.InitialValues.<path>: reason`.
 */
export function declareInitialValues(
  builder: ProgramBuilder,
  targetId: string,
  entries: PlcTargetConfig['InitialValues'] | Readonly<Record<string, unknown>>,
): void {
  const problems: string[] = [];
  for (const [name, entry] of Object.entries(entries)) {
    const reason = declareVariable(builder, name, entry);
    if (reason) problems.push(`PlcTargets.${targetId}.InitialValues.${name}: ${reason}`);
  }
  if (problems.length) throw new ConfigError(problems);
}
