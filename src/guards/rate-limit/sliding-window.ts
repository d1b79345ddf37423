// Sliding-window limiter: at most `limit` accepted requests per key within any `windowMs` span (a sliding log).
import {
  BoundedKeyStore,
  defaultMaxKeys,
  retryAfterSeconds,
  type Limiter,
  type LimiterOptions,
} from './limiter.ts';

export function createSlidingWindowLimiter(options: LimiterOptions): Limiter {
  const { limit, windowMs } = options;
  const now = options.now ?? Date.now;
  // Each entry holds the times of accepted requests still inside the window, oldest first; never more than `limit`.
  const store = new BoundedKeyStore<number[]>(
    windowMs,
    options.maxKeys ?? defaultMaxKeys,
    (log, t) => log.every((at) => t - at >= windowMs),
    now(),
  );
  return {
    take(key) {
      const t = now();
      const log = (store.get(key) ?? []).filter((at) => t - at < windowMs);
      const oldest = log[0];
      if (log.length >= limit && oldest !== undefined) {
        return { allowed: false, retryAfterSeconds: retryAfterSeconds(oldest + windowMs - t) };
      }
      log.push(t);
      store.set(key, log, t);
      return { allowed: true, remaining: limit - log.length };
    },
    size: () => store.size(),
  };
}
