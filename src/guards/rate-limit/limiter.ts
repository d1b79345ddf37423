// Shared limiter contract, the in-memory key store the window kinds use, and the 429 error they raise.
import { AppError } from '../../errors.ts';

export type Clock = () => number;

export type LimitDecision =
  | { readonly allowed: true; readonly remaining: number }
  | { readonly allowed: false; readonly retryAfterSeconds: number };

/** A limiter whose state may live elsewhere (Redis): its decision can be a promise. */
export interface AnyLimiter {
  take(key: string): LimitDecision | Promise<LimitDecision>;
}

/** A rate limiter partitioned by key; every call to `take` counts one request. */
export interface Limiter {
  take(key: string): LimitDecision;
  /** Keys currently held in memory (for tests and metrics). */
  size(): number;
}

export interface LimiterOptions {
  /** Requests allowed per window. */
  readonly limit: number;
  readonly windowMs: number;
  /** Milliseconds clock; injectable so tests never sleep. */
  readonly now?: Clock;
  /** Upper bound on tracked keys; past it the oldest keys are dropped. */
  readonly maxKeys?: number;
}

export const defaultMaxKeys = 100_000;

/** Throws 429 RATE_LIMITED with Retry-After when the limiter refuses the key. */
export function enforce(limiter: Limiter, key: string, what: string): void {
  refuseUnlessAllowed(limiter.take(key), what);
}

/** Throws 429 RATE_LIMITED with Retry-After for a refusal. */
export function refuseUnlessAllowed(decision: LimitDecision, what: string): void {
  if (decision.allowed) return;
  const seconds = String(decision.retryAfterSeconds);
  throw new AppError('RATE_LIMITED', `Rate limit exceeded (${what}); retry after ${seconds} s.`, {
    'Retry-After': seconds,
  });
}

export function retryAfterSeconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}

/**
 * A Map of per-key state that stays bounded: idle entries are swept at most once per window, and past `maxKeys`
 * the least recently written entries go (Map iteration order is insertion order).
 */
export class BoundedKeyStore<T> {
  private readonly entries = new Map<string, T>();
  private lastSweep: number;

  constructor(
    private readonly windowMs: number,
    private readonly maxKeys: number,
    private readonly isIdle: (entry: T, now: number) => boolean,
    now: number,
  ) {
    this.lastSweep = now;
  }

  get(key: string): T | undefined {
    return this.entries.get(key);
  }

  /** Stores the entry as the newest one, so eviction order follows activity. */
  set(key: string, entry: T, now: number): void {
    this.entries.delete(key);
    this.entries.set(key, entry);
    this.maintain(now);
  }

  size(): number {
    return this.entries.size;
  }

  private maintain(now: number): void {
    // Sweeps are O(keys), so they run on time only; overflow drops the oldest key, which is O(1).
    if (now - this.lastSweep >= this.windowMs) {
      this.lastSweep = now;
      for (const [key, entry] of this.entries) if (this.isIdle(entry, now)) this.entries.delete(key);
    }
    for (const key of this.entries.keys()) {
      if (this.entries.size <= this.maxKeys) break;
      this.entries.delete(key);
    }
  }
}
