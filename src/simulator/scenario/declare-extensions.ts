// The scenario's own types and variables (optional `types` and `variables` of machine.yaml), declared
// with the same rules as a target's InitialValues: any type the program knows, values, AT locations.
import { declareType, declareVariable } from '../engine/index.ts';
import type { ProgramBuilder } from '../engine/index.ts';
import type { ScenarioDefinition } from './schema.ts';
/** A problem located by JSON Pointer into machine.yaml (validate.ts's ScenarioProblem). */
interface ScenarioProblem {
  pointer: string;
  message: string;
}

const escapeToken = (token: string) => token.replace(/~/g, '~0').replace(/\//g, '~1');

/** Declares `types` in order (a type may use the ones before it); every problem by JSON Pointer. */
export function declareScenarioTypes(
  builder: ProgramBuilder,
  scenario: ScenarioDefinition,
): ScenarioProblem[] {
  const problems: ScenarioProblem[] = [];
  scenario.types.forEach((decl, i) => {
    const reason = declareType(builder, decl);
    if (reason) problems.push({ pointer: `/types/${i}`, message: reason });
  });
  return problems;
}

/** Declares `variables`; every problem by JSON Pointer. */
export function declareScenarioVariables(
  builder: ProgramBuilder,
  scenario: ScenarioDefinition,
): ScenarioProblem[] {
  const problems: ScenarioProblem[] = [];
  for (const [name, entry] of Object.entries(scenario.variables)) {
    const reason = declareVariable(builder, name, entry);
    if (reason) problems.push({ pointer: `/variables/${escapeToken(name)}`, message: reason });
  }
  return problems;
}
