// sim_state, sim_step, sim_run, sim_pause and sim_reset: the simulation service under the simulation routes'
// policy (LifecycleAccess); driving operations are audited with the state before and after, as on the routes.
import { Type } from '@sinclair/typebox';
import type { RouteKey } from '../../../http/route-catalog.ts';
import type { PlcTarget, SimulationState } from '../../../targets/target.ts';
import { command, type SimulationCommand, step } from '../../simulation/index.ts';
import { defineTool, type Tool, type ToolCall } from '../tool-kit.ts';
import type { ToolDeps } from './deps.ts';
import { PlcId, strict } from './inputs.ts';
import { targetOf } from './plcs.ts';

const brief = (s: SimulationState) => ({ state: s.state, cycleCount: s.cycleCount });

function drive(call: ToolCall, run: (target: PlcTarget) => SimulationState): SimulationState {
  const target = targetOf(call.target);
  const before = command(target, 'state');
  const after = run(target);
  call.note({ oldValue: brief(before), newValue: brief(after) });
  return after;
}

const commands: ReadonlyArray<{ name: Exclude<SimulationCommand, 'state'>; does: string }> = [
  { name: 'run', does: 'Starts the real-time pump (a no-op when Running).' },
  { name: 'pause', does: 'Stops the pump; cycle count, time and values are kept.' },
  { name: 'reset', does: 'Stops the pump, re-seeds the scenario’s symbols and clears a fault.' },
];

const onlySimulated =
  'Simulated PLCs with a scenario only (never hardware); needs an admin token (LifecycleAccess).';

export function simulationTools({ context }: ToolDeps): Tool[] {
  const maxCycles = context.config.settings.Simulation.MaxStepCycles;
  return [
    defineTool({
      name: 'sim_state',
      title: 'Simulation state',
      description: `State (Stopped, Running, Paused, Faulted), cycle count and simulated time of a scenario. ${onlySimulated}`,
      input: Type.Object({ plcId: PlcId }, strict),
      mirrors: 'GET /api/plcs/:plcId/sim/state',
      readOnly: true,
      run: (_args, { target }) => command(targetOf(target), 'state'),
    }),
    defineTool({
      name: 'sim_step',
      title: 'Step the simulation',
      description: `Runs exactly cycles scans (1-${maxCycles}) inline and answers the state; refused while Running. ${onlySimulated}`,
      input: Type.Object(
        {
          plcId: PlcId,
          cycles: Type.Integer({ minimum: 1, maximum: maxCycles, description: `1..${maxCycles}` }),
        },
        strict,
      ),
      mirrors: 'POST /api/plcs/:plcId/sim/step',
      auditTarget: ({ cycles }) => `cycles=${cycles}`,
      readOnly: false,
      run: ({ cycles }, call) => drive(call, (target) => step(target, cycles)),
    }),
    ...commands.map(({ name, does }) =>
      defineTool({
        name: `sim_${name}`,
        title: `Simulation ${name}`,
        description: `${does} ${onlySimulated}`,
        input: Type.Object({ plcId: PlcId }, strict),
        mirrors: `POST /api/plcs/:plcId/sim/${name}` as RouteKey,
        auditTarget: () => 'simulation',
        readOnly: false,
        run: (_args, call) => drive(call, (target) => command(target, name)),
      }),
    ),
  ];
}
