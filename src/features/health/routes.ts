// Anonymous health endpoints for orchestrators: /health/live (process up) and /health/ready (PLC connectivity).
// They answer the health-check shape `{ status, checks }`, not the envelope, as probes and the spec expect.
import { Type } from '@sinclair/typebox';
import type { FeaturePlugin } from '../../http/feature-context.ts';
import { httpStatusOf, ReadinessChecks, readinessChecksKey, readiness } from './service.ts';

const Status = Type.Union([Type.Literal('Healthy'), Type.Literal('Degraded'), Type.Literal('Unhealthy')]);

const HealthReport = Type.Object({
  status: Status,
  checks: Type.Array(
    Type.Object({
      name: Type.String(),
      status: Status,
      description: Type.String(),
      data: Type.Record(Type.String(), Type.Unknown(), {
        description:
          'plc-connectivity: connection state by plcId, and `<plcId>.lastError` (`<code>: <message>`) while one is not connected; ethercat: bus status by plcId; cluster: replica, redis, replicas, leases; mqtt: broker, sessions, buffered, dropped',
      }),
    }),
  ),
});

export const healthRoutes: FeaturePlugin = (app, { registry, cluster, config, etherCat, services }) => {
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
      schema: {
        tags: ['Health'],
        summary:
          'Ready: PLC connectivity, EtherCAT, the cluster and MQTT where on (Healthy 200, Degraded 200, Unhealthy 503)',
        response: { 200: HealthReport, 503: HealthReport },
      },
    },
    async (_request, reply) => {
      const report = readiness(registry.list(), [
        ...etherCatCheck(),
        ...(cluster ? [await cluster.check()] : []),
        ...added.run(),
      ]);
      void reply.header('Cache-Control', 'no-store').status(httpStatusOf(report.status));
      return report;
    },
  );
};
