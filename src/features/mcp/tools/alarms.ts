// list_alarms, acknowledge_alarm, shelve_alarm and alarm_history: the app's one alarm service, as the alarm routes
// call it.
import { Type } from '@sinclair/typebox';
import { canAccessPlc } from '../../../guards/principal.ts';
import { parseInclude } from '../../alarms/index.ts';
import { defineTool, type Tool } from '../tool-kit.ts';
import { alarmService, type ToolDeps } from './deps.ts';
import { PlcId, strict } from './inputs.ts';
import { targetOf } from './plcs.ts';

const Group = Type.Union([
  Type.Literal('shelved'),
  Type.Literal('outOfService'),
  Type.Literal('suppressed'),
  Type.Literal('all'),
]);

export function alarmTools({ context }: ToolDeps): Tool[] {
  const { MaxShelveMinutes, MaxReasonLength } = context.config.settings.PlcAlarms;
  return [
    defineTool({
      name: 'list_alarms',
      title: 'Outstanding alarms',
      description:
        'Outstanding alarms (active, or awaiting acknowledgement) of one PLC, or of every monitored PLC the token ' +
        'may see when plcId is left out; partial and failedPeers name a PLC that could not be read fresh. ' +
        'Shelved, out-of-service and suppressed alarms are left out (and counted) unless include names them.',
      input: Type.Object(
        {
          plcId: Type.Optional(PlcId),
          include: Type.Optional(
            Type.Array(Group, { maxItems: 4, description: 'Groups to list too, marked x-shelved etc.' }),
          ),
        },
        strict,
      ),
      mirrors: 'GET /api/alarms',
      mirrorsFor: ({ plcId }) => (plcId === undefined ? 'GET /api/alarms' : 'GET /api/plcs/:plcId/alarms'),
      readOnly: true,
      run: ({ include }, { target, principal, cultures }) => {
        const service = alarmService(context);
        const plcIds =
          target === null
            ? service.plcIds().filter((id) => canAccessPlc(principal, id))
            : [service.monitor(target.id).plcId];
        return service.list(plcIds, cultures, parseInclude(include));
      },
    }),
    defineTool({
      name: 'shelve_alarm',
      title: 'Shelve an alarm',
      description:
        'Shelves one outstanding alarm by its code for minutes (1 to ' +
        `${MaxShelveMinutes}) with a reason: it leaves the alarm list, streams and health until the time runs out ` +
        'or the alarm ends (one-shot). Needs an operator token (WriteAccess); audited and journaled.',
      input: Type.Object(
        {
          plcId: PlcId,
          code: Type.String({ minLength: 1, description: 'The alarm’s code from list_alarms' }),
          minutes: Type.Integer({ minimum: 1, maximum: MaxShelveMinutes }),
          reason: Type.String({ minLength: 1, maxLength: MaxReasonLength }),
        },
        strict,
      ),
      mirrors: 'POST /api/plcs/:plcId/alarms/:key/shelve',
      auditTarget: ({ code }) => code,
      readOnly: false,
      run: async ({ code, minutes, reason }, { target, principal, note }) => {
        const entry = await alarmService(context).shelve(
          targetOf(target).id,
          code,
          minutes,
          reason,
          principal.sub,
        );
        note({ newValue: { minutes, reason: entry.reason, until: entry.until } });
        return entry;
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
