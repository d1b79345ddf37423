// What every in-memory window limiter does around its own counting rule: per-key state in a bounded store,
// a refusal with the wait until the window lets the key in, the count of what is left otherwise.
import {
  BoundedKeyStore,
  defaultMaxKeys,
  retryAfterSeconds,
  type Limiter,
  type LimiterOptions,
} from './limiter.ts';

/** How one kind of window counts a key's requests; `state` is the key's own, changed in place. */
export interface WindowRule<T> {
  /** The key's state at `t` from what the store holds (undefined for a new or dropped key). */
  current(held: T | undefined, t: number): T;
  /** Milliseconds until a request may be accepted, or undefined when it may be now. */
  waitMs(state: T, t: number): number | undefined;
  /** Counts an accepted request at `t`; answers how many more the window takes. */
  accept(state: T, t: number): number;
  /** Nothing in `state` counts any more at `t`: the store may drop the key. */
  expired(state: T, t: number): boolean;
}

export function createWindowLimiter<T>(options: LimiterOptions, rule: WindowRule<T>): Limiter {
  const now = options.now ?? Date.now;
  const store = new BoundedKeyStore<T>(
    options.windowMs,
    options.maxKeys ?? defaultMaxKeys,
    (state, t) => rule.expired(state, t),
    now(),
  );
  return {
    take(key) {
      const t = now();
      const state = rule.current(store.get(key), t);
      const wait = rule.waitMs(state, t);
      if (wait !== undefined) return { allowed: false, retryAfterSeconds: retryAfterSeconds(wait) };
      const remaining = rule.accept(state, t);
      store.set(key, state, t);
      return { allowed: true, remaining };
    },
    size: () => store.size(),
  };
}
