// One PlcTarget subscription per symbol per PLC, shared by every client that asks for it (reference-counted,
// closed when the last client leaves). Each change is serialised once per spelling clients used and handed to
// every listener: per-client work is a queue push.
import { AppError, isAppError } from '../../errors.ts';
import type { ChangeEvent, PlcTarget, Subscription } from '../../targets/target.ts';

/** What a client's session gives for each symbol it holds. */
export interface SymbolListener {
  /** The change event's JSON `{ symbol, value, type, timestamp }`, shared with other clients. */
  change(json: string): void;
  /** The symbol stopped existing (a program download): the lease is already gone. */
  invalidated(error: { symbol: string; code: string; message: string }): void;
}

export interface Lease {
  release(): Promise<void>;
}

interface Shared {
  readonly key: string;
  /** Listener -> the spelling of the path that client asked for. */
  readonly listeners: Map<SymbolListener, string>;
  subscription: Subscription | undefined;
  ready: Promise<void>;
  last: ChangeEvent | undefined;
}

export function changeJson(symbol: string, e: Pick<ChangeEvent, 'value' | 'typeName' | 'timestamp'>): string {
  return JSON.stringify({ symbol, value: e.value, type: e.typeName, timestamp: e.timestamp.toISOString() });
}

export class SharedSubscriptions {
  readonly #target: PlcTarget;
  readonly #cycleTimeMs: number;
  readonly #shared = new Map<string, Shared>();

  constructor(target: PlcTarget, cycleTimeMs: number) {
    this.#target = target;
    this.#cycleTimeMs = cycleTimeMs;
  }

  /** Symbols with a live target subscription. */
  get size(): number {
    return this.#shared.size;
  }

  /**
   * Joins (or opens) the shared subscription of `path`. A joiner gets the last value at once; the first client
   * gets the target's first notification, which is the current value. Throws the target's error
   * (SYMBOL_NOT_FOUND, PLC_UNAVAILABLE) when the symbol cannot be subscribed.
   */
  async acquire(path: string, listener: SymbolListener): Promise<Lease> {
    const key = path.trim().toUpperCase();
    let shared = this.#shared.get(key);
    if (shared === undefined) {
      const created: Shared = {
        key,
        listeners: new Map(),
        subscription: undefined,
        ready: Promise.resolve(),
        last: undefined,
      };
      created.ready = this.#open(created, path);
      this.#shared.set(key, created);
      shared = created;
    }
    shared.listeners.set(listener, path);
    // A joiner starts from the last value; one who came first gets the target's first notification instead.
    if (shared.last !== undefined) listener.change(changeJson(path, shared.last));
    try {
      await shared.ready;
    } catch (err) {
      shared.listeners.delete(listener);
      throw err;
    }
    const s = shared;
    let held = true;
    return {
      release: async () => {
        if (!held) return;
        held = false;
        s.listeners.delete(listener);
        if (s.listeners.size === 0 && this.#shared.get(s.key) === s) {
          this.#shared.delete(s.key);
          await s.subscription?.close();
        }
      },
    };
  }

  /** The symbols in use, as the first client spelled them (for a fresh read after a reconnect). */
  paths(): string[] {
    const out: string[] = [];
    for (const s of this.#shared.values()) {
      const first = s.listeners.values().next();
      if (first.done !== true) out.push(first.value);
    }
    return out;
  }

  /** Fans a freshly read value out to every listener of the symbol, as a change. */
  deliver(path: string, event: Omit<ChangeEvent, 'symbol'>): void {
    const s = this.#shared.get(path.trim().toUpperCase());
    if (s !== undefined) this.#fanOut(s, { symbol: path, ...event });
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
    // Every client left while the subscription was being made.
    if (s.listeners.size === 0 && this.#shared.get(s.key) !== s) await s.subscription.close();
  }

  #fanOut(s: Shared, e: ChangeEvent): void {
    s.last = e;
    // Serialised once per spelling; almost always exactly once.
    const bySpelling = new Map<string, string>();
    for (const [listener, spelling] of s.listeners) {
      let json = bySpelling.get(spelling);
      if (json === undefined) {
        json = changeJson(spelling, e);
        bySpelling.set(spelling, json);
      }
      listener.change(json);
    }
  }

  #invalidate(s: Shared, e: { code: string; message: string }): void {
    if (this.#shared.get(s.key) === s) this.#shared.delete(s.key);
    for (const [listener, spelling] of [...s.listeners]) {
      listener.invalidated({ symbol: spelling, code: e.code, message: e.message });
    }
    s.listeners.clear();
    void s.subscription?.close().catch(() => undefined);
  }
}
