// Per-PLC notification figures in /metrics: ADS notifications in use, symbols polled instead, and notifications
// the PLC refused for lack of resources (Real PLCs only: a simulated one holds no ADS notifications).
import { Counter, Gauge, type Registry } from 'prom-client';
import type { TargetRegistry } from '../../targets/registry.ts';

export function registerSubscriptionMetrics(metrics: Registry, registry: TargetRegistry): void {
  const each = (
    fn: (plcId: string, c: { notifications: number; polled: number; refusals: number }) => void,
  ) => {
    for (const target of registry.list()) {
      const port = target.notificationBudget;
      if (port !== undefined) fn(target.id, port.counts());
    }
  };
  new Gauge({
    name: 'plc_ads_notifications',
    help: 'ADS notifications the gateway holds on the PLC (at most PlcTargets.<plcId>.NotificationBudget).',
    labelNames: ['plcId'],
    registers: [metrics],
    collect() {
      this.reset();
      each((plcId, c) => this.set({ plcId }, c.notifications));
    },
  });
  new Gauge({
    name: 'plc_ads_polled_symbols',
    help: 'Subscribed symbols polled with sum reads: beyond the notification budget or refused by the PLC.',
    labelNames: ['plcId'],
    registers: [metrics],
    collect() {
      this.reset();
      each((plcId, c) => this.set({ plcId }, c.polled));
    },
  });
  new Counter({
    name: 'plc_ads_notification_refusals_total',
    help: 'New ADS notifications the PLC refused for lack of resources (the symbol was polled instead).',
    labelNames: ['plcId'],
    registers: [metrics],
    collect() {
      this.reset();
      each((plcId, c) => this.inc({ plcId }, c.refusals));
    },
  });
}
