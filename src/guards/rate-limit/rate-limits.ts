// The gateway's named rate limits, built once per app from `RateLimiting` settings, plus factories for new ones.
import type { Settings } from '../../config/schema.ts';
import { createFixedWindowLimiter } from './fixed-window.ts';
import { refuseUnlessAllowed, type AnyLimiter, type Clock } from './limiter.ts';
import { createSlidingWindowLimiter } from './sliding-window.ts';

/** A named route limit a route can declare with `config: { limit: '<name>' }`. */
export type RouteLimitName =
  | 'SymbolBrowsing'
  | 'AlarmReads'
  | 'RpcInvocations'
  | 'NotificationConnections'
  | 'Lifecycle'
  | 'FileTransfers'
  | 'HistoryQueries';

/** Whose budget a request spends: the user's, the user's for one PLC, or the PLC's (shared by all users). */
type Partition = 'user' | 'user+plc' | 'plc';

export interface LimitSubject {
  /** The JWT `sub`, or a client address for anonymous routes. */
  readonly user: string;
  readonly plcId?: string;
}

/** `Spent`: void in memory; a promise when a shared store decides. */
export interface RateLimits<Spent extends void | Promise<void> = void | Promise<void>> {
  readonly enabled: boolean;
  /**
   * Spends one request of the global per-user budget; throws (or rejects, with a shared store) 429 RATE_LIMITED
   * with Retry-After.
   */
  global(user: string): Spent;
  /** Spends one request of a named route limit; throws (or rejects) 429 RATE_LIMITED with Retry-After. */
  route(name: RouteLimitName, subject: LimitSubject): Spent;
}

interface NamedLimit {
  readonly partition: Partition;
  readonly limiter: AnyLimiter;
}

/** One limit as a store must build it: its name, window kind, budget and window. */
export interface LimitSpec {
  readonly name: RouteLimitName | 'GlobalPerUser';
  readonly kind: 'fixed' | 'sliding';
  readonly limit: number;
  readonly windowMs: number;
}

/** Builds the limiter of one named limit; the default keeps its state in this process. */
export type LimiterFactory = (spec: LimitSpec) => AnyLimiter;

function spend(limiter: AnyLimiter, key: string, what: string): void | Promise<void> {
  const decision = limiter.take(key);
  // In memory the decision is immediate and the guard stays synchronous; a shared store answers later.
  if (decision instanceof Promise) return decision.then((d) => refuseUnlessAllowed(d, what));
  refuseUnlessAllowed(decision, what);
}

function partitionKey(partition: Partition, subject: LimitSubject): string {
  const plc = subject.plcId ?? '';
  // JSON keeps the parts apart whatever characters a sub or plcId contains.
  if (partition === 'user') return JSON.stringify([subject.user]);
  if (partition === 'plc') return JSON.stringify([plc]);
  return JSON.stringify([subject.user, plc]);
}

export function createRateLimits(settings: Settings['RateLimiting'], now?: Clock): RateLimits<void>;
export function createRateLimits(
  settings: Settings['RateLimiting'],
  now?: Clock,
  store?: LimiterFactory,
): RateLimits;
export function createRateLimits(
  settings: Settings['RateLimiting'],
  now: Clock = Date.now,
  store?: LimiterFactory,
): RateLimits {
  const fixedWindow = (limit: number, windowMs: number) => createFixedWindowLimiter({ limit, windowMs, now });
  const slidingWindow = (limit: number, windowMs: number) =>
    createSlidingWindowLimiter({ limit, windowMs, now });
  const build: LimiterFactory =
    store ??
    ((spec) =>
      spec.kind === 'fixed'
        ? fixedWindow(spec.limit, spec.windowMs)
        : slidingWindow(spec.limit, spec.windowMs));
  const fixed = (name: LimitSpec['name'], limit: number, windowMs: number) =>
    build({ name, kind: 'fixed', limit, windowMs });
  const globalLimiter = fixed('GlobalPerUser', settings.GlobalPerUser, 1000);
  const named: Readonly<Record<RouteLimitName, NamedLimit>> = {
    SymbolBrowsing: { partition: 'user', limiter: fixed('SymbolBrowsing', settings.SymbolBrowsing, 1000) },
    AlarmReads: { partition: 'user+plc', limiter: fixed('AlarmReads', settings.AlarmReads, 1000) },
    RpcInvocations: {
      partition: 'user+plc',
      limiter: fixed('RpcInvocations', settings.RpcInvocations, 1000),
    },
    NotificationConnections: {
      partition: 'user',
      limiter: fixed('NotificationConnections', settings.NotificationConnections, 60_000),
    },
    Lifecycle: {
      partition: 'plc',
      limiter: build({ name: 'Lifecycle', kind: 'sliding', limit: settings.Lifecycle, windowMs: 5000 }),
    },
    FileTransfers: { partition: 'user+plc', limiter: fixed('FileTransfers', settings.FileTransfers, 1000) },
    HistoryQueries: {
      partition: 'user+plc',
      limiter: fixed('HistoryQueries', settings.HistoryQueries, 1000),
    },
  };
  const enabled = settings.Enabled;
  return {
    enabled,
    global(user) {
      if (enabled) return spend(globalLimiter, partitionKey('user', { user }), 'GlobalPerUser');
    },
    route(name, subject) {
      if (!enabled) return;
      const { partition, limiter } = named[name];
      return spend(limiter, partitionKey(partition, subject), name);
    },
  };
}
