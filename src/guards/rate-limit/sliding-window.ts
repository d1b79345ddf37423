// Sliding-window limiter: at most `limit` accepted requests per key within any `windowMs` span (a sliding log).
import type { Limiter, LimiterOptions } from './limiter.ts';
import { createWindowLimiter } from './window-limiter.ts';

export function createSlidingWindowLimiter(options: LimiterOptions): Limiter {
  const { limit, windowMs } = options;
  // A key's state: the times of accepted requests still inside the window, oldest first; never more than `limit`.
  return createWindowLimiter<number[]>(options, {
    current: (held, t) => (held ?? []).filter((at) => t - at < windowMs),
    waitMs: (log, t) => {
      const oldest = log[0];
      return log.length >= limit && oldest !== undefined ? oldest + windowMs - t : undefined;
    },
    accept: (log, t) => limit - log.push(t),
    expired: (log, t) => log.every((at) => t - at >= windowMs),
  });
}
