// Simulation routes (flag Simulation, LifecycleAccess): state, step, run, pause and reset of a scenario.
import { Type } from '@sinclair/typebox';
import { targetOf } from '../../guards/install-guards.ts';
import { noteAudit } from '../../http/audit-hooks.ts';
import { envelopeResponses, ok } from '../../http/envelope.ts';
import type { FeatureContext, FeaturePlugin } from '../../feature-kit/feature-context.ts';
import { PlcIdParams } from '../../http/schemas.ts';
import type { SimulationState as State } from '../../targets/target.ts';
import { command, step, type SimulationCommand } from './service.ts';

const SimulationState = Type.Object({
  state: Type.Union([
    Type.Literal('Stopped'),
    Type.Literal('Running'),
    Type.Literal('Paused'),
    Type.Literal('Faulted'),
  ]),
  cycleCount: Type.Integer({ description: 'Scans since load or the last reset' }),
  elapsedMs: Type.Integer({ description: 'Simulated time: cycleCount x scanMs' }),
  scanMs: Type.Integer(),
  error: Type.Union([Type.String(), Type.Null()], { description: 'Why the simulation is Faulted' }),
});

const routeConfig = { feature: 'Simulation', policy: 'LifecycleAccess', plcScoped: true } as const;

const commands: ReadonlyArray<{ name: Exclude<SimulationCommand, 'state'>; summary: string }> = [
  { name: 'run', summary: 'Start the real-time pump (no-op when Running)' },
  { name: 'pause', summary: 'Stop the pump; counts and values are kept' },
  { name: 'reset', summary: 'Stop, re-seed the scenario symbols and clear a fault; stRev keeps counting' },
];

type App = Parameters<FeaturePlugin>[0];

const auditTarget = (): string => 'simulation';
const brief = (s: State) => ({ state: s.state, cycleCount: s.cycleCount });

/** Runs a driving operation and notes the state before and after for the audit trail. */
function audited(request: Parameters<typeof targetOf>[0], run: () => State): ReturnType<typeof ok<State>> {
  const before = command(targetOf(request), 'state');
  const after = run();
  noteAudit(request, { oldValue: brief(before), newValue: brief(after) });
  return ok(after);
}

export const simulationRoutes: FeaturePlugin = (app: App, { config }: FeatureContext) => {
  const maxCycles = config.settings.Simulation.MaxStepCycles;

  app.get(
    '/api/plcs/:plcId/sim/state',
    {
      schema: {
        tags: ['Simulation'],
        summary: 'Simulation state of a scenario-backed target',
        params: PlcIdParams,
        response: envelopeResponses(SimulationState),
      },
      config: routeConfig,
    },
    (request) => ok(command(targetOf(request), 'state')),
  );

  app.post(
    '/api/plcs/:plcId/sim/step',
    {
      schema: {
        tags: ['Simulation'],
        summary: 'Run exactly `cycles` scans inline (Stopped or Paused only)',
        params: PlcIdParams,
        querystring: Type.Object({
          cycles: Type.Integer({ minimum: 1, maximum: maxCycles, description: `1..${maxCycles}` }),
        }),
        response: envelopeResponses(SimulationState),
      },
      config: {
        ...routeConfig,
        audit: {
          action: 'sim.step',
          target: (request) => `cycles=${String((request.query as { cycles?: unknown }).cycles)}`,
        },
      },
    },
    (request) => audited(request, () => step(targetOf(request), request.query.cycles)),
  );

  for (const { name, summary } of commands) {
    app.post(
      `/api/plcs/:plcId/sim/${name}`,
      {
        schema: {
          tags: ['Simulation'],
          summary,
          params: PlcIdParams,
          response: envelopeResponses(SimulationState),
        },
        config: { ...routeConfig, audit: { action: `sim.${name}`, target: auditTarget } },
      },
      (request) => audited(request, () => command(targetOf(request), name)),
    );
  }
  return Promise.resolve();
};
