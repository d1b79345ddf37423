// GET /api/admin/plcs/{plcId}/subscriptions (Admin, and the PLC in plc_access): how the gateway watches what its
// clients subscribed to on one PLC — each ADS notification, each polled symbol (and why), each waiting for the
// connection — and the per-PLC notification figures in /metrics.
import { Type } from '@sinclair/typebox';
import { targetOf } from '../../guards/install-guards.ts';
import { envelopeResponses, ok } from '../../http/envelope.ts';
import { ConnectionState, PlcIdParams, TargetMode } from '../../http/schemas.ts';
import type { FeaturePlugin } from '../../feature-kit/feature-context.ts';
import type { PlcTarget, WatchedSymbol } from '../../targets/target.ts';
import { notificationServiceKey } from '../notifications/index.ts';
import { registerSubscriptionMetrics } from './subscription-metrics.ts';

const Watched = {
  symbol: Type.String(),
  cycleMs: Type.Integer({ description: 'Sampling cycle asked of the PLC, ms' }),
  mode: Type.Union([Type.Literal('on-change'), Type.Literal('cyclic')], {
    description: 'ADS transmission mode',
  }),
  clients: Type.Integer({
    description:
      'Subscribers sharing it: stream clients, plus the historian, MQTT or alarms where they hold it',
  }),
  since: Type.String({ format: 'date-time', description: 'Since when it is watched this way' }),
};

const SubscriptionListing = Type.Object({
  plcId: Type.String(),
  mode: TargetMode,
  connectionState: ConnectionState,
  notificationBudget: Type.Union([Type.Integer(), Type.Null()], {
    description: 'PlcTargets.<plcId>.NotificationBudget; null for a Simulated PLC (no ADS notifications)',
  }),
  plcCapacity: Type.Union([Type.Integer(), Type.Null()], {
    description: 'Notifications of the gateway the PLC held when it last refused one on this connection',
  }),
  refusals: Type.Integer({ description: 'Notifications the PLC refused for lack of resources' }),
  nextRetryAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'When the PLC is next asked for a notification after a refusal',
  }),
  pollPeriodMs: Type.Union([Type.Integer(), Type.Null()], {
    description: 'Period of the sum-read polling; null when nothing is polled',
  }),
  notifications: Type.Array(Type.Object(Watched), { description: 'One ADS notification each' }),
  polled: Type.Array(
    Type.Object({
      ...Watched,
      reason: Type.Union([Type.Literal('budget'), Type.Literal('refused')], {
        description: 'budget: NotificationBudget is spent; refused: the PLC refused a notification',
      }),
    }),
    { description: 'Polled with sum reads' },
  ),
  waiting: Type.Array(Type.Object(Watched), { description: 'Bound again when the PLC is connected' }),
});

/** Subscribers of a target subscription the notification service holds for its streams, or undefined. */
type Holders = (plcId: string, w: WatchedSymbol) => number | undefined;

function listing(target: PlcTarget, holders: Holders) {
  // The notification streams share one target subscription per symbol: count their clients, not it.
  const wire = (w: WatchedSymbol): Omit<WatchedSymbol, 'since'> & { since: string } => {
    const held = holders(target.id, w);
    return {
      ...w,
      clients: held === undefined ? w.clients : w.clients - 1 + held,
      since: w.since.toISOString(),
    };
  };
  const base = { plcId: target.id, mode: target.mode, connectionState: target.connectionState() };
  const port = target.notificationBudget;
  if (port === undefined) {
    return {
      ...base,
      notificationBudget: null,
      plcCapacity: null,
      refusals: 0,
      nextRetryAt: null,
      pollPeriodMs: null,
      notifications: [],
      polled: [],
      waiting: [],
    };
  }
  const r = port.report();
  return {
    ...base,
    notificationBudget: r.notificationBudget,
    plcCapacity: r.plcCapacity,
    refusals: r.refusals,
    nextRetryAt: r.nextRetryAt?.toISOString() ?? null,
    pollPeriodMs: r.pollPeriodMs,
    notifications: r.notifications.map(wire),
    polled: r.polled.map((p) => ({ ...wire(p), reason: p.reason })),
    waiting: r.waiting.map(wire),
  };
}

export const subscriptionRoutes: FeaturePlugin = (app, { registry, metrics, services }) => {
  registerSubscriptionMetrics(metrics, registry);
  const holders: Holders = (plcId, w) =>
    services.find(notificationServiceKey)?.holders(plcId, w.symbol, { cycleMs: w.cycleMs, mode: w.mode });

  app.get(
    '/api/admin/plcs/:plcId/subscriptions',
    {
      schema: {
        tags: ['Admin'],
        summary: 'ADS notifications and polled symbols of one PLC (the notification budget)',
        params: PlcIdParams,
        response: envelopeResponses(SubscriptionListing),
      },
      config: { policy: 'Admin', plcScoped: true },
    },
    (request) => ok(listing(targetOf(request), holders)),
  );
};
