// list_plcs and get_plc_status: the PLCs the token may see and one PLC's connection and ADS state.
import { Type } from '@sinclair/typebox';
import { canAccessPlc } from '../../../guards/principal.ts';
import { listPlcs, plcStatus } from '../../plcs/index.ts';
import { defineTool, type Tool } from '../tool-kit.ts';
import type { ToolDeps } from './deps.ts';
import { PlcId, strict } from './inputs.ts';

export function plcTools({ context, log }: ToolDeps): Tool[] {
  return [
    defineTool({
      name: 'list_plcs',
      title: 'List PLCs',
      description:
        'Lists the PLCs this token may access (plcId, display name, connection state, Real or Simulated), ' +
        'sorted by plcId. Start here: every other tool takes a plcId from this list.',
      input: Type.Object({}, strict),
      mirrors: 'GET /api/plcs',
      readOnly: true,
      run: (_args, { principal }) => ({
        plcs: listPlcs(context.registry.list(), (plcId) => canAccessPlc(principal, plcId)),
      }),
    }),
    defineTool({
      name: 'get_plc_status',
      title: 'PLC status',
      description:
        'Connection state of one PLC and, when connected, its ADS state (Run, Stop, Config, ...). ' +
        'Cheap: use it before reading to tell an unreachable PLC from a missing symbol.',
      input: Type.Object({ plcId: PlcId }, strict),
      mirrors: 'GET /api/plcs/:plcId/status',
      readOnly: true,
      run: (_args, { target }) =>
        plcStatus(targetOf(target), (err) =>
          log.warn({ err, plcId: targetOf(target).id }, 'reading the ADS state failed'),
        ),
    }),
  ];
}

/** The PLC the admission check resolved; every per-PLC tool mirrors a plcScoped route. */
export function targetOf<T>(target: T | null): T {
  if (target === null) throw new Error('The mirrored route is not per PLC.');
  return target;
}
