// The gateway's named rate limits, built once per app from `RateLimiting` settings, plus factories for new ones.
import type { Settings } from '../../config/schema.ts';
import { createFixedWindowLimiter } from './fixed-window.ts';
import { enforce, type Clock, type Limiter } from './limiter.ts';
import { createSlidingWindowLimiter } from './sliding-window.ts';

export const routeLimitNames = [
  'SymbolBrowsing',
  'AlarmReads',
  'RpcInvocations',
  'NotificationConnections',
  'Lifecycle',
  'FileTransfers',
] as const;
/** A named route limit a route can declare with `config: { limit: '<name>' }`. */
export type RouteLimitName = (typeof routeLimitNames)[number];

/** Whose budget a request spends: the user's, the user's for one PLC, or the PLC's (shared by all users). */
export type Partition = 'user' | 'user+plc' | 'plc';

export interface LimitSubject {
  /** The JWT `sub`, or a client address for anonymous routes. */
  readonly user: string;
  readonly plcId?: string;
}

export interface RateLimits {
  readonly enabled: boolean;
  /** Spends one request of the global per-user budget; throws 429 RATE_LIMITED with Retry-After. */
  global(user: string): void;
  /** Spends one request of a named route limit; throws 429 RATE_LIMITED with Retry-After. */
  route(name: RouteLimitName, subject: LimitSubject): void;
}

interface NamedLimit {
  readonly partition: Partition;
  readonly limiter: Limiter;
}

export function partitionKey(partition: Partition, subject: LimitSubject): string {
  const plc = subject.plcId ?? '';
  // JSON keeps the parts apart whatever characters a sub or plcId contains.
  if (partition === 'user') return JSON.stringify([subject.user]);
  if (partition === 'plc') return JSON.stringify([plc]);
  return JSON.stringify([subject.user, plc]);
}

export function createRateLimits(settings: Settings['RateLimiting'], now: Clock = Date.now): RateLimits {
  const fixedWindow = (limit: number, windowMs: number) => createFixedWindowLimiter({ limit, windowMs, now });
  const slidingWindow = (limit: number, windowMs: number) =>
    createSlidingWindowLimiter({ limit, windowMs, now });
  const globalLimiter = fixedWindow(settings.GlobalPerUser, 1000);
  const named: Readonly<Record<RouteLimitName, NamedLimit>> = {
    SymbolBrowsing: { partition: 'user', limiter: fixedWindow(settings.SymbolBrowsing, 1000) },
    AlarmReads: { partition: 'user+plc', limiter: fixedWindow(settings.AlarmReads, 1000) },
    RpcInvocations: { partition: 'user+plc', limiter: fixedWindow(settings.RpcInvocations, 1000) },
    NotificationConnections: {
      partition: 'user',
      limiter: fixedWindow(settings.NotificationConnections, 60_000),
    },
    Lifecycle: { partition: 'plc', limiter: slidingWindow(settings.Lifecycle, 5000) },
    FileTransfers: { partition: 'user+plc', limiter: fixedWindow(settings.FileTransfers, 1000) },
  };
  const enabled = settings.Enabled;
  return {
    enabled,
    global(user) {
      if (enabled) enforce(globalLimiter, partitionKey('user', { user }), 'GlobalPerUser');
    },
    route(name, subject) {
      if (!enabled) return;
      const { partition, limiter } = named[name];
      enforce(limiter, partitionKey(partition, subject), name);
    },
  };
}
