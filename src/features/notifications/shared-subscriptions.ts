// One PlcTarget subscription per symbol per PLC, shared by every client that asks for it (reference-counted,
// closed when the last client leaves). Each change is serialised once, and the changes of one delivery window
// reach each client in one call (see delivery-batch.ts): per-client work is a queue push, not a walk over every
// listener.
import { AppError, isAppError } from '../../errors.ts';
import type { ChangeEvent, PlcTarget, Subscription } from '../../targets/target.ts';
import {
  audienceOf,
  changeEvent,
  type Audience,
  type ChangeReceiver,
  type DeliveryBatch,
} from './delivery-batch.ts';

/** A client of the shared subscriptions (a session): gets changes, and hears of symbols that vanish. */
export interface SymbolClient extends ChangeReceiver {
  /** A symbol it held stopped existing (a program download): the membership has already ended. */
  invalidated(membership: Membership, error: { symbol: string; code: string; message: string }): void;
}

/** One client's hold on one shared symbol; a plain object, because a client may hold many. */
export class Membership {
  #held = true;

  constructor(
    readonly subscriptions: SharedSubscriptions,
    readonly shared: Shared,
    readonly client: SymbolClient,
    /** The spelling of the path this client asked for. */
    readonly path: string,
  ) {}

  /** Leaves at once, even while the subscription is still being made; the last to leave closes it. */
  release(): Promise<void> {
    if (!this.#held) return Promise.resolve();
    this.#held = false;
    return this.subscriptions.leave(this);
  }

  /** Ended from the shared side (the symbol vanished). */
  end(): void {
    this.#held = false;
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
}

export interface Observation {
  /** Settles once the target subscription exists; rejects with its error (the observation has then ended). */
  readonly ready: Promise<void>;
  release(): Promise<void>;
}

export interface Shared {
  readonly key: string;
  readonly members: Set<Membership>;
  readonly observers: Set<ChangeObserver>;
  /** Who gets this symbol's changes; recomputed after a join or leave. */
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

export class SharedSubscriptions {
  readonly #target: PlcTarget;
  readonly #cycleTimeMs: number;
  readonly #shared = new Map<string, Shared>();
  /** Shared by every PLC's subscriptions, so one window's changes of all PLCs go out together. */
  readonly #batch: DeliveryBatch;

  constructor(target: PlcTarget, cycleTimeMs: number, batch: DeliveryBatch) {
    this.#target = target;
    this.#cycleTimeMs = cycleTimeMs;
    this.#batch = batch;
  }

  /** Symbols with a live target subscription. */
  get size(): number {
    return this.#shared.size;
  }

  /** Stream clients and in-gateway observers sharing the target subscription of `path`, if there is one. */
  holders(path: string): number | undefined {
    const s = this.#shared.get(path.trim().toUpperCase());
    return s === undefined ? undefined : s.members.size + s.observers.size;
  }

  /**
   * Joins (or opens) the shared subscription of `path`. A joiner gets the last value at once; the first client
   * gets the target's first notification, which is the current value. `ready` rejects with the target's error
   * (SYMBOL_NOT_FOUND, PLC_UNAVAILABLE) when the symbol cannot be subscribed.
   */
  join(path: string, client: SymbolClient): Joined {
    const key = path.trim().toUpperCase();
    let shared = this.#shared.get(key);
    if (shared === undefined) {
      const created: Shared = {
        key,
        members: new Set(),
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
    const membership = new Membership(this, s, client, path);
    s.members.add(membership);
    s.audience = undefined;
    // A joiner starts from the last value; one who came first gets the target's first notification instead.
    if (s.last !== undefined) client.receive([changeEvent(path, s.last)]);
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
    s.members.delete(m);
    s.audience = undefined;
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
    await Promise.all(all.map((s) => s.subscription?.close().catch(() => undefined) ?? Promise.resolve()));
  }

  async #open(s: Shared, path: string): Promise<void> {
    try {
      s.subscription = await this.#target.subscribe(path, {
        cycleTimeMs: this.#cycleTimeMs,
        onChange: (e) => this.#fanOut(s, e),
        onError: (e) => this.#invalidate(s, e),
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
    const audience = (s.audience ??= audienceOf(s.members));
    this.#batch.add(audience, e);
  }

  #invalidate(s: Shared, e: { symbol: string; code: string; message: string }): void {
    // Changes already seen go out before the error.
    this.#batch.flush();
    if (this.#shared.get(s.key) === s) this.#shared.delete(s.key);
    const members = [...s.members];
    s.members.clear();
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
