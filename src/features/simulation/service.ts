// Simulation use cases: find a target's scenario simulation and drive it. Real targets never get here.
import { AppError } from '../../errors.ts';
import type { PlcTarget, SimulationControl, SimulationState } from '../../targets/target.ts';

/** The target's simulation; SCENARIO_NOT_CONFIGURED when it is not simulated or has no Scenario. */
function simulationOf(target: PlcTarget): SimulationControl {
  if (target.mode !== 'Simulated') {
    throw new AppError(
      'SCENARIO_NOT_CONFIGURED',
      `PLC '${target.id}' is not simulated (Mode Real); simulation routes never reach hardware.`,
    );
  }
  if (!target.simulation) {
    throw new AppError('SCENARIO_NOT_CONFIGURED', `PLC '${target.id}' is simulated but has no Scenario.`);
  }
  return target.simulation;
}

export type SimulationCommand = 'state' | 'run' | 'pause' | 'reset';

/** Runs a command without arguments and answers the resulting state. */
export function command(target: PlcTarget, name: SimulationCommand): SimulationState {
  const sim = simulationOf(target);
  switch (name) {
    case 'state':
      return sim.state();
    case 'run':
      return sim.run();
    case 'pause':
      return sim.pause();
    case 'reset':
      return sim.reset();
  }
}

/** Runs exactly `cycles` scans inline (the route has checked the range). */
export function step(target: PlcTarget, cycles: number): SimulationState {
  return simulationOf(target).step(cycles);
}
