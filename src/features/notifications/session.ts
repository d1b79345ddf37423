// One client's notification session, the same for SSE and the hub: the symbols it holds (at most
// MaxSymbolsPerClient), `subscribed` then initial values, errors per unknown symbol, and invalidation.
import { AppError, isAppError } from '../../errors.ts';
import type { EventSink, StreamEvent } from '../../http/streams/outbox.ts';
import type { TypeChangedNotice } from '../../targets/target.ts';
import type { Membership, SharedSubscriptions, SymbolClient } from './shared-subscriptions.ts';

export interface SubscribeOutcome {
  /** The symbols of this request now subscribed (already held ones included). */
  readonly symbols: string[];
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
  readonly #held = new Map<string, Membership>();
  /** Events held back while a subscribe is under way, so confirmation comes before values. */
  #corked: StreamEvent[] | undefined;
  #corks = 0;
  #closed = false;

  constructor(shared: SharedSubscriptions, sink: EventSink, maxSymbols: number, onClosed: () => void) {
    this.#shared = shared;
    this.#sink = sink;
    this.#maxSymbols = maxSymbols;
    this.#onClosed = onClosed;
  }

  symbols(): string[] {
    return [...this.#held.values()].map((h) => h.path);
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
   * Subscribes to `paths` (case-insensitive; repeats ignored). Over MaxSymbolsPerClient in total: 400
   * SUBSCRIPTION_LIMIT_EXCEEDED and nothing changes. Otherwise `subscribed` with the valid symbols, an `error`
   * per symbol that could not be subscribed, `confirmed` (the hub's Completion), then the current values.
   */
  async subscribe(
    paths: readonly string[],
    confirmed?: (symbols: string[]) => void,
  ): Promise<SubscribeOutcome> {
    const wanted = new Map<string, string>();
    for (const p of paths) if (!wanted.has(symbolKey(p))) wanted.set(symbolKey(p), p.trim());
    const fresh = [...wanted].filter(([key]) => !this.#held.has(key));
    if (this.#held.size + fresh.length > this.#maxSymbols) {
      throw new AppError(
        'SUBSCRIPTION_LIMIT_EXCEEDED',
        `At most ${this.#maxSymbols} symbols per client (Notifications:MaxSymbolsPerClient); ` +
          `this would make ${this.#held.size + fresh.length}.`,
      );
    }
    this.#cork();
    const errors: StreamEvent[] = [];
    try {
      const pending = fresh.map(([key, path]) => {
        const { membership, ready } = this.#shared.join(path, this);
        // Held before the subscription is made, so a concurrent subscribe counts it against the limit.
        this.#held.set(key, membership);
        return ready.then(
          () => undefined,
          (err: unknown) => {
            if (this.#held.get(key) === membership) this.#held.delete(key);
            const { code, message } = isAppError(err) ? err : new AppError('INTERNAL_ERROR');
            errors.push({ name: 'error', data: JSON.stringify({ symbol: path, code, message }) });
          },
        );
      });
      await Promise.all(pending);
      const symbols = [...wanted].filter(([key]) => this.#held.has(key)).map(([, path]) => path);
      this.#sink.send({ name: 'subscribed', data: JSON.stringify({ symbols }) });
      for (const e of errors) this.#sink.send(e);
      confirmed?.(symbols);
      return { symbols };
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
