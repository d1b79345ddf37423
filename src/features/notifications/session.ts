// One client's notification session, the same for SSE and the hub: the symbols it holds (at most
// MaxSymbolsPerClient), `subscribed` then initial values, errors per unknown symbol, and invalidation.
import { AppError, isAppError } from '../../errors.ts';
import type { EventSink, StreamEvent } from '../../http/streams/outbox.ts';
import type { TypeChangedNotice } from '../../targets/target.ts';
import {
  sharedKey,
  type Membership,
  type SharedSubscriptions,
  type SymbolClient,
} from './shared-subscriptions.ts';
import { sameOptions, type SubscriptionOptions } from './options.ts';

export interface SubscribeOutcome {
  /** The symbols of this request now subscribed (already held ones included). */
  readonly symbols: string[];
  /** The options they run with. */
  readonly options: SubscriptionOptions;
}

export interface SubscribeRequest {
  /** Default: the shared subscriptions' defaults (Notifications.DefaultCycleTimeMs, on-change). */
  readonly options?: SubscriptionOptions;
  /** `subscribed` carries the options (when the request named any: the spec's form stays as it was). */
  readonly echoOptions?: boolean;
  /** Called right after `subscribed` (the hub's Completion). */
  readonly confirmed?: (outcome: SubscribeOutcome) => void;
  /** The route already made sure a deadband meets only numeric symbols. */
  readonly numericChecked?: boolean;
}

/** Options a stream named, with the symbols that run with them (the admin listing's `details.options`). */
export interface NamedOptions extends SubscriptionOptions {
  readonly symbols: string[];
}

/** Notifications.MaxSubscriptionsPerUser: the target subscriptions one user's sessions on a PLC hold together. */
export interface UserQuota {
  readonly max: number;
  /** The sharing keys the user's sessions on this PLC hold, those of `skip` left out. */
  held(skip: ReadonlySet<Membership>): Set<string>;
}

/** 400 SUBSCRIPTION_LIMIT_EXCEEDED naming Notifications:MaxSubscriptionsPerUser. */
export function quotaExceeded(max: number, would: number): AppError {
  return new AppError(
    'SUBSCRIPTION_LIMIT_EXCEEDED',
    `At most ${max} distinct subscriptions (symbol, cycle, mode) per user on a PLC ` +
      `(Notifications:MaxSubscriptionsPerUser); this would make ${would}.`,
  );
}

let sessions = 0;

export function symbolKey(path: string): string {
  return path.trim().toUpperCase();
}

export class NotificationSession implements SymbolClient {
  // A membership is in the shared subscriptions exactly while this session holds the symbol, so every change
  // received is for this session: no per-change check.
  readonly receiverId = ++sessions;
  readonly #shared: SharedSubscriptions;
  readonly #sink: EventSink;
  readonly #maxSymbols: number;
  readonly #onClosed: () => void;
  readonly #quota: UserQuota | undefined;
  readonly #held = new Map<string, Membership>();
  /** Memberships joined by a request that named options: the admin listing shows theirs, as `subscribed` does. */
  readonly #named = new WeakSet<Membership>();
  /** Events held back while a subscribe is under way, so confirmation comes before values. */
  #corked: StreamEvent[] | undefined;
  #corks = 0;
  #closed = false;

  constructor(
    shared: SharedSubscriptions,
    sink: EventSink,
    maxSymbols: number,
    onClosed: () => void,
    quota?: UserQuota,
  ) {
    this.#shared = shared;
    this.#sink = sink;
    this.#maxSymbols = maxSymbols;
    this.#onClosed = onClosed;
    this.#quota = quota;
  }

  symbols(): string[] {
    return [...this.#held.values()].map((h) => h.path);
  }

  /**
   * The options of the symbols subscribed by a request that named options, one entry per distinct set (its
   * symbols beside it); undefined when no held symbol was (the spec's form), so the listing shows none.
   */
  namedOptions(): NamedOptions[] | undefined {
    const groups = new Map<string, { symbols: string[]; options: SubscriptionOptions }>();
    for (const m of this.#held.values()) {
      if (!this.#named.has(m)) continue;
      const { cycleMs, mode, deadband, maxIntervalMs } = m.options;
      const key = JSON.stringify([cycleMs, mode, deadband, maxIntervalMs]);
      const group = groups.get(key) ?? { symbols: [], options: { cycleMs, mode, deadband, maxIntervalMs } };
      group.symbols.push(m.path);
      groups.set(key, group);
    }
    if (groups.size === 0) return undefined;
    return [...groups.values()].map(({ symbols, options }) => ({ symbols, ...options }));
  }

  /** The memberships it holds now. */
  memberships(): Iterable<Membership> {
    return this.#held.values();
  }

  /**
   * 400 SUBSCRIPTION_LIMIT_EXCEEDED when joining `fresh` with `options` would make the user hold more than
   * MaxSubscriptionsPerUser distinct (symbol, cycle, mode) on this PLC: one user's streams cannot take the PLC's
   * NotificationBudget from the others. Memberships being moved to the new options count once, as the new ones.
   */
  #checkQuota(fresh: ReadonlyArray<readonly [string, string]>, options: SubscriptionOptions): void {
    const quota = this.#quota;
    if (quota === undefined) return;
    const moving = new Set<Membership>();
    for (const [key] of fresh) {
      const held = this.#held.get(key);
      if (held !== undefined) moving.add(held);
    }
    const keys = quota.held(moving);
    for (const [, path] of fresh) keys.add(sharedKey(path, options));
    if (keys.size > quota.max) throw quotaExceeded(quota.max, keys.size);
  }

  /** Sends an event now, or after the subscribe under way has confirmed. */
  emit(event: StreamEvent): void {
    if (this.#closed) return;
    if (this.#corked !== undefined) this.#corked.push(event);
    else this.#sink.send(event);
  }

  /** A delivery window's changes of symbols this session holds. */
  receive(events: readonly StreamEvent[]): void {
    if (this.#closed) return;
    if (this.#corked !== undefined) this.#corked.push(...events);
    else this.#sink.sendMany(events);
  }

  /**
   * Subscribes to `paths` (case-insensitive; repeats ignored) with `options`; a symbol already held with other
   * options moves to these. Over MaxSymbolsPerClient in total: 400 SUBSCRIPTION_LIMIT_EXCEEDED and nothing
   * changes; a deadband on a symbol that is not numeric: 400 DEADBAND_NOT_NUMERIC and nothing changes.
   * Otherwise `subscribed` with the valid symbols (and the options), an `error` per symbol that could not be
   * subscribed, `confirmed` (the hub's Completion), then the current values.
   */
  async subscribe(paths: readonly string[], request: SubscribeRequest = {}): Promise<SubscribeOutcome> {
    const options = request.options ?? this.#shared.defaults;
    const wanted = new Map<string, string>();
    for (const p of paths) if (!wanted.has(symbolKey(p))) wanted.set(symbolKey(p), p.trim());
    const added = [...wanted].filter(([key]) => !this.#held.has(key)).length;
    if (this.#held.size + added > this.#maxSymbols) {
      throw new AppError(
        'SUBSCRIPTION_LIMIT_EXCEEDED',
        `At most ${this.#maxSymbols} symbols per client (Notifications:MaxSymbolsPerClient); ` +
          `this would make ${this.#held.size + added}.`,
      );
    }
    // Held with these very options: nothing to do; held with others: joined anew, then the old one let go.
    const fresh = [...wanted].filter(([key]) => {
      const held = this.#held.get(key);
      return held === undefined || !sameOptions(held.options, options);
    });
    if (options.deadband > 0 && request.numericChecked !== true) {
      await assertNumeric(
        this.#shared,
        fresh.map(([, path]) => path),
      );
    }
    // After the await above: checked and joined in one turn, so concurrent subscribes cannot both pass.
    this.#checkQuota(fresh, options);
    this.#cork();
    const errors: StreamEvent[] = [];
    try {
      const pending = fresh.map(([key, path]) => {
        const previous = this.#held.get(key);
        const { membership, ready } = this.#shared.join(path, this, options);
        if (request.echoOptions === true) this.#named.add(membership);
        // Held before the subscription is made, so a concurrent subscribe counts it against the limit.
        this.#held.set(key, membership);
        return ready.then(
          () => previous?.release(),
          (err: unknown) => {
            if (this.#held.get(key) === membership) {
              // A symbol that could not move keeps its old options.
              if (previous?.held === true) this.#held.set(key, previous);
              else this.#held.delete(key);
            }
            const { code, message } = isAppError(err) ? err : new AppError('INTERNAL_ERROR');
            errors.push({ name: 'error', data: JSON.stringify({ symbol: path, code, message }) });
          },
        );
      });
      await Promise.all(pending);
      const symbols = [...wanted].filter(([key]) => this.#held.has(key)).map(([, path]) => path);
      const subscribed = request.echoOptions === true ? { symbols, options } : { symbols };
      this.#sink.send({ name: 'subscribed', data: JSON.stringify(subscribed) });
      for (const e of errors) this.#sink.send(e);
      const outcome = { symbols, options };
      request.confirmed?.(outcome);
      return outcome;
    } finally {
      this.#uncork();
    }
  }

  /** Lets go of `paths` (unknown ones ignored); the last client of a symbol closes its subscription. */
  async unsubscribe(paths: readonly string[]): Promise<string[]> {
    const released: Array<Promise<void>> = [];
    for (const p of paths) {
      const held = this.#held.get(symbolKey(p));
      if (held === undefined) continue;
      this.#held.delete(symbolKey(p));
      released.push(held.release());
    }
    await Promise.all(released);
    return this.symbols();
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#onClosed();
    const all = [...this.#held.values()];
    this.#held.clear();
    await Promise.all(all.map((h) => h.release()));
  }

  invalidated(membership: Membership, error: { symbol: string; code: string; message: string }): void {
    const key = symbolKey(membership.path);
    if (this.#held.get(key) !== membership) return;
    this.#held.delete(key);
    this.emit({ name: 'error', data: JSON.stringify(error) });
  }

  /** `typeChanged` { symbol, type, size, previousType, previousSize }: the values that follow are of `type`. */
  typeChanged(membership: Membership, notice: TypeChangedNotice): void {
    if (this.#held.get(symbolKey(membership.path)) !== membership) return;
    const { symbol, type, size, previousType, previousSize } = notice;
    this.emit({
      name: 'typeChanged',
      data: JSON.stringify({ symbol, type, size, previousType, previousSize }),
    });
  }

  #cork(): void {
    this.#corks += 1;
    this.#corked ??= [];
  }

  #uncork(): void {
    this.#corks -= 1;
    if (this.#corks > 0 || this.#corked === undefined) return;
    const held = this.#corked;
    this.#corked = undefined;
    if (this.#closed) return;
    for (const e of held) this.#sink.send(e);
  }
}

/**
 * 400 DEADBAND_NOT_NUMERIC when any of `paths` holds no number (BOOL, STRING, a struct, an array): a deadband
 * means nothing there. Read once, together; a symbol that cannot be read is left to the subscription to report.
 */
export async function assertNumeric(shared: SharedSubscriptions, paths: readonly string[]): Promise<void> {
  if (paths.length === 0) return;
  const wrong = await shared.notNumeric(paths);
  if (wrong.length > 0) {
    throw new AppError(
      'DEADBAND_NOT_NUMERIC',
      `A deadband applies only to numeric symbols; not numeric: ${wrong.join(', ')}.`,
    );
  }
}
