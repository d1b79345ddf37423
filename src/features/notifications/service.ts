// Live variable notifications per PLC: the shared subscriptions, the sessions of its clients, and the link
// events (`disconnected`, then `reconnected` followed by the fresh value of every symbol in use, once).
import type { ConnectionState, PlcTarget } from '../../targets/target.ts';
import type { EventSink } from '../../http/streams/outbox.ts';
import { ServiceKey } from '../../feature-kit/service-directory.ts';
import { NotificationSession, quotaExceeded, type UserQuota } from './session.ts';
import { DeliveryBatch, deliveryWindowMs, type Schedule } from './delivery-batch.ts';
import {
  sharedKey,
  SharedSubscriptions,
  type ChangeObserver,
  type Membership,
  type Observation,
} from './shared-subscriptions.ts';
import { defaultOptions, type OptionBounds, type SubscriptionOptions } from './options.ts';

export interface NotificationSettings {
  /** The cycle of a subscription that names none, and what a client may ask for. */
  readonly bounds: OptionBounds;
  readonly maxSymbols: number;
  /** Notifications.MaxSubscriptionsPerUser (per PLC); none: unbounded. */
  readonly maxSubscriptionsPerUser?: number;
  /** Gateway clock (the longest interval between sends). */
  readonly now: () => number;
  /** When gathered changes go out; tests hold the window open by hand. */
  readonly schedule?: Schedule;
  /** Timers of the resends (maxIntervalMs); tests fire them by hand. */
  readonly timers?: Schedule;
}

class PlcChannel {
  readonly shared: SharedSubscriptions;
  readonly sessions = new Set<NotificationSession>();
  /** The sessions of each user (token sub), for MaxSubscriptionsPerUser. */
  readonly byUser = new Map<string, Set<NotificationSession>>();
  readonly #target: PlcTarget;
  readonly #batch: DeliveryBatch;
  readonly #stop: () => void;
  #up: boolean;

  constructor(target: PlcTarget, settings: NotificationSettings, batch: DeliveryBatch) {
    this.#target = target;
    this.#batch = batch;
    this.shared = new SharedSubscriptions(
      target,
      {
        defaults: defaultOptions(settings.bounds),
        now: settings.now,
        ...(settings.timers ? { timers: settings.timers } : {}),
      },
      batch,
    );
    this.#up = target.connectionState() === 'Connected';
    this.#stop = target.onConnectionState((state) => this.#onState(state));
  }

  async close(): Promise<void> {
    this.#stop();
    await Promise.all([...this.sessions].map((s) => s.close()));
    await this.shared.closeAll();
  }

  #onState(state: ConnectionState): void {
    const up = state === 'Connected';
    if (up === this.#up) return;
    this.#up = up;
    // Changes seen before the link went down (or came back) go out before the news of it.
    this.#batch.flush();
    const plcId = this.#target.id;
    if (!up) {
      const data = JSON.stringify({ plcId, code: 'PLC_UNAVAILABLE' });
      for (const s of this.sessions) s.emit({ name: 'disconnected', data });
      return;
    }
    // The fresh values follow from the target itself: every subscription it restores delivers its current
    // value first, as a re-registered ADS notification does. Reading them here as well sent each twice. A
    // client's deadband does not hold them back.
    this.shared.resetFilters();
    const data = JSON.stringify({ plcId });
    for (const s of this.sessions) s.emit({ name: 'reconnected', data });
  }
}

/** The sharing keys `sessions` hold, the memberships of `skip` left out. */
function heldKeys(sessions: Iterable<NotificationSession>, skip: ReadonlySet<Membership>): Set<string> {
  const keys = new Set<string>();
  for (const s of sessions) for (const m of s.memberships()) if (!skip.has(m)) keys.add(m.shared.key);
  return keys;
}

export class NotificationService {
  readonly #settings: NotificationSettings;
  readonly #channels = new Map<string, PlcChannel>();
  readonly #batch: DeliveryBatch;

  constructor(settings: NotificationSettings) {
    this.#settings = settings;
    this.#batch = new DeliveryBatch(deliveryWindowMs(settings.bounds.defaultCycleMs), settings.schedule);
  }

  #channel(target: PlcTarget): PlcChannel {
    let channel = this.#channels.get(target.id);
    if (channel === undefined) {
      channel = new PlcChannel(target, this.#settings, this.#batch);
      this.#channels.set(target.id, channel);
    }
    return channel;
  }

  /**
   * A new client session of `user` (the token's sub) on `target`; its events go to `sink`. Close it when the
   * client goes.
   */
  open(target: PlcTarget, sink: EventSink, user = ''): NotificationSession {
    const c = this.#channel(target);
    let mine = c.byUser.get(user);
    if (mine === undefined) {
      mine = new Set();
      c.byUser.set(user, mine);
    }
    const own = mine;
    const max = this.#settings.maxSubscriptionsPerUser;
    const quota: UserQuota | undefined =
      max === undefined ? undefined : { max, held: (skip) => heldKeys(own, skip) };
    const session = new NotificationSession(
      c.shared,
      sink,
      this.#settings.maxSymbols,
      () => {
        c.sessions.delete(session);
        own.delete(session);
        if (own.size === 0 && c.byUser.get(user) === own) c.byUser.delete(user);
      },
      quota,
    );
    c.sessions.add(session);
    own.add(session);
    return session;
  }

  /**
   * 400 SUBSCRIPTION_LIMIT_EXCEEDED when a new session of `user` subscribing `paths` with `options` would pass
   * MaxSubscriptionsPerUser on `target`: checked before an SSE stream opens, so the refusal is plain JSON.
   */
  assertQuota(target: PlcTarget, user: string, paths: readonly string[], options: SubscriptionOptions): void {
    const max = this.#settings.maxSubscriptionsPerUser;
    if (max === undefined) return;
    const keys = heldKeys(this.#channels.get(target.id)?.byUser.get(user) ?? [], new Set());
    for (const p of paths) keys.add(sharedKey(p, options));
    if (keys.size > max) throw quotaExceeded(max, keys.size);
  }

  /** Holds `path` of `target` open for an observer inside the gateway, on the subscription clients share. */
  observe(target: PlcTarget, path: string, observer: ChangeObserver): Observation {
    return this.#channel(target).shared.observe(path, observer);
  }

  /**
   * The shared subscriptions of `target`, for features that publish live values elsewhere (MQTT): a symbol they
   * hold that a stream client also watches costs the PLC one notification.
   */
  shared(target: PlcTarget): SharedSubscriptions {
    return this.#channel(target).shared;
  }

  /**
   * Stream clients and in-gateway observers of `path` on `plcId`, who share one target subscription between
   * them; undefined when this service holds no subscription of it.
   */
  holders(
    plcId: string,
    path: string,
    options: Pick<SubscriptionOptions, 'cycleMs' | 'mode'>,
  ): number | undefined {
    return this.#channels.get(plcId)?.shared.holders(path, options);
  }

  /** Target subscriptions open on a PLC (one per symbol, cycle and mode in use). */
  subscriptionCount(plcId: string): number {
    return this.#channels.get(plcId)?.shared.size ?? 0;
  }

  async close(): Promise<void> {
    this.#batch.flush();
    const all = [...this.#channels.values()];
    this.#channels.clear();
    await Promise.all(all.map((c) => c.close()));
  }
}

/** The app's one NotificationService, for observers inside the gateway (the historian) to share its subscriptions. */
export const notificationServiceKey = new ServiceKey<NotificationService>('notifications');
