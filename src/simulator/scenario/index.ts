// Scenario-backed simulation: load and validate machine.yaml, declare the gvl-hmi/1 program, then attach
// the scan runtime and its Stopped/Running/Paused/Faulted controller to the simulated PLC.
import type { MethodImpl, ProgramBuilder, SimulatedPlc } from '../engine/index.ts';
import { EtherCatSystem } from '../ethercat/system.ts';
import { declareHmiProgram } from './declare.ts';
import { declareScenarioTypes, declareScenarioVariables } from './declare-extensions.ts';
import { ScenarioError } from './load.ts';
import type { PumpTimer } from './pump.ts';
import { HmiRuntime } from './runtime.ts';
import type { ScenarioDefinition } from './schema.ts';
import { ScenarioSimulation } from './simulation.ts';

export { loadScenario, validateScenarioDir, ScenarioError } from './load.ts';
export { validateScenario } from './validate.ts';
export { formatProblem } from './problem.ts';
export { type ScenarioDefinition } from './schema.ts';
export { ScenarioSimulation } from './simulation.ts';
export { type PumpTimer } from './pump.ts';
export { stepAxis } from './kinematics.ts';

/** The simulated EtherCAT masters a scenario declares (give it to the SimulatedPlc), if it declares any. */
export function etherCatOf(scenario: ScenarioDefinition): EtherCatSystem | undefined {
  return scenario.ethercat ? new EtherCatSystem(scenario.ethercat) : undefined;
}

export interface AttachOptions {
  /** ScenarioAutoStart: the pump runs from attach on, and again after every reset. */
  autoStart?: boolean;
  timer?: PumpTimer;
  /** A scan of the real-time pump failed (the simulation is Faulted). */
  onFault?: (error: Error) => void;
}

export interface AttachedScenario {
  readonly simulation: ScenarioSimulation;
  readonly runtime: HmiRuntime;
  /** Stops the pump and detaches from the PLC. */
  close(): void;
}

export interface DeclaredScenario {
  readonly scenario: ScenarioDefinition;
  /** Binds to a PLC built from the builder; call once per PLC. */
  attach(plc: SimulatedPlc, options?: AttachOptions): AttachedScenario;
}

const typesDeclared = new WeakMap<ProgramBuilder, ScenarioDefinition>();

/**
 * Declares the scenario's own types (machine.yaml `types`) early, so that settings declared after them
 * (a target's InitialValues) can use them; declareScenario then skips them. ScenarioError on problems.
 */
export function declareTypesOfScenario(builder: ProgramBuilder, scenario: ScenarioDefinition): void {
  const problems = declareScenarioTypes(builder, scenario);
  if (problems.length) throw new ScenarioError('machine.yaml', problems);
  typesDeclared.set(builder, scenario);
}

/** Declares the scenario's program on `builder` (before build()): its types, gvl-hmi/1, its variables. */
export function declareScenario(builder: ProgramBuilder, scenario: ScenarioDefinition): DeclaredScenario {
  if (typesDeclared.get(builder) !== scenario) declareTypesOfScenario(builder, scenario);
  const runtimes = new WeakMap<object, HmiRuntime>();
  const acknowledge: MethodImpl = (ctx, inputs) => {
    const key = typeof inputs.sKey === 'string' ? inputs.sKey : '';
    return { returnValue: runtimes.get(ctx.plc)?.acknowledge(key) ?? false };
  };
  const declaration = declareHmiProgram(builder, scenario, acknowledge);
  const problems = declareScenarioVariables(builder, scenario);
  if (problems.length) throw new ScenarioError('machine.yaml', problems);
  return {
    scenario,
    attach(plc, options = {}) {
      const runtime = new HmiRuntime(plc, scenario, declaration);
      runtimes.set(plc, runtime);
      const simulation = new ScenarioSimulation(runtime, {
        scanMs: scenario.scanMs,
        autoStart: options.autoStart ?? false,
        ...(options.timer ? { timer: options.timer } : {}),
        ...(options.onFault ? { onFault: options.onFault } : {}),
      });
      // The scan is the PLC's task: it runs only while the runtime is in Run (lifecycle stop halts it).
      simulation.setHalted(plc.adsState !== 'Run');
      const offState = plc.onStateChange((state) => simulation.setHalted(state !== 'Run'));
      return {
        simulation,
        runtime,
        close() {
          offState();
          simulation.close();
          runtime.close();
          runtimes.delete(plc);
        },
      };
    },
  };
}
export { errorTypeMembers } from './hmi-layout.ts';
