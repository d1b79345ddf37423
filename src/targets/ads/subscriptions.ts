// Subscriptions as ADS notifications with PLC timestamps: one notification per symbol shared by every
// subscriber (reference-counted), a per-PLC notification budget with sum-read polling beyond it,
// rebinding after reconnects, program downloads and online changes, and re-registration of a
// connection's notifications together so that the PLC checks them in one phase.
import { AppError } from '../../errors.ts';
import type { ChangeEvent, SubscribeOptions, Subscription } from '../target.ts';
import { AdsErrorCode } from '../../plc/ads/error-codes.ts';
import { IncrementalDecoder } from '../../plc/index.ts';
import { adsCodeOf } from './ads-errors.ts';
import { Poller } from './poller.ts';
import type { Session } from './link-session.ts';
import type { AdsLinkSettings } from './settings.ts';
import type { SymbolAddress, SymbolTable } from './symbol-table.ts';
import { decodeValue } from './value-io.ts';
import { checkDecodable } from './undecodable.ts';

export interface SubscriptionHost {
  session(): Session | undefined;
  table(session: Session): Promise<SymbolTable>;
  /** Subscriptions could not be restored on this connection: reconnect and try again. */
  retry(session: Session): void;
  /** A failure nobody awaits (rebinding, releasing, polling): the target logs it. */
  failed(what: string, err: unknown): void;
}

interface Listener {
  path: string;
  options: SubscribeOptions;
  open: boolean;
}

/** The ads-client subscription object, reduced to what we use. */
interface NotificationHandle {
  notificationHandle: number;
  unsubscribe(): Promise<void>;
}

export interface Entry {
  key: string;
  address: SymbolAddress;
  listeners: Set<Listener>;
  cycleMs: number;
  mode: 'notify' | 'poll' | 'idle';
  handle: NotificationHandle | undefined;
  session: Session | undefined;
  /** Bumped by every (re)bind: callbacks of an older binding are ignored. */
  generation: number;
  /**
   * Set from a re-registration (see #align) until the next rebind: the old and the new notification both
   * deliver, in the PLC's order, and may report one change a cycle apart, so a sample equal to the last
   * one delivered is the other's report of it, not a change.
   */
  settling: boolean;
  /** A notification that arrived before the AddNotification answer was processed. */
  early: { handle: number; data: Buffer; timestamp: Date } | undefined;
  last: { data: Buffer; event: Omit<ChangeEvent, 'symbol'> } | undefined;
  /** Decodes each notification against the last, so unchanged array elements are not decoded again. */
  decoder: IncrementalDecoder;
  /** The first bind, while subscribe() waits for it. */
  binding: Promise<void> | undefined;
}

/** Notifications registered again at once (see #align). */
const alignChunk = 100;

export class SubscriptionManager {
  readonly #host: SubscriptionHost;
  readonly #settings: AdsLinkSettings;
  readonly #entries = new Map<string, Entry>();
  readonly #poller: Poller<Entry>;
  #alignTimer: NodeJS.Timeout | undefined;
  #aligning = false;
  #lastAlign = -Infinity;
  #alignments = 0;

  constructor(host: SubscriptionHost, settings: AdsLinkSettings) {
    this.#host = host;
    this.#settings = settings;
    this.#poller = new Poller(settings, host, (entry, data, timestamp) =>
      this.#deliver(entry, data, timestamp),
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

  /** Rounds of re-registration finished (a notification the PLC refused keeps its old registration). */
  get alignments(): number {
    return this.#alignments;
  }

  async subscribe(path: string, options: SubscribeOptions): Promise<Subscription> {
    const session = this.#host.session();
    if (!session) throw new AppError('PLC_UNAVAILABLE', `PLC '${this.#settings.plcId}' is not connected.`);
    const table = await session.run(`Subscribing to ${path}`, () => this.#host.table(session));
    const address = table.resolve(path);
    checkDecodable(address.type, address.path);
    const key = address.path.toUpperCase();
    const listener: Listener = { path, options, open: true };
    const cycleMs = Math.max(0, Math.round(options.cycleTimeMs));
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
        mode: 'idle',
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
      if (cycleMs < entry.cycleMs) {
        // A faster subscriber: the shared notification now samples at its rate.
        entry.cycleMs = cycleMs;
        if (entry.mode === 'notify') {
          await this.#rebind(entry, session).catch((err) => this.#host.failed(`Resampling ${path}`, err));
        }
      }
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
          await this.#unbind(e);
        }
      },
    };
  }

  /** A new connection: every subscription is bound again (its old notification died with the link). */
  async restore(session: Session): Promise<void> {
    for (const e of this.#entries.values()) this.#detach(e);
    await this.#resync(session, true);
  }

  /** Program download: handles and offsets are invalid; ads-client re-created its copies, drop them. */
  async symbolVersionChanged(session: Session): Promise<void> {
    for (const e of this.#entries.values()) this.#detach(e);
    await session
      .run('Releasing notifications', (c) => c.unsubscribeAll())
      .catch((err) => this.#host.failed('Releasing notifications', err));
    await this.#resync(session, true);
  }

  /** Online change: rebind what moved, keep what did not, invalidate what is gone. */
  async onlineChanged(session: Session): Promise<void> {
    await this.#resync(session, false);
  }

  /** The link is gone: notifications died with it; keep subscribers for the next connection. */
  detachAll(): void {
    for (const e of this.#entries.values()) this.#detach(e);
  }

  /** Closing the target: every subscriber is let go (the disconnect deletes the notifications). */
  closeAll(): void {
    clearTimeout(this.#alignTimer);
    this.#alignTimer = undefined;
    for (const e of this.#entries.values()) {
      this.#detach(e);
      for (const l of e.listeners) l.open = false;
    }
    this.#entries.clear();
    this.#poller.stop();
  }

  async #resync(session: Session, rebindAll: boolean): Promise<void> {
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
        this.#invalidate(e, `${e.address.path} no longer exists`);
        continue;
      }
      if (next.type.name !== e.address.type.name || next.size !== e.address.size) {
        this.#invalidate(e, `${e.address.path} changed type`);
        continue;
      }
      const moved = next.indexGroup !== e.address.indexGroup || next.indexOffset !== e.address.indexOffset;
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
    void this.#unbind(e);
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

  async #bind(e: Entry, session: Session): Promise<void> {
    const generation = ++e.generation;
    e.early = undefined;
    e.session = session;
    if (this.notificationCount >= this.#settings.notificationBudget) {
      this.#poll(e);
      return;
    }
    e.mode = 'notify';
    let handle: NotificationHandle;
    try {
      handle = await this.#subscribeRaw(e, session, generation);
    } catch (err) {
      e.mode = 'idle';
      if (adsCodeOf(err) === AdsErrorCode.NoMoreHandles) {
        // The PLC ran out of notification handles before our budget did: poll this one.
        this.#poll(e);
        return;
      }
      throw err;
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
    this.#scheduleAlign();
  }

  #subscribeRaw(e: Entry, session: Session, generation: number): Promise<NotificationHandle> {
    const a = e.address;
    return session.run(`Subscribing to ${a.path}`, (client) =>
      client.subscribeRaw(
        a.indexGroup,
        a.indexOffset,
        a.size,
        (data, sub) =>
          this.#onNotification(e, generation, sub.notificationHandle, data.value, data.timestamp),
        e.cycleMs,
        true,
      ),
    );
  }

  /**
   * A PLC sends one frame per connection for the notifications due in a task cycle, and checks each on
   * its own grid of cycles, counted (as the simulator does; TwinCAT does not document it) from its
   * registration. Registered one by one as clients come, a connection's notifications fall on many
   * phases: a frame, and a wake-up of the gateway, on almost every task cycle. Registered again together
   * they share one phase, one frame per cycle. alignAfterMs after a new notification (a page's
   * subscriptions come together), at most once per alignEveryMs, on whatever connection is current then.
   */
  #scheduleAlign(): void {
    if (this.#alignTimer) return;
    const now = this.#settings.now();
    const at = Math.max(now + this.#settings.alignAfterMs, this.#lastAlign + this.#settings.alignEveryMs);
    this.#alignTimer = setTimeout(() => {
      this.#alignTimer = undefined;
      const session = this.#host.session();
      if (session) void this.#align(session);
    }, at - now);
    this.#alignTimer.unref();
  }

  async #align(session: Session): Promise<void> {
    if (!session.alive || this.#aligning) return;
    const entries = [...this.#entries.values()].filter(
      (e) => e.mode === 'notify' && e.session === session && e.handle !== undefined,
    );
    if (entries.length < 2) return;
    this.#lastAlign = this.#settings.now();
    this.#aligning = true;
    try {
      // A chunk's requests all leave before any answer is awaited, so the PLC registers them in the same
      // cycle; chunks keep what is in flight within what a PLC's router queues.
      for (let i = 0; i < entries.length; i += alignChunk) {
        await Promise.all(entries.slice(i, i + alignChunk).map((e) => this.#replace(e, session)));
      }
    } finally {
      this.#aligning = false;
    }
    this.#alignments++;
  }

  /** Make before break: the new notification delivers beside the old one until it takes over. */
  async #replace(e: Entry, session: Session): Promise<void> {
    const generation = e.generation;
    const old = e.handle;
    if (!old) return;
    e.settling = true;
    let next: NotificationHandle;
    try {
      next = await this.#subscribeRaw(e, session, generation);
    } catch (err) {
      // Out of handles with both registered: the old notification stays, unaligned.
      if (session.alive && adsCodeOf(err) !== AdsErrorCode.NoMoreHandles)
        this.#host.failed(`Re-registering ${e.address.path}`, err);
      return;
    }
    if (generation !== e.generation) {
      await next.unsubscribe().catch(() => undefined);
      return;
    }
    e.handle = next;
    await session
      .run('Deleting a notification', () => old.unsubscribe())
      .catch((err) => {
        if (session.alive) this.#host.failed(`Deleting the notification of ${e.address.path}`, err);
      });
  }

  #poll(e: Entry): void {
    e.mode = 'poll';
    this.#poller.add(e);
  }

  #onNotification(e: Entry, generation: number, handle: number, data: Buffer, timestamp: Date): void {
    if (generation !== e.generation || e.mode !== 'notify') return;
    if (!e.handle) {
      e.early = { handle, data, timestamp };
      return;
    }
    if (handle !== e.handle.notificationHandle && !e.settling) return;
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
