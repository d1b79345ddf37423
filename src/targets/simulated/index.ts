// Creates simulated targets: program from built-in types and InitialValues, files in memory or FileRoot.
import { resolve } from 'node:path';
import { ConfigError, type Config, type PlcTargetConfig } from '../../config/schema.ts';
import {
  MemoryFileStore,
  ProgramBuilder,
  SimulatedPlc,
  type FileStore,
} from '../../simulator/engine/index.ts';
import {
  declareScenario,
  declareTypesOfScenario,
  etherCatOf,
  formatProblem,
  loadScenario,
  ScenarioError,
  type DeclaredScenario,
  type ScenarioDefinition,
} from '../../simulator/scenario/index.ts';
import type { TargetLog } from '../target.ts';
import { declareBuiltinTypes } from './builtin-types.ts';
import { DiskFileStore } from './disk-file-store.ts';
import { declareInitialValues } from './initial-values.ts';
import { SimulatedTarget } from './simulated-target.ts';

export { SimulatedTarget } from './simulated-target.ts';
export { declareBuiltinTypes } from './builtin-types.ts';
export { DiskFileStore } from './disk-file-store.ts';

/**
 * The program every simulated target starts from: built-in types, the scenario's own types (so that
 * InitialValues may use them), then InitialValues; a scenario declares the rest before build().
 */
export function baseProgramBuilder(
  id: string,
  settings: PlcTargetConfig,
  scenario?: ScenarioDefinition,
): ProgramBuilder {
  const builder = new ProgramBuilder();
  declareBuiltinTypes(builder);
  if (scenario) asConfigError(id, () => declareTypesOfScenario(builder, scenario));
  declareInitialValues(builder, id, settings.InitialValues ?? {});
  return builder;
}

export interface SimulatedContext {
  readonly config: Config;
  /** PLC clock in ms since the epoch (default Date.now); tests give one that also advances with simulated time. */
  readonly clock?: () => number;
  /** Where the target reports what no caller is told (enum values written that are no member). */
  readonly log?: TargetLog;
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
  const builder = baseProgramBuilder(id, settings, scenario);
  const declared = scenario ? asConfigError(id, () => declareScenario(builder, scenario)) : undefined;
  const limits = ctx.config.settings.Files;
  const files: FileStore = settings.FileRoot
    ? new DiskFileStore(resolve(ctx.config.contentRoot, settings.FileRoot), limits?.MaxBytes)
    : new MemoryFileStore(
        ctx.clock,
        limits ? { maxTotalBytes: limits.MaxTotalBytes, maxFileCount: limits.MaxFileCount } : undefined,
      );
  const ethercat = scenario ? etherCatOf(scenario) : undefined;
  const plc = new SimulatedPlc(builder.build(), {
    files,
    ...(ctx.clock ? { clock: ctx.clock } : {}),
    ...(ethercat ? { ethercat } : {}),
  });
  const target = new SimulatedTarget(id, settings.DisplayName ?? '', plc, {
    ...(ctx.log ? { log: ctx.log } : {}),
    plcClock: settings.PlcClock ?? 'Utc',
  });
  if (declared) attachScenario(target, declared, settings.ScenarioAutoStart ?? false);
  return target;
}

// Scenario support: machine.yaml problems become start-up ConfigErrors; the runtime stops with the target.

async function loadTargetScenario(id: string, dir: string): Promise<ScenarioDefinition> {
  try {
    return await loadScenario(dir);
  } catch (err) {
    throw toConfigError(id, err);
  }
}

function toConfigError(id: string, err: unknown): unknown {
  if (!(err instanceof ScenarioError)) return err;
  return new ConfigError(err.problems.map((p) => `PlcTargets.${id}.Scenario: ${formatProblem(p)}`));
}

function asConfigError<T>(id: string, run: () => T): T {
  try {
    return run();
  } catch (err) {
    throw toConfigError(id, err);
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
