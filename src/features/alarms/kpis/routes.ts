// Alarm KPI routes (flag Alarms, ReadAccess, the HistoryQueries limit): one monitored PLC, and the fleet the
// caller's plc_access permits.
import type { FeatureApp } from '../../../feature-kit/feature-context.ts';
import { principalOf, targetOf } from '../../../guards/install-guards.ts';
import { canAccessPlc } from '../../../guards/principal.ts';
import type { PlcScope } from '../../../guards/route-options.ts';
import { envelopeResponses, ok } from '../../../http/envelope.ts';
import { PlcIdParams } from '../../../http/schemas.ts';
import type { AlarmService } from '../service.ts';
import { FleetKpis, KpiQuery, PlcKpis } from './schemas.ts';
import type { AlarmKpis } from './service.ts';

const description =
  'Computed from the alarm journal: from the history store when History is on, else from what the journal ' +
  'still holds; `covered` states the part of the window the figures are over (and `limitedBy` why it is ' +
  'shorter). Raises per 10 minutes (average, peak), the share of 10-minute periods in flood (more than 10), ' +
  'standing alarms (outstanding longer than 24 h), chattering alarms (3 raises of one key within 60 s), the 10 ' +
  'most frequent keys, time to acknowledge (p50, p90), and how many alarms are shelved, out of service or ' +
  'suppressed now, with the ISA-18.2 / EEMUA 191 benchmarks. 400 VALIDATION_ERROR for a window that is not ' +
  'from < to, starts in the future or is longer than PlcAlarms.Kpis.MaxWindowDays; 429 CONCURRENCY_LIMIT while ' +
  'PlcAlarms.Kpis.MaxConcurrent answers are being computed. A fleet answer reads at most ' +
  'PlcAlarms.Kpis.MaxFleetTransitions transitions, shared by its PLCs.';

export function alarmKpiRoutes(
  app: FeatureApp,
  kpis: AlarmKpis,
  service: AlarmService,
  monitored: PlcScope,
): void {
  const tags = ['Alarms'];
  app.get(
    '/api/plcs/:plcId/alarms/kpis',
    {
      schema: {
        tags,
        summary: 'Alarm-system KPIs (ISA-18.2 / EEMUA 191) of one monitored PLC over a window',
        description,
        params: PlcIdParams,
        querystring: KpiQuery,
        response: envelopeResponses(PlcKpis),
      },
      config: { feature: 'Alarms', policy: 'ReadAccess', plcScoped: monitored, limit: 'HistoryQueries' },
    },
    async (request) => ok(await kpis.plc(targetOf(request).id, request.query)),
  );

  app.get(
    '/api/alarms/kpis',
    {
      schema: {
        tags,
        summary:
          'Alarm-system KPIs of every monitored PLC the caller’s plc_access permits, and of all together',
        description,
        querystring: KpiQuery,
        response: envelopeResponses(FleetKpis),
      },
      config: { feature: 'Alarms', policy: 'ReadAccess', limit: 'HistoryQueries', fleet: true },
    },
    async (request) => {
      const principal = principalOf(request);
      const permitted = service.plcIds().filter((id) => canAccessPlc(principal, id));
      return ok(await kpis.fleet(permitted, request.query));
    },
  );
}
