// One PlcTarget subscription per (symbol, cycle, mode) per PLC, shared by every client that asks for the same
// (reference-counted, closed when the last client leaves). Each change is serialised once, and the changes of one
// delivery window reach each client in one call (see delivery-batch.ts): per-client work is a queue push, not a
// walk over every listener. A client with a deadband or a longest interval has them applied to it alone.
import { AppError, isAppError } from '../../errors.ts';
import { deadbandNumber, ValueFilter } from '../../feature-kit/value-filter.ts';
import type { ChangeEvent, PlcTarget, Subscription, TypeChangedNotice } from '../../targets/target.ts';
import {
  audienceOf,
  changeEvent,
  timers,
  type Audience,
  type ChangeReceiver,
  type DeliveryBatch,
  type Schedule,
} from './delivery-batch.ts';
import { sharingKey, type SubscriptionOptions } from './options.ts';

/** A client of the shared subscriptions (a session): gets changes, and hears of symbols that vanish. */
export interface SymbolClient extends ChangeReceiver {
  /** A symbol it held stopped existing (a program download): the membership has already ended. */
  invalidated(membership: Membership, error: { symbol: string; code: string; message: string }): void;
  /** A program change gave a held symbol another type or size; the membership goes on, in the new type. */
  typeChanged?(membership: Membership, notice: TypeChangedNotice): void;
}

/** One client's hold on one shared symbol; a plain object, because a client may hold many. */
export class Membership {
  #held = true;
  /** Set when the client asked for a deadband or a longest interval: its changes are filtered for it alone. */
  readonly filter: ValueFilter | undefined;
  /** The audience of this client alone, for changes that pass its filter. */
  solo: Audience | undefined;
  /** Cancels the pending resend (maxIntervalMs). */
  cancelResend: (() => void) | undefined;

  constructor(
    readonly subscriptions: SharedSubscriptions,
    readonly shared: Shared,
    readonly client: SymbolClient,
    /** The spelling of the path this client asked for. */
    readonly path: string,
    /** The effective options it subscribed with. */
    readonly options: SubscriptionOptions,
  ) {
    if (options.deadband > 0 || options.maxIntervalMs > 0) {
      this.filter = new ValueFilter({ deadband: options.deadband, maxIntervalMs: options.maxIntervalMs });
    }
  }

  /** Whether the client still holds it. */
  get held(): boolean {
    return this.#held;
  }

  /** Leaves at once, even while the subscription is still being made; the last to leave closes it. */
  release(): Promise<void> {
    if (!this.#held) return Promise.resolve();
    this.#held = false;
    return this.subscriptions.leave(this);
  }

  /** Ended from the shared side (the symbol vanished). */
  end(): void {
    this.#held = false;
    this.cancelResend?.();
    this.cancelResend = undefined;
  }
}

export interface Joined {
  readonly membership: Membership;
  /** Settles once the target subscription exists; rejects with its error (the membership has then ended). */
  readonly ready: Promise<void>;
}

/**
 * A listener inside the gateway (the historian) that holds a symbol like a client does but gets each change as it
 * arrives, undelivered: it costs the PLC no second notification when clients watch the same symbol.
 */
export interface ChangeObserver {
  change(event: ChangeEvent): void;
  /** The symbol stopped existing (a program download); the observation has already ended. */
  invalidated(error: { symbol: string; code: string; message: string }): void;
  /** A program change gave the symbol another type or size; the observation goes on, in the new type. */
  typeChanged?(notice: TypeChangedNotice): void;
}

export interface Observation {
  /** Settles once the target subscription exists; rejects with its error (the observation has then ended). */
  readonly ready: Promise<void>;
  release(): Promise<void>;
}

export interface Shared {
  /** Symbol, cycle and mode: see sharedKey. */
  readonly key: string;
  readonly cycleMs: number;
  readonly mode: SubscriptionOptions['mode'];
  readonly members: Set<Membership>;
  /** The members with a filter (deadband, longest interval); the others make up the audience. */
  readonly filtered: Set<Membership>;
  readonly observers: Set<ChangeObserver>;
  /** Who gets this symbol's changes unfiltered; recomputed after a join or leave. */
  audience: Audience | undefined;
  subscription: Subscription | undefined;
  ready: Promise<void>;
  last: ChangeEvent | undefined;
}

/** The client an observation joins as: it is never in an audience, so it receives nothing. */
const observerClient: SymbolClient = {
  receiverId: -1,
  receive: () => undefined,
  invalidated: () => undefined,
};

/** What the shared subscriptions of a PLC need besides the target and the batch. */
export interface SharedSettings {
  /** Options of a join that names none (the defaults: Notifications.DefaultCycleTimeMs, on-change). */
  readonly defaults: SubscriptionOptions;
  /** Gateway clock: when a value was sent, for the longest interval. */
  readonly now: () => number;
  /** Timers of the resends (maxIntervalMs). */
  readonly timers?: Schedule;
}

/** Subscriptions share a target subscription when symbol (case-insensitive), cycle and mode are equal. */
export function sharedKey(path: string, options: Pick<SubscriptionOptions, 'cycleMs' | 'mode'>): string {
  return `${path.trim().toUpperCase()}|${sharingKey(options)}`;
}

export class SharedSubscriptions {
  readonly #target: PlcTarget;
  readonly #settings: SharedSettings;
  readonly #timers: Schedule;
  readonly #shared = new Map<string, Shared>();
  /** Shared by every PLC's subscriptions, so one window's changes of all PLCs go out together. */
  readonly #batch: DeliveryBatch;

  constructor(target: PlcTarget, settings: SharedSettings, batch: DeliveryBatch) {
    this.#target = target;
    this.#settings = settings;
    this.#timers = settings.timers ?? timers;
    this.#batch = batch;
  }

  /** Live target subscriptions: one per (symbol, cycle, mode) in use. */
  get size(): number {
    return this.#shared.size;
  }

  /**
   * Stream clients and in-gateway observers sharing the target subscription of (`path`, cycle, mode), if there is
   * one.
   */
  holders(path: string, options: Pick<SubscriptionOptions, 'cycleMs' | 'mode'>): number | undefined {
    const s = this.#shared.get(sharedKey(path, options));
    return s === undefined ? undefined : s.members.size + s.observers.size;
  }

  /** The options of a join that names none. */
  get defaults(): SubscriptionOptions {
    return this.#settings.defaults;
  }

  /** Those of `paths` whose current value is not a number a deadband can compare (unreadable ones left out). */
  async notNumeric(paths: readonly string[]): Promise<string[]> {
    const read = await this.#target.readMany(paths);
    return read.flatMap((r, i) =>
      'value' in r && deadbandNumber(r.typeName, r.value) === undefined ? [paths[i] ?? r.symbol] : [],
    );
  }

  /**
   * Joins (or opens) the shared subscription of `path`. A joiner gets the last value at once; the first client
   * gets the target's first notification, which is the current value. `ready` rejects with the target's error
   * (SYMBOL_NOT_FOUND, PLC_UNAVAILABLE) when the symbol cannot be subscribed.
   */
  join(path: string, client: SymbolClient, options: SubscriptionOptions = this.defaults): Joined {
    const key = sharedKey(path, options);
    let shared = this.#shared.get(key);
    if (shared === undefined) {
      const created: Shared = {
        key,
        cycleMs: options.cycleMs,
        mode: options.mode,
        members: new Set(),
        filtered: new Set(),
        observers: new Set(),
        audience: undefined,
        subscription: undefined,
        ready: Promise.resolve(),
        last: undefined,
      };
      created.ready = this.#open(created, path);
      this.#shared.set(key, created);
      shared = created;
    }
    const s = shared;
    const membership = new Membership(this, s, client, path, options);
    s.members.add(membership);
    if (membership.filter !== undefined) s.filtered.add(membership);
    else s.audience = undefined;
    // A joiner starts from the last value; one who came first gets the target's first notification instead.
    if (s.last !== undefined) {
      client.receive([changeEvent(path, s.last)]);
      if (membership.filter !== undefined) this.#sent(membership, s.last);
    }
    const ready = s.ready.catch((err: unknown) => {
      void membership.release();
      throw err;
    });
    return { membership, ready };
  }

  /** Holds `path` open for `observer`, which gets its changes as they arrive (the last value at once). */
  observe(path: string, observer: ChangeObserver): Observation {
    const { membership, ready } = this.join(path, observerClient);
    const s = membership.shared;
    // Held as a membership (reference counting) whose client receives nothing; the observer gets raw changes.
    s.members.delete(membership);
    s.audience = undefined;
    s.observers.add(observer);
    if (s.last !== undefined) observer.change({ ...s.last, symbol: path });
    let held = true;
    return {
      ready: ready.catch((err: unknown) => {
        s.observers.delete(observer);
        throw err;
      }),
      release: () => {
        if (!held) return Promise.resolve();
        held = false;
        s.observers.delete(observer);
        return this.#closeIfUnused(s);
      },
    };
  }

  /** Called by Membership.release. */
  async leave(m: Membership): Promise<void> {
    // Changes gathered while it held the symbol reach it before it lets go: none after its unsubscribe's answer.
    this.#batch.flush();
    const s = m.shared;
    m.cancelResend?.();
    m.cancelResend = undefined;
    s.members.delete(m);
    if (!s.filtered.delete(m)) s.audience = undefined;
    await this.#closeIfUnused(s);
  }

  async #closeIfUnused(s: Shared): Promise<void> {
    if (s.members.size > 0 || s.observers.size > 0 || this.#shared.get(s.key) !== s) return;
    this.#shared.delete(s.key);
    // Made or failed: closed once it exists.
    await s.ready.catch(() => undefined);
    await s.subscription?.close();
  }

  /** Closes every target subscription (app shutdown). */
  async closeAll(): Promise<void> {
    const all = [...this.#shared.values()];
    this.#shared.clear();
    for (const s of all) for (const m of s.filtered) m.end();
    await Promise.all(all.map((s) => s.subscription?.close().catch(() => undefined) ?? Promise.resolve()));
  }

  async #open(s: Shared, path: string): Promise<void> {
    try {
      s.subscription = await this.#target.subscribe(path, {
        cycleTimeMs: s.cycleMs,
        mode: s.mode,
        onChange: (e) => this.#fanOut(s, e),
        onError: (e) => this.#invalidate(s, e),
        onTypeChanged: (n) => this.#retyped(s, n),
      });
    } catch (err) {
      if (this.#shared.get(s.key) === s) this.#shared.delete(s.key);
      throw isAppError(err) ? err : new AppError('INTERNAL_ERROR');
    }
  }

  #fanOut(s: Shared, e: ChangeEvent): void {
    s.last = e;
    for (const o of s.observers) o.change(e);
    if (s.members.size === 0) return;
    if (s.members.size > s.filtered.size) {
      s.audience ??= audienceOf([...s.members].filter((m) => m.filter === undefined));
      this.#batch.add(s.audience, e);
    }
    for (const m of s.filtered) {
      if (m.filter?.passes(e.typeName, e.value) === true) this.#send(m, e);
    }
  }

  /** The last value sent to each filtered client is forgotten: after a reconnect, the fresh values all go out. */
  resetFilters(): void {
    for (const s of this.#shared.values()) for (const m of s.filtered) m.filter?.reset();
  }

  /** Sends `e` to a filtered member alone. */
  #send(m: Membership, e: ChangeEvent): void {
    m.solo ??= audienceOf([m]);
    this.#batch.add(m.solo, e);
    this.#sent(m, e);
  }

  /** Records a send to a filtered member; with a longest interval, makes sure a resend is pending. */
  #sent(m: Membership, e: ChangeEvent): void {
    const filter = m.filter;
    if (filter === undefined) return;
    filter.mark(e.typeName, e.value, this.#settings.now());
    this.#armResend(m);
  }

  #armResend(m: Membership, wait?: number): void {
    const filter = m.filter;
    if (filter === undefined || m.cancelResend !== undefined || !m.held) return;
    // One timer per client and symbol, moved on only when it fires: a change does not re-arm it.
    const ms = wait ?? filter.dueIn(this.#settings.now());
    if (!Number.isFinite(ms)) return;
    m.cancelResend = this.#timers(
      () => {
        m.cancelResend = undefined;
        this.#resend(m);
      },
      Math.max(1, ms),
    );
  }

  /** The longest interval passed without a send: the current value goes out again, stamped with the time now. */
  #resend(m: Membership): void {
    const filter = m.filter;
    if (filter === undefined || !m.held) return;
    const now = this.#settings.now();
    if (!filter.due(now)) {
      this.#armResend(m);
      return;
    }
    const last = m.shared.last;
    if (last === undefined || this.#target.connectionState() !== 'Connected') {
      // Nothing current to send (the link is down: `disconnected` said so); looked at again an interval later.
      this.#armResend(m, filter.rule.maxIntervalMs);
      return;
    }
    this.#send(m, { ...last, timestamp: new Date(now) });
  }

  #retyped(s: Shared, n: TypeChangedNotice): void {
    // Changes already seen (in the old type) go out before the notice; a joiner now waits for a new-type value.
    this.#batch.flush();
    s.last = undefined;
    // A deadband compares like with like: the first value in the new type goes out to every client.
    for (const m of s.filtered) m.filter?.reset();
    for (const o of [...s.observers]) o.typeChanged?.(n);
    for (const m of [...s.members]) m.client.typeChanged?.(m, { ...n, symbol: m.path });
  }

  #invalidate(s: Shared, e: { symbol: string; code: string; message: string }): void {
    // Changes already seen go out before the error.
    this.#batch.flush();
    if (this.#shared.get(s.key) === s) this.#shared.delete(s.key);
    const members = [...s.members];
    s.members.clear();
    s.filtered.clear();
    const observers = [...s.observers];
    s.observers.clear();
    for (const o of observers) o.invalidated({ symbol: e.symbol, code: e.code, message: e.message });
    for (const m of members) {
      m.end();
      m.client.invalidated(m, { symbol: m.path, code: e.code, message: e.message });
    }
    s.audience = undefined;
    void s.subscription?.close().catch(() => undefined);
  }
}
