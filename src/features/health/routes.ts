// Anonymous health endpoints for orchestrators: /health/live (process up) and /health/ready (PLC connectivity).
// They answer the health-check shape `{ status, checks }`, not the envelope, as probes and the spec expect.
// /health/ready keeps the checks' data (PLC ids, replicas, lease holders) to admins unless Health.Detailed is on;
// a ReadAccess token sees its own PLCs' per-PLC data.
import { Type } from '@sinclair/typebox';
import type { FeaturePlugin } from '../../feature-kit/feature-context.ts';
import { etherCatDiagnosticsKey } from '../ethercat/index.ts';
import {
  httpStatusOf,
  presentReadiness,
  ReadinessChecks,
  readinessChecksKey,
  readiness,
  readinessView,
} from './service.ts';

const Status = Type.Union([Type.Literal('Healthy'), Type.Literal('Degraded'), Type.Literal('Unhealthy')]);

const HealthReport = Type.Object({
  status: Status,
  checks: Type.Array(
    Type.Object({
      name: Type.String(),
      status: Status,
      description: Type.String(),
      data: Type.Optional(
        Type.Record(Type.String(), Type.Unknown(), {
          description:
            'With Health.Detailed on, or for an admin token whose plc_access reaches every PLC: every check; for another ReadAccess token: plc-connectivity and ethercat of its PLCs only; anonymous: none. plc-connectivity: connection state by plcId, and `<plcId>.lastError` (`<code>: <message>`) while one is not connected; ethercat: bus status by plcId; cluster: replica, redis, replicas, leases (alarm lease holders by plcId), mqttLeases (the plcIds this replica publishes over MQTT, with Mqtt on); mqtt: broker, sessions, buffered, dropped',
        }),
      ),
    }),
  ),
});

export const healthRoutes: FeaturePlugin = (app, { registry, cluster, config, services }) => {
  const etherCat = services.get(etherCatDiagnosticsKey);
  const added = new ReadinessChecks();
  services.provide(readinessChecksKey, added);
  // The EtherCAT check joins readiness only where EtherCAT diagnostics are on.
  const etherCatCheck = () => (config.features.EtherCatDiagnostics ? [etherCat.monitor.check()] : []);
  app.get(
    '/health/live',
    {
      schema: {
        tags: ['Health'],
        summary: 'The process is up',
        response: { 200: Type.Object({ status: Type.Literal('Healthy') }) },
      },
    },
    () => ({ status: 'Healthy' as const }),
  );

  app.get(
    '/health/ready',
    {
      config: { optionalToken: true },
      schema: {
        tags: ['Health'],
        summary:
          'Ready: PLC connectivity, EtherCAT, the cluster and MQTT where on (Healthy 200, Degraded 200, Unhealthy 503)',
        description:
          'Anonymous. Without Health.Detailed each check has its name, status and a fixed description; an admin ' +
          'bearer token whose plc_access reaches every PLC gets the full report, another ReadAccess token the ' +
          'per-PLC data of its own PLCs. A bad or missing token is answered as anonymous, never 401.',
        response: { 200: HealthReport, 503: HealthReport },
      },
    },
    async (request, reply) => {
      const report = readiness(registry.list(), [
        ...etherCatCheck(),
        ...(cluster ? [await cluster.check()] : []),
        ...added.run(),
      ]);
      // The answer depends on the caller's token: no cache may hand an admin's answer to anyone else.
      void reply
        .header('Cache-Control', 'no-store')
        .header('Vary', 'Authorization')
        .status(httpStatusOf(report.status));
      const view = readinessView(config.settings.Health.Detailed, request.principal);
      return presentReadiness(report, view, request.principal);
    },
  );
};
