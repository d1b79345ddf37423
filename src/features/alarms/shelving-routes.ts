// Alarm management routes: shelve and unshelve (WriteAccess), out of service and return to service (Admin), and
// the journal of those changes. Each change is audited and journaled with the caller's sub.
import type { Settings } from '../../config/schema.ts';
import type { FeatureApp } from '../../feature-kit/feature-context.ts';
import { principalOf, targetOf } from '../../guards/install-guards.ts';
import type { PlcScope } from '../../guards/route-options.ts';
import { auditParam, noteAudit } from '../../http/audit-hooks.ts';
import { envelopeResponses, ok } from '../../http/envelope.ts';
import { PlcIdParams } from '../../http/schemas.ts';
import { Type } from '@sinclair/typebox';
import { AlarmKeyParams, ReasonBody, ShelveBody, ShelvingEntry, ShelvingPage } from './schemas.ts';
import type { AlarmService } from './service.ts';

const ShelvingQuery = Type.Object({
  after: Type.Optional(
    Type.Integer({ minimum: 0, description: 'Entries after this seq; default: the oldest held' }),
  ),
  limit: Type.Integer({ minimum: 1, maximum: 1000, default: 100 }),
});

export function shelvingRoutes(
  app: FeatureApp,
  service: AlarmService,
  settings: Settings['PlcAlarms'],
  monitored: PlcScope,
): void {
  const tags = ['Alarms'];
  const maxMinutes = settings.MaxShelveMinutes;
  const maxReason = settings.MaxReasonLength;
  const write = { feature: 'Alarms', policy: 'WriteAccess', plcScoped: monitored } as const;
  const admin = { feature: 'Alarms', policy: 'Admin', plcScoped: monitored } as const;

  app.post(
    '/api/plcs/:plcId/alarms/:key/shelve',
    {
      schema: {
        tags,
        summary: 'Shelve an outstanding alarm for a number of minutes, with a reason (one-shot)',
        description:
          'The alarm leaves the default list, streams and /health/alarms until the shelve runs out, is ended ' +
          'by unshelve, or the alarm’s occurrence ends. Shelving a shelved alarm replaces its shelve. ' +
          `minutes: 1 to PlcAlarms.MaxShelveMinutes (${maxMinutes}). 409 ALARM_NOT_ACTIVE when the alarm is ` +
          'not outstanding, 404 ALARM_NOT_FOUND when no alarm is known under the key.',
        params: AlarmKeyParams,
        body: ShelveBody(maxMinutes, maxReason),
        response: envelopeResponses(ShelvingEntry),
      },
      config: { ...write, audit: auditParam('alarm.shelve', 'key') },
    },
    async (request) => {
      const { key } = request.params;
      const { minutes, reason } = request.body;
      const entry = await service.shelve(
        targetOf(request).id,
        key,
        minutes,
        reason,
        principalOf(request).sub,
      );
      noteAudit(request, { newValue: { minutes, reason: entry.reason, until: entry.until } });
      return ok(entry);
    },
  );

  app.post(
    '/api/plcs/:plcId/alarms/:key/unshelve',
    {
      schema: {
        tags,
        summary: 'End an alarm’s shelve by hand (no body)',
        description: '409 ALARM_NOT_SHELVED when it is not shelved.',
        params: AlarmKeyParams,
        response: envelopeResponses(ShelvingEntry),
      },
      config: { ...write, audit: auditParam('alarm.unshelve', 'key') },
    },
    async (request) => {
      const entry = await service.unshelve(
        targetOf(request).id,
        request.params.key,
        principalOf(request).sub,
      );
      return ok(entry);
    },
  );

  app.post(
    '/api/plcs/:plcId/alarms/:key/out-of-service',
    {
      schema: {
        tags,
        summary: 'Take an alarm out of service, with a reason, until it is returned (admin)',
        description:
          'Out of service alarms leave the default list, streams and /health/alarms, whatever their state, ' +
          'until return-to-service. The alarm need not be outstanding, but must be known (in the alarm array, ' +
          'or named by the TextCatalog): else 404 ALARM_NOT_FOUND.',
        params: AlarmKeyParams,
        body: ReasonBody(maxReason),
        response: envelopeResponses(ShelvingEntry),
      },
      config: { ...admin, audit: auditParam('alarm.out-of-service', 'key') },
    },
    async (request) => {
      const { key } = request.params;
      const entry = await service.takeOutOfService(
        targetOf(request).id,
        key,
        request.body.reason,
        principalOf(request).sub,
      );
      noteAudit(request, { newValue: { reason: entry.reason } });
      return ok(entry);
    },
  );

  app.post(
    '/api/plcs/:plcId/alarms/:key/return-to-service',
    {
      schema: {
        tags,
        summary: 'Return an out-of-service alarm to service (admin; no body)',
        description: '409 ALARM_NOT_OUT_OF_SERVICE when it is not out of service.',
        params: AlarmKeyParams,
        response: envelopeResponses(ShelvingEntry),
      },
      config: { ...admin, audit: auditParam('alarm.return-to-service', 'key') },
    },
    async (request) => {
      const entry = await service.returnToService(
        targetOf(request).id,
        request.params.key,
        principalOf(request).sub,
      );
      return ok(entry);
    },
  );

  app.get(
    '/api/plcs/:plcId/alarms/shelving',
    {
      schema: {
        tags,
        summary:
          'The shelving journal: shelves, unshelves, out of service and return to service, oldest first',
        params: PlcIdParams,
        querystring: ShelvingQuery,
        response: envelopeResponses(ShelvingPage),
      },
      config: { feature: 'Alarms', policy: 'ReadAccess', plcScoped: monitored },
    },
    async (request) => {
      const { after, limit } = request.query;
      const page = await service.shelvingJournal(targetOf(request).id, after, limit);
      return ok({ items: [...page.items], nextAfter: page.nextAfter });
    },
  );
}
