// MQTT publishing (setting Mqtt.Enabled): starts the publisher with the app, adds the `mqtt` readiness check and
// the MQTT figures in /metrics. The publisher rides on the notification and alarm services those features publish.
import type { FeaturePlugin } from '../../http/feature-context.ts';
import { alarmServiceKey } from '../alarms/service.ts';
import { readinessChecksKey } from '../health/service.ts';
import { notificationServiceKey } from '../notifications/service.ts';
import { registerMqttMetrics } from './mqtt-metrics.ts';
import { MqttService } from './service.ts';

export const mqttRoutes: FeaturePlugin = (app, context) => {
  const { config, registry, services, metrics, now, audit } = context;
  if (!config.settings.Mqtt.Enabled) return;
  const notifications = services.find(notificationServiceKey);
  if (notifications === undefined) throw new Error('MQTT publishing needs the notification service.');
  const alarms = config.features.Alarms ? services.find(alarmServiceKey) : undefined;
  const service = new MqttService(config, registry, {
    log: app.log,
    now,
    shared: (target) => notifications.shared(target),
    alarms,
    audit,
    contentRoot: config.contentRoot,
  });
  registerMqttMetrics(metrics, service);
  services.find(readinessChecksKey)?.add(() => service.check());
  app.addHook('onReady', () => service.start());
  app.addHook('onClose', () => service.stop());
};
