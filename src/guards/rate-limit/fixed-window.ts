// Fixed-window limiter: `limit` requests per key per window, the window starting at the key's first request.
import type { Limiter, LimiterOptions } from './limiter.ts';
import { createWindowLimiter } from './window-limiter.ts';

interface Window {
  start: number;
  count: number;
}

export function createFixedWindowLimiter(options: LimiterOptions): Limiter {
  const { limit, windowMs } = options;
  return createWindowLimiter<Window>(options, {
    current: (held, t) => (held && t - held.start < windowMs ? held : { start: t, count: 0 }),
    waitMs: (window, t) => (window.count >= limit ? window.start + windowMs - t : undefined),
    accept: (window) => limit - ++window.count,
    expired: (window, t) => t - window.start >= windowMs,
  });
}
