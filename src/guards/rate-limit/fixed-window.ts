// Fixed-window limiter: `limit` requests per key per window, the window starting at the key's first request.
import {
  BoundedKeyStore,
  defaultMaxKeys,
  retryAfterSeconds,
  type Limiter,
  type LimiterOptions,
} from './limiter.ts';

interface Window {
  start: number;
  count: number;
}

export function createFixedWindowLimiter(options: LimiterOptions): Limiter {
  const { limit, windowMs } = options;
  const now = options.now ?? Date.now;
  const store = new BoundedKeyStore<Window>(
    windowMs,
    options.maxKeys ?? defaultMaxKeys,
    (w, t) => t - w.start >= windowMs,
    now(),
  );
  return {
    take(key) {
      const t = now();
      const current = store.get(key);
      const window = current && t - current.start < windowMs ? current : { start: t, count: 0 };
      if (window.count >= limit) {
        return { allowed: false, retryAfterSeconds: retryAfterSeconds(window.start + windowMs - t) };
      }
      window.count += 1;
      store.set(key, window, t);
      return { allowed: true, remaining: limit - window.count };
    },
    size: () => store.size(),
  };
}
