// list_alarms, acknowledge_alarm and alarm_history: the app's one alarm service, as the alarm routes call it.
import { Type } from '@sinclair/typebox';
import { canAccessPlc } from '../../../guards/principal.ts';
import { defineTool, type Tool } from '../tool-kit.ts';
import { alarmService, type ToolDeps } from './deps.ts';
import { PlcId, strict } from './inputs.ts';
import { targetOf } from './plcs.ts';

export function alarmTools({ context }: ToolDeps): Tool[] {
  return [
    defineTool({
      name: 'list_alarms',
      title: 'Outstanding alarms',
      description:
        'Outstanding alarms (active, or awaiting acknowledgement) of one PLC, or of every monitored PLC the token ' +
        'may see when plcId is left out; partial and failedPeers name a PLC that could not be read fresh.',
      input: Type.Object({ plcId: Type.Optional(PlcId) }, strict),
      mirrors: 'GET /api/alarms',
      mirrorsFor: ({ plcId }) => (plcId === undefined ? 'GET /api/alarms' : 'GET /api/plcs/:plcId/alarms'),
      readOnly: true,
      run: (_args, { target, principal, cultures }) => {
        const service = alarmService(context);
        const plcIds =
          target === null
            ? service.plcIds().filter((id) => canAccessPlc(principal, id))
            : [service.monitor(target.id).plcId];
        return service.list(plcIds, cultures);
      },
    }),
    defineTool({
      name: 'acknowledge_alarm',
      title: 'Acknowledge an alarm',
      description:
        'Acknowledges one outstanding alarm by its code (the alarm key) through the PLC’s acknowledge method. ' +
        'Needs an operator token (WriteAccess); audited.',
      input: Type.Object(
        {
          plcId: PlcId,
          code: Type.String({ minLength: 1, description: 'The alarm’s code from list_alarms' }),
        },
        strict,
      ),
      mirrors: 'POST /api/plcs/:plcId/alarms/:key/acknowledge',
      auditTarget: ({ code }) => code,
      readOnly: false,
      run: async ({ code }, { target, principal, note }) => {
        const acknowledged = await alarmService(context).acknowledge(targetOf(target), code, principal.sub);
        note({ newValue: { acknowledged } });
        return { acknowledged };
      },
    }),
    defineTool({
      name: 'alarm_history',
      title: 'Alarm history',
      description:
        'The PLC’s alarm journal, oldest first: raised, acknowledged (with who), cleared, reoccurred and ended ' +
        'transitions; at most limit (<= 1000) per call, continue with after = nextAfter.',
      input: Type.Object(
        {
          plcId: PlcId,
          after: Type.Optional(
            Type.Integer({ minimum: 0, description: 'Entries after this seq (nextAfter)' }),
          ),
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
        },
        strict,
      ),
      mirrors: 'GET /api/plcs/:plcId/alarms/history',
      readOnly: true,
      run: ({ after, limit }, { target, cultures }) =>
        alarmService(context).history(targetOf(target).id, after, limit ?? 100, cultures),
    }),
  ];
}
