// alarm_kpis: the ISA-18.2 / EEMUA 191 alarm-system figures of one PLC or of the permitted fleet, as the KPI
// routes answer them (the app's one AlarmKpis).
import { Type } from '@sinclair/typebox';
import { canAccessPlc } from '../../../guards/principal.ts';
import { alarmKpisKey } from '../../alarms/index.ts';
import { defineTool, type Tool } from '../tool-kit.ts';
import { alarmService, type ToolDeps } from './deps.ts';
import { PlcId, strict } from './inputs.ts';

export function alarmKpiTools({ context }: ToolDeps): Tool[] {
  return [
    defineTool({
      name: 'alarm_kpis',
      title: 'Alarm-system KPIs',
      description:
        'How healthy the alarm system is over a window (ISA-18.2 / EEMUA 191): raises per 10 minutes (average, ' +
        'peak; about 1 is very likely acceptable, 2 manageable, more than 10 a flood), the share of 10-minute ' +
        'periods in flood, standing alarms (> 24 h), chattering alarms (3 raises within 60 s), the 10 most ' +
        'frequent keys, time to acknowledge (p50, p90), and how many are shelved, out of service or suppressed ' +
        'now. One PLC, or every monitored PLC the token may see when plcId is left out. covered tells the part ' +
        'of the window the figures are over.',
      input: Type.Object(
        {
          plcId: Type.Optional(PlcId),
          from: Type.Optional(
            Type.String({ minLength: 1, description: 'ISO 8601 start; default 24 h before to' }),
          ),
          to: Type.Optional(
            Type.String({ minLength: 1, description: 'ISO 8601 end (exclusive); default now' }),
          ),
        },
        strict,
      ),
      mirrors: 'GET /api/alarms/kpis',
      mirrorsFor: ({ plcId }) =>
        plcId === undefined ? 'GET /api/alarms/kpis' : 'GET /api/plcs/:plcId/alarms/kpis',
      readOnly: true,
      run: ({ from, to }, { target, principal }) => {
        const kpis = context.services.get(alarmKpisKey);
        const window = { from, to };
        if (target !== null) return kpis.plc(alarmService(context).monitor(target.id).plcId, window);
        const service = alarmService(context);
        return kpis.fleet(
          service.plcIds().filter((id) => canAccessPlc(principal, id)),
          window,
        );
      },
    }),
  ];
}
