// Creates simulated targets: program from built-in types and InitialValues, files in memory or FileRoot.
import { resolve } from 'node:path';
import { ConfigError, type Config, type PlcTargetConfig } from '../../config/schema.ts';
import { ProgramBuilder, SimulatedPlc, type FileStore } from '../../simulator/engine/index.ts';
import {
  declareScenario,
  formatProblem,
  loadScenario,
  ScenarioError,
  type DeclaredScenario,
  type ScenarioDefinition,
} from '../../simulator/scenario/index.ts';
import { declareBuiltinTypes } from './builtin-types.ts';
import { DiskFileStore } from './disk-file-store.ts';
import { declareInitialValues } from './initial-values.ts';
import { SimulatedTarget } from './simulated-target.ts';

export { SimulatedTarget } from './simulated-target.ts';
export { builtinTypeNames, declareBuiltinTypes } from './builtin-types.ts';
export { declareInitialValues } from './initial-values.ts';
export { DiskFileStore } from './disk-file-store.ts';

/** The program every simulated target starts from; a scenario extends it before build(). */
export function baseProgramBuilder(id: string, settings: PlcTargetConfig): ProgramBuilder {
  const builder = new ProgramBuilder();
  declareBuiltinTypes(builder);
  declareInitialValues(builder, id, settings.InitialValues ?? {});
  return builder;
}

export interface SimulatedContext {
  readonly config: Config;
  /** PLC clock in ms since the epoch (default Date.now); tests give one that also advances with simulated time. */
  readonly clock?: () => number;
}

/** Builds a simulated target; throws ConfigError for bad InitialValues or Scenario (every problem listed). */
export async function createSimulatedTarget(
  id: string,
  settings: PlcTargetConfig,
  ctx: SimulatedContext,
): Promise<SimulatedTarget> {
  const scenario = settings.Scenario
    ? await loadTargetScenario(id, resolve(ctx.config.contentRoot, settings.Scenario))
    : undefined;
  return createTarget(id, settings, ctx, scenario);
}

function createTarget(
  id: string,
  settings: PlcTargetConfig,
  ctx: SimulatedContext,
  scenario: ScenarioDefinition | undefined,
): SimulatedTarget {
  const builder = baseProgramBuilder(id, settings);
  const declared = scenario ? declareScenario(builder, scenario) : undefined;
  const files: FileStore | undefined = settings.FileRoot
    ? new DiskFileStore(resolve(ctx.config.contentRoot, settings.FileRoot))
    : undefined;
  const plc = new SimulatedPlc(builder.build(), {
    ...(files ? { files } : {}),
    ...(ctx.clock ? { clock: ctx.clock } : {}),
  });
  const target = new SimulatedTarget(id, settings.DisplayName ?? '', plc, settings.PlcClock ?? 'Utc');
  if (declared) attachScenario(target, declared, settings.ScenarioAutoStart ?? false);
  return target;
}

// Scenario support: machine.yaml problems become start-up ConfigErrors; the runtime stops with the target.

async function loadTargetScenario(id: string, dir: string): Promise<ScenarioDefinition> {
  try {
    return await loadScenario(dir);
  } catch (err) {
    if (!(err instanceof ScenarioError)) throw err;
    throw new ConfigError(err.problems.map((p) => `PlcTargets.${id}.Scenario: ${formatProblem(p)}`));
  }
}

function attachScenario(target: SimulatedTarget, declared: DeclaredScenario, autoStart: boolean): void {
  const attached = declared.attach(target.plc, { autoStart });
  target.simulation = attached.simulation;
  const close = target.close.bind(target);
  target.close = async () => {
    attached.close();
    await close();
  };
}
