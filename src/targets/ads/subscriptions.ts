// Subscriptions as ADS notifications with PLC timestamps: one notification per (symbol, cycle, mode) shared by
// every subscriber asking for the same (reference-counted), a per-PLC notification budget with sum-read polling
// beyond it (and where the PLC refuses a notification for lack of resources), polled symbols returning to
// notifications as the budget frees, rebinding after reconnects, program downloads and online changes, and re-registration of a
// connection's notifications together so that the PLC checks them in one phase.
import { AppError } from '../../errors.ts';
import type {
  ChangeEvent,
  PollReason,
  SubscribeOptions,
  Subscription,
  SubscriptionReport,
} from '../target.ts';
import { IncrementalDecoder } from '../../plc/index.ts';
import { isRefusal, markRefusal, NotificationCapacity } from './notification-capacity.ts';
import { Poller } from './poller.ts';
import { sortEntries } from './subscription-report.ts';
import type { Session } from './link-session.ts';
import type { AdsLinkSettings } from './settings.ts';
import type { SymbolAddress, SymbolTable } from './symbol-table.ts';
import { decodeValue } from './value-io.ts';
import { checkDecodable } from './undecodable.ts';
import { NotificationAlignment } from './notification-alignment.ts';
import { entryKey, type Entry, type Listener, type NotificationHandle } from './subscription-entry.ts';
import type { ImpactSink } from './program-change-report.ts';
import { retype } from './retype.ts';

export interface SubscriptionHost {
  session(): Session | undefined;
  table(session: Session): Promise<SymbolTable>;
  /** Subscriptions could not be restored on this connection: reconnect and try again. */
  retry(session: Session): void;
  /** A failure nobody awaits (rebinding, releasing, polling): the target logs it. */
  failed(what: string, err: unknown): void;
}

export class SubscriptionManager {
  readonly #host: SubscriptionHost;
  readonly #settings: AdsLinkSettings;
  readonly #entries = new Map<string, Entry>();
  readonly #poller: Poller<Entry>;
  readonly #alignment: NotificationAlignment;
  readonly #capacity: NotificationCapacity;
  /** Polled entries returning to notifications, one at a time (see #pump). */
  #pumping = false;
  #restores = 0;

  constructor(host: SubscriptionHost, settings: AdsLinkSettings) {
    this.#host = host;
    this.#settings = settings;
    this.#poller = new Poller(settings, host, (entry, data, timestamp) =>
      this.#deliver(entry, data, timestamp),
    );
    this.#alignment = new NotificationAlignment({
      settings,
      entries: () => this.#entries.values(),
      session: () => host.session(),
      subscribe: (e, session, generation) => this.#subscribeRaw(e, session, generation),
      failed: (what, err) => host.failed(what, err),
    });
    this.#capacity = new NotificationCapacity(
      {
        retryMs: settings.notificationRetryMs,
        retryMaxMs: settings.notificationRetryMaxMs,
        random: settings.random,
        now: settings.now,
      },
      () => void this.#pump(true),
    );
  }

  /** ADS notifications in use (at most NotificationBudget); the rest are polled. */
  get notificationCount(): number {
    let n = 0;
    for (const e of this.#entries.values()) if (e.mode === 'notify') n++;
    return n;
  }

  get polledCount(): number {
    return this.#poller.size;
  }

  /** Connections whose subscriptions were all bound again (the first one included). */
  get restores(): number {
    return this.#restores;
  }

  /** Notifications the PLC refused for lack of resources since the target started. */
  get refusals(): number {
    return this.#capacity.refusals;
  }

  /** Every subscribed symbol: notified, polled (and why) or waiting for a connection. */
  report(): SubscriptionReport {
    const retryAt = this.#capacity.retryAt;
    return {
      notificationBudget: this.#settings.notificationBudget,
      plcCapacity: this.#capacity.ceiling ?? null,
      refusals: this.#capacity.refusals,
      nextRetryAt: retryAt === undefined ? null : new Date(retryAt),
      pollPeriodMs: this.#poller.size > 0 ? this.#poller.period : null,
      ...sortEntries(this.#entries.values()),
    };
  }

  /** Rounds of re-registration finished (a notification the PLC refused keeps its old registration). */
  get alignments(): number {
    return this.#alignment.count;
  }

  async subscribe(path: string, options: SubscribeOptions): Promise<Subscription> {
    const session = this.#host.session();
    if (!session) throw new AppError('PLC_UNAVAILABLE', `PLC '${this.#settings.plcId}' is not connected.`);
    const table = await session.run(`Subscribing to ${path}`, () => this.#host.table(session));
    const address = table.resolve(path);
    checkDecodable(address.type, address.path);
    const listener: Listener = { path, options, open: true };
    const cycleMs = Math.max(0, Math.round(options.cycleTimeMs));
    const transmission = options.mode ?? 'on-change';
    const key = entryKey(address.path, cycleMs, transmission);
    // Joining a notification still being created: wait for its outcome, or a failed first bind would
    // leave this subscriber on an entry nobody restores.
    for (let pending = this.#entries.get(key)?.binding; pending; pending = this.#entries.get(key)?.binding) {
      await pending.catch(() => undefined);
    }
    let entry = this.#entries.get(key);
    if (!entry) {
      entry = {
        key,
        address,
        listeners: new Set([listener]),
        cycleMs,
        transmission,
        mode: 'idle',
        since: this.#settings.now(),
        pollReason: undefined,
        promoting: false,
        handle: undefined,
        session: undefined,
        generation: 0,
        settling: false,
        early: undefined,
        last: undefined,
        decoder: new IncrementalDecoder(),
        binding: undefined,
      };
      this.#entries.set(key, entry);
      const created = entry;
      const binding = this.#bind(created, session);
      created.binding = binding;
      try {
        await binding;
      } catch (err) {
        if (this.#entries.get(key) === created) this.#entries.delete(key);
        throw err;
      } finally {
        created.binding = undefined;
      }
    } else {
      entry.listeners.add(listener);
      const last = entry.last;
      if (last) queueMicrotask(() => this.#emitTo(listener, last.event));
    }
    const e = entry;
    return {
      symbol: path,
      close: async () => {
        if (!listener.open) return;
        listener.open = false;
        e.listeners.delete(listener);
        if (e.listeners.size === 0 && this.#entries.get(e.key) === e) {
          this.#entries.delete(e.key);
          const freed = e.mode === 'notify';
          await this.#unbind(e);
          if (freed) void this.#pump(false);
        }
      },
    };
  }

  /** A new connection: every subscription is bound again (its old notification died with the link). */
  async restore(session: Session, report?: ImpactSink): Promise<void> {
    // Another connection, maybe another PLC behind the address: what its refusals taught is void.
    this.#capacity.reset();
    for (const e of this.#entries.values()) this.#detach(e);
    await this.#resync(session, true, report);
    this.#restores++;
  }

  /** Program download: handles and offsets are invalid; ads-client re-created its copies, drop them. */
  async symbolVersionChanged(session: Session, report?: ImpactSink): Promise<void> {
    for (const e of this.#entries.values()) this.#detach(e);
    await session
      .run('Releasing notifications', (c) => c.unsubscribeAll())
      .catch((err) => this.#host.failed('Releasing notifications', err));
    await this.#resync(session, true, report);
  }

  /** Online change: rebind what moved, keep what did not, invalidate what is gone. */
  async onlineChanged(session: Session, report?: ImpactSink): Promise<void> {
    await this.#resync(session, false, report);
  }

  /** The link is gone: notifications died with it; keep subscribers for the next connection. */
  detachAll(): void {
    for (const e of this.#entries.values()) this.#detach(e);
  }

  /** Closing the target: every subscriber is let go (the disconnect deletes the notifications). */
  closeAll(): void {
    this.#alignment.cancel();
    this.#capacity.cancel();
    for (const e of this.#entries.values()) {
      this.#detach(e);
      for (const l of e.listeners) l.open = false;
    }
    this.#entries.clear();
    this.#poller.stop();
  }

  async #resync(session: Session, rebindAll: boolean, report?: ImpactSink): Promise<void> {
    let table: SymbolTable;
    try {
      table = await session.run('Loading symbols', () => this.#host.table(session));
    } catch (err) {
      this.#host.failed('Loading symbols for subscriptions', err);
      // Without symbols nothing can be bound: a fresh connection tries again rather than going quiet.
      if (session.alive && this.#entries.size > 0) this.#host.retry(session);
      return;
    }
    for (const e of [...this.#entries.values()]) {
      if (!session.alive) return;
      let next: SymbolAddress;
      try {
        next = table.resolve(e.address.path);
      } catch {
        report?.vanished(e.address);
        this.#invalidate(e, `${e.address.path} no longer exists`);
        continue;
      }
      const retyped = next.type.name !== e.address.type.name || next.size !== e.address.size;
      let moved = next.indexGroup !== e.address.indexGroup || next.indexOffset !== e.address.indexOffset;
      if (retyped) {
        report?.retyped(e.address, next);
        // Goes on in the new type: rebound (its size changed too) and announced to each subscriber.
        if (!retype(e, next)) {
          this.#invalidate(e, `${e.address.path} changed to ${next.type.name}, which cannot be decoded`);
          continue;
        }
        moved = true;
      } else if (moved) report?.moved(e.address, next);
      e.address = next;
      if (!rebindAll && !moved && e.mode !== 'idle') continue;
      try {
        await this.#rebind(e, session);
      } catch (err) {
        // Stays idle until the next reconnect.
        this.#host.failed(`Subscribing to ${e.address.path}`, err);
      }
    }
  }

  #invalidate(e: Entry, reason: string): void {
    this.#entries.delete(e.key);
    const freed = e.mode === 'notify';
    void this.#unbind(e).then(() => {
      if (freed) void this.#pump(false);
    });
    for (const l of [...e.listeners]) {
      if (!l.open) continue;
      l.open = false;
      l.options.onError?.({ symbol: l.path, code: 'SYMBOL_INVALIDATED', message: reason });
    }
    e.listeners.clear();
  }

  async #rebind(e: Entry, session: Session): Promise<void> {
    await this.#unbind(e);
    await this.#bind(e, session);
  }

  /** Notifications in use or being registered: what the budget and the PLC's capacity are spent on. */
  #inUse(): number {
    let n = 0;
    for (const e of this.#entries.values()) if (e.mode === 'notify' || e.promoting) n++;
    return n;
  }

  async #bind(e: Entry, session: Session): Promise<void> {
    const generation = ++e.generation;
    e.early = undefined;
    e.session = session;
    const inUse = this.#inUse();
    if (inUse >= this.#capacity.limit(this.#settings.notificationBudget)) {
      // At the PLC's known capacity the PLC is not asked (it would refuse): the retry asks it again.
      this.#poll(e, inUse >= this.#settings.notificationBudget ? 'budget' : 'refused');
      return;
    }
    e.mode = 'notify';
    e.since = this.#settings.now();
    let handle: NotificationHandle;
    try {
      handle = await this.#subscribeRaw(e, session, generation);
    } catch (err) {
      const current = generation === e.generation;
      if (current) e.mode = 'idle';
      if (!isRefusal(err)) throw err;
      // The PLC ran out of notification resources before our budget did: poll this one (unless it was
      // detached or rebound meanwhile).
      if (current) {
        this.#capacity.refused(this.#inUse());
        this.#poll(e, 'refused');
      }
      return;
    }
    if (generation !== e.generation) {
      await handle.unsubscribe().catch(() => undefined);
      return;
    }
    e.handle = handle;
    // Set by a notification callback while the AddNotification answer was on its way.
    const early = e.early as Entry['early'];
    e.early = undefined;
    if (early && early.handle === handle.notificationHandle) this.#deliver(e, early.data, early.timestamp);
    this.#alignment.schedule();
  }

  #subscribeRaw(e: Entry, session: Session, generation: number): Promise<NotificationHandle> {
    const a = e.address;
    const what = `Subscribing to ${a.path}`;
    return session.run(what, (client) =>
      client
        .subscribeRaw(
          a.indexGroup,
          a.indexOffset,
          a.size,
          (data, sub) =>
            this.#onNotification(e, generation, sub.notificationHandle, data.value, data.timestamp),
          e.cycleMs,
          // false: ADSTRANS_SERVERCYCLE, the value every cycle.
          e.transmission === 'on-change',
        )
        .catch((err: unknown) => markRefusal(err, what)),
    );
  }

  #poll(e: Entry, reason: PollReason): void {
    e.mode = 'poll';
    e.pollReason = reason;
    e.since = this.#settings.now();
    this.#poller.add(e);
    if (reason === 'refused') this.#capacity.schedule();
  }

  /**
   * Returns polled symbols to notifications, oldest first, one registration at a time, while the budget and
   * the PLC's known capacity allow. `probe` (the retry after a refusal) asks the PLC for one notification
   * even at its known capacity: accepted, the capacity is unknown again and the others follow; refused, the
   * next retry waits twice as long.
   */
  async #pump(probe: boolean): Promise<void> {
    if (this.#pumping) return;
    this.#pumping = true;
    try {
      let asking = probe;
      // An entry whose registration failed (not refused) waits for the next occasion, or this would spin.
      const tried = new Set<Entry>();
      for (;;) {
        const session = this.#host.session();
        if (!session?.alive) return;
        const budget = this.#settings.notificationBudget;
        const limit = asking ? budget : this.#capacity.limit(budget);
        if (this.#inUse() >= limit) break;
        const next = this.#oldestPolled(tried);
        if (!next) break;
        tried.add(next);
        const outcome = await this.#promote(next, session);
        if (outcome === 'refused') break;
        if (asking && outcome === 'promoted') {
          this.#capacity.recovered();
          asking = false;
        }
      }
    } finally {
      this.#pumping = false;
    }
    // Still polled because the PLC refused, with room in the budget: ask again later; none left: no retry.
    let refused = false;
    for (const e of this.#entries.values())
      if (e.mode === 'poll' && e.pollReason === 'refused') refused = true;
    if (!refused) this.#capacity.cancel();
    else if (this.#inUse() < this.#settings.notificationBudget) this.#capacity.schedule();
  }

  #oldestPolled(skip: ReadonlySet<Entry>): Entry | undefined {
    let oldest: Entry | undefined;
    for (const e of this.#entries.values()) {
      if (e.mode !== 'poll' || e.promoting || skip.has(e)) continue;
      if (!oldest || e.since < oldest.since) oldest = e;
    }
    return oldest;
  }

  /**
   * Make before break: the entry stays polled until its notification is registered, and the notification's
   * first sample (the current value) is not delivered again when the subscribers have it already.
   */
  async #promote(e: Entry, session: Session): Promise<'promoted' | 'refused' | 'failed'> {
    const generation = ++e.generation;
    e.early = undefined;
    e.promoting = true;
    let handle: NotificationHandle;
    try {
      handle = await this.#subscribeRaw(e, session, generation);
    } catch (err) {
      e.promoting = false;
      if (isRefusal(err)) {
        this.#capacity.refused(this.#inUse());
        if (generation === e.generation) e.pollReason = 'refused';
        return 'refused';
      }
      if (session.alive) this.#host.failed(`Subscribing to ${e.address.path}`, err);
      return 'failed';
    } finally {
      e.promoting = false;
    }
    if (generation !== e.generation || e.mode !== 'poll' || this.#entries.get(e.key) !== e) {
      // Closed, rebound or detached meanwhile.
      await session.run('Deleting a notification', () => handle.unsubscribe()).catch(() => undefined);
      return 'failed';
    }
    this.#poller.remove(e);
    e.mode = 'notify';
    e.pollReason = undefined;
    e.since = this.#settings.now();
    e.session = session;
    e.handle = handle;
    // The polled value was delivered: an on-change sample equal to the last one delivered is no change.
    e.settling = true;
    const early = e.early as Entry['early'];
    e.early = undefined;
    if (early && early.handle === handle.notificationHandle) {
      const repeated = e.transmission === 'on-change' && e.last?.data.equals(early.data) === true;
      if (!repeated) this.#deliver(e, early.data, early.timestamp);
    }
    this.#alignment.schedule();
    return 'promoted';
  }

  #onNotification(e: Entry, generation: number, handle: number, data: Buffer, timestamp: Date): void {
    if (generation !== e.generation) return;
    if (!e.handle) {
      // Set while the AddNotification answer is on its way (of a bind or of a return from polling).
      if (e.mode === 'notify' || e.promoting) e.early = { handle, data, timestamp };
      return;
    }
    if (e.mode !== 'notify') return;
    const current = handle === e.handle.notificationHandle;
    if (e.transmission === 'cyclic') {
      // Every sample is a delivery: while re-registering, only the registration in use counts.
      if (current) this.#deliver(e, data, timestamp);
      return;
    }
    if (!current && !e.settling) return;
    if (e.settling && e.last?.data.equals(data)) return;
    this.#deliver(e, data, timestamp);
  }

  #deliver(e: Entry, data: Buffer, timestamp: Date): void {
    const copy = Buffer.from(data);
    let value;
    try {
      value = decodeValue(e.address.type, copy, e.address.path, this.#settings.plcClock, e.decoder);
    } catch (err) {
      this.#host.failed(`Decoding a notification of ${e.address.path}`, err);
      return;
    }
    const event = { value, typeName: e.address.type.name, timestamp };
    e.last = { data: copy, event };
    for (const l of [...e.listeners]) this.#emitTo(l, event);
  }

  #emitTo(l: Listener, event: Omit<ChangeEvent, 'symbol'>): void {
    if (!l.open) return;
    try {
      l.options.onChange({ symbol: l.path, ...event });
    } catch {
      // A subscriber's failure must not stop the others.
    }
  }

  #detach(e: Entry): void {
    e.generation++;
    e.handle = undefined;
    e.session = undefined;
    e.early = undefined;
    e.settling = false;
    if (e.mode === 'poll') this.#poller.remove(e);
    e.mode = 'idle';
    e.pollReason = undefined;
    e.since = this.#settings.now();
  }

  async #unbind(e: Entry): Promise<void> {
    const { handle, session } = e;
    this.#detach(e);
    if (handle && session?.alive) {
      await session
        .run('Deleting a notification', () => handle.unsubscribe())
        .catch((err) => this.#host.failed(`Deleting the notification of ${e.address.path}`, err));
    }
  }
}
