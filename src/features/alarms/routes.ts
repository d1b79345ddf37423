// Alarm routes (flag Alarms): outstanding list per PLC and fleet-wide, acknowledge, history, shelving and out of
// service with their journal, the streams, /health/alarms. Per-PLC routes serve monitored PLCs only: any other plcId is 404 PLC_NOT_FOUND (spec rule 1).
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { principalOf, targetOf } from '../../guards/install-guards.ts';
import { canAccessPlc } from '../../guards/principal.ts';
import { auditParam, noteAudit } from '../../http/audit-hooks.ts';
import { envelopeResponses, ok, okFrame } from '../../http/envelope.ts';
import type { FeaturePlugin } from '../../feature-kit/feature-context.ts';
import { PlcIdParams } from '../../http/schemas.ts';
import {
  AcknowledgeResult,
  Alarm,
  AlarmKeyParams,
  AlarmList,
  HistoryPage,
  HistoryQuery,
  IncludeQuery,
} from './schemas.ts';
import { notificationServiceKey } from '../notifications/index.ts';
import { sharedShelving } from './cluster/shared-shelving.ts';
import type { DeadlineClock } from '../../http/streams/token-deadlines.ts';
import { ShelvingFile } from './shelving-file.ts';
import { LocalShelving } from './shelving.ts';
import { parseInclude } from './management.ts';
import { shelvingRoutes } from './shelving-routes.ts';
import { AlarmLeases } from './cluster/alarm-leases.ts';
import { AlarmListBodies } from './list-body.ts';
import { alarmArchiveKey } from './archive.ts';
import { AlarmService, alarmServiceKey } from './service.ts';
import { alarmStreamRoutes } from './stream-routes.ts';
import { alarmKpiRoutes } from './kpis/routes.ts';
import { AlarmKpis, alarmKpisKey } from './kpis/service.ts';
import { emptyCatalog, loadTextCatalog, parseAcceptLanguage } from './text-catalog.ts';

const HealthStatus = Type.Union([
  Type.Literal('Healthy'),
  Type.Literal('Degraded'),
  Type.Literal('Unhealthy'),
]);
const AlarmHealth = Type.Object({
  status: HealthStatus,
  checks: Type.Array(
    Type.Object({
      name: Type.String(),
      status: HealthStatus,
      description: Type.String(),
      data: Type.Object(
        { shelved: Type.Integer(), outOfService: Type.Integer(), suppressed: Type.Integer() },
        { description: 'Outstanding alarms the check leaves out: shelved, out of service, suppressed' },
      ),
    }),
  ),
});

const cultures = (request: FastifyRequest): string[] =>
  parseAcceptLanguage(request.headers['accept-language']);

export const alarmsRoutes: FeaturePlugin = async (app, context) => {
  const { config, registry, now, services, cluster, metrics, deadlines } = context;
  const alarmSettings = config.settings.PlcAlarms;
  const catalogFile = alarmSettings.TextCatalog;
  const catalog =
    catalogFile === undefined || !config.features.Alarms
      ? emptyCatalog
      : await loadTextCatalog(catalogFile, (key) =>
          app.log.warn({ key, catalog: catalogFile }, 'alarm key has no text in PlcAlarms.TextCatalog'),
        );
  // Cluster mode: one lease holder per PLC watches its alarms; the journals live in Redis streams.
  const leases = cluster && new AlarmLeases(cluster.cluster, metrics, app.log);
  if (leases) {
    cluster?.reportLeases(() => leases.holders());
    // Added before the service's hook so it runs after it: onClose hooks run in reverse order.
    app.addHook('onClose', () => leases.stop());
  }
  const sources = leases?.sources({ log: app.log, now });
  // Replicas share shelving in Redis; one gateway keeps it in memory, and in a file when one is set.
  const stateFile = alarmSettings.ShelvingStateFile;
  const file =
    !cluster && stateFile !== undefined && config.features.Alarms
      ? new ShelvingFile(stateFile, {
          clock: deadlines,
          intervalMs: alarmSettings.ShelvingWriteIntervalMs,
          onError: (err) =>
            app.log.error({ err: err.message }, 'alarm shelving state not written to its file'),
        })
      : undefined;
  if (file) app.addHook('onClose', () => file.flush());
  const shelving = cluster
    ? sharedShelving(cluster.cluster, alarmSettings, app.log)
    : file &&
      ((plcId: string, clock: DeadlineClock) =>
        new LocalShelving(clock, alarmSettings.ShelvingJournalLength, {
          book: file.book(plcId),
          log: app.log,
        }));
  const service = new AlarmService(registry, alarmSettings, {
    log: app.log,
    now,
    catalog,
    sources,
    clock: deadlines,
    shelving,
    observe: services.find(notificationServiceKey),
  });
  services.provide(alarmServiceKey, service);
  if (config.features.Alarms) {
    app.addHook('onReady', () => service.start());
    app.addHook('onClose', () => service.stop());
  }
  app.addSchema(Alarm);
  // List bodies are served as bytes made ahead (the typed reply only knows the envelope they stand for).
  const bodies = new AlarmListBodies(service, okFrame);
  const json = 'application/json; charset=utf-8';
  const monitored = {
    serves: (plcId: string) => service.isMonitored(plcId),
    notServed: (plcId: string) => `No alarm monitoring is configured for PLC '${plcId}'.`,
  };

  const tags = ['Alarms'];
  app.get(
    '/api/plcs/:plcId/alarms',
    {
      schema: {
        tags,
        summary: 'Outstanding alarms of one monitored PLC',
        params: PlcIdParams,
        querystring: IncludeQuery,
        response: envelopeResponses(AlarmList),
      },
      config: { feature: 'Alarms', policy: 'ReadAccess', plcScoped: monitored, limit: 'AlarmReads' },
    },
    async (request, reply) => {
      const include = parseInclude(request.query.include);
      return reply.type(json).send(bodies.body([targetOf(request).id], cultures(request), include) as never);
    },
  );

  app.get(
    '/api/alarms',
    {
      schema: {
        tags,
        summary: 'Outstanding alarms of every monitored PLC the caller’s plc_access permits',
        querystring: IncludeQuery,
        response: envelopeResponses(AlarmList),
      },
      config: { feature: 'Alarms', policy: 'ReadAccess', limit: 'AlarmReads', fleet: true },
    },
    async (request, reply) => {
      const include = parseInclude(request.query.include);
      const principal = principalOf(request);
      const permitted = service.plcIds().filter((id) => canAccessPlc(principal, id));
      return reply.type(json).send(bodies.body(permitted, cultures(request), include) as never);
    },
  );

  app.post(
    '/api/plcs/:plcId/alarms/:key/acknowledge',
    {
      schema: {
        tags,
        summary: 'Acknowledge one alarm by key (calls the PLC’s acknowledge method; no body)',
        params: AlarmKeyParams,
        response: envelopeResponses(AcknowledgeResult),
      },
      config: {
        feature: 'Alarms',
        policy: 'WriteAccess',
        plcScoped: monitored,
        limit: 'RpcInvocations',
        audit: auditParam('alarm.acknowledge', 'key'),
      },
    },
    async (request) => {
      const target = targetOf(request);
      const { sub } = principalOf(request);
      const { key } = request.params;
      const log = { sub, plcId: target.id, key };
      try {
        const acknowledged = await service.acknowledge(target, key, sub);
        noteAudit(request, { newValue: { acknowledged } });
        request.log.info(
          { ...log, result: acknowledged ? 'acknowledged' : 'not-acknowledged' },
          'alarm acknowledge',
        );
        return ok({ acknowledged });
      } catch (err) {
        const code = (err as { code?: unknown }).code;
        request.log.info(
          { ...log, result: typeof code === 'string' ? code : 'INTERNAL_ERROR' },
          'alarm acknowledge',
        );
        throw err;
      }
    },
  );

  app.get(
    '/api/plcs/:plcId/alarms/history',
    {
      schema: {
        tags,
        summary: 'The alarm journal: transitions oldest first, with a cursor',
        params: PlcIdParams,
        querystring: HistoryQuery,
        response: envelopeResponses(HistoryPage),
      },
      config: { feature: 'Alarms', policy: 'ReadAccess', plcScoped: monitored },
    },
    async (request) => {
      const { after, limit, from, to } = request.query;
      const plcId = targetOf(request).id;
      if (from === undefined && to === undefined)
        return ok(service.history(plcId, after, limit, cultures(request)));
      const archive = services.find(alarmArchiveKey);
      return ok(await service.historyWindow(plcId, { from, to }, after, limit, cultures(request), archive));
    },
  );

  shelvingRoutes(app, service, alarmSettings, monitored);
  alarmStreamRoutes(app, context, service, monitored);

  const kpis = new AlarmKpis({
    alarms: service,
    settings: alarmSettings.Kpis,
    retentionDays: config.settings.History.RetentionDays,
    now,
    archive: () => services.find(alarmArchiveKey),
  });
  services.provide(alarmKpisKey, kpis);
  alarmKpiRoutes(app, kpis, service, monitored);

  app.get(
    '/health/alarms',
    {
      schema: {
        tags: ['Health'],
        summary: 'Worst outstanding alarm severity (Healthy/Degraded 200, Unhealthy 503); anonymous',
        response: { 200: AlarmHealth, 503: AlarmHealth },
      },
      config: { feature: 'Alarms' },
    },
    (_request, reply) => {
      const report = service.health();
      void reply.header('Cache-Control', 'no-store').status(report.status === 'Unhealthy' ? 503 : 200);
      return report;
    },
  );
};
