// MQTT publishing (setting Mqtt.Enabled): starts the publisher with the app, adds the `mqtt` readiness check, the
// MQTT figures in /metrics, and GET /api/admin/mqtt (the console's admin view). The publisher rides on the
// notification and alarm services those features publish.
import { Type } from '@sinclair/typebox';
import { principalOf } from '../../guards/install-guards.ts';
import { canAccessPlc } from '../../guards/principal.ts';
import { envelopeResponses, ok } from '../../http/envelope.ts';
import type { FeaturePlugin } from '../../feature-kit/feature-context.ts';
import { alarmServiceKey } from '../alarms/index.ts';
import { readinessChecksKey } from '../health/index.ts';
import { notificationServiceKey } from '../notifications/index.ts';
import { registerMqttMetrics } from './mqtt-metrics.ts';
import { MqttService, type MqttStatus } from './service.ts';

const LinkState = Type.Union([
  Type.Literal('Connecting'),
  Type.Literal('Connected'),
  Type.Literal('Disconnected'),
]);

const MqttStatusSchema = Type.Object({
  enabled: Type.Boolean(),
  mode: Type.Optional(Type.Union([Type.Literal('SparkplugB'), Type.Literal('Json')])),
  url: Type.Optional(Type.String({ description: 'The broker, without credentials' })),
  edgeNodeId: Type.Optional(
    Type.String({
      description: "Sparkplug: this gateway's edge node id (cluster mode: `<EdgeNodeId>-<ReplicaId>`)",
    }),
  ),
  replicaId: Type.Optional(Type.String({ description: 'Cluster mode: the replica answering' })),
  sessions: Type.Array(
    Type.Object({
      clientId: Type.String(),
      plcId: Type.Optional(Type.String({ description: 'Json mode: the PLC of this session' })),
      state: LinkState,
      since: Type.String({ format: 'date-time' }),
      lastError: Type.Optional(Type.String()),
    }),
  ),
  devices: Type.Array(
    Type.Object({
      plcId: Type.String(),
      online: Type.Boolean({
        description:
          'Born: the PLC is reachable and its values were published (cluster mode: by this replica, which holds its MQTT lease)',
      }),
      metrics: Type.Integer({ description: 'Symbols published' }),
    }),
  ),
  messages: Type.Integer(),
  bytes: Type.Integer(),
  buffered: Type.Integer({ description: 'Changes held while the broker is out of reach' }),
  dropped: Type.Integer({ description: 'Changes dropped because the buffer was full' }),
});

export const mqttRoutes: FeaturePlugin = (app, context) => {
  const { config, registry, services, metrics, now, audit, cluster } = context;
  let service: MqttService | undefined;
  if (config.settings.Mqtt.Enabled) {
    const notifications = services.find(notificationServiceKey);
    if (notifications === undefined) throw new Error('MQTT publishing needs the notification service.');
    const alarms = config.features.Alarms ? services.find(alarmServiceKey) : undefined;
    const started = new MqttService(config, registry, {
      log: app.log,
      now,
      shared: (target) => notifications.shared(target),
      alarms,
      audit,
      contentRoot: config.contentRoot,
      cluster: cluster?.cluster,
    });
    service = started;
    registerMqttMetrics(metrics, started);
    services.find(readinessChecksKey)?.add(() => started.check());
    // Cluster mode: the `cluster` check lists the PLCs this replica publishes (holds the MQTT lease of).
    cluster?.reportOwnLeases('mqttLeases', () => started.heldLeases());
    app.addHook('onReady', () => started.start());
    app.addHook('onClose', () => started.stop());
  }

  app.get(
    '/api/admin/mqtt',
    {
      schema: {
        tags: ['Admin'],
        summary: 'MQTT publishing: broker sessions, devices (PLCs the caller may see), counters',
        response: envelopeResponses(MqttStatusSchema),
      },
      config: { policy: 'Admin' },
    },
    (request) => {
      if (service === undefined) {
        return ok({
          enabled: false,
          sessions: [],
          devices: [],
          messages: 0,
          bytes: 0,
          buffered: 0,
          dropped: 0,
        });
      }
      const principal = principalOf(request);
      const permitted = (plcId: string | undefined): boolean =>
        plcId === undefined || canAccessPlc(principal, plcId);
      const status: MqttStatus = service.status();
      return ok({
        enabled: true,
        ...status,
        sessions: status.sessions.filter((s) => permitted(s.plcId)),
        devices: status.devices.filter((d) => permitted(d.plcId)),
      });
    },
  );
};
