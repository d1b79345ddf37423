// Rate limits kept in Redis, so a user spreading requests over replicas is limited exactly as on one: the fixed
// and sliding windows of the in-memory limiters as atomic Lua scripts. While Redis is unreachable ordinary limits
// fail open (logged once per outage, counted in /metrics) and the Lifecycle window fails closed (503), because it
// protects hardware.
import { randomUUID } from 'node:crypto';
import { Counter, type Registry } from 'prom-client';
import { retryAfterSeconds, type Clock, type LimitDecision } from '../guards/rate-limit/limiter.ts';
import type { LimiterFactory, LimitSpec } from '../guards/rate-limit/rate-limits.ts';
import { clusterKey } from './cluster.ts';
import { luaScript, type ClusterLog, type RedisLink } from './redis-link.ts';
import { clusterUnavailable } from './redis-unavailable.ts';

// Keys outlive their window by a margin, so a window measured on the replicas' clock is never cut short by
// Redis expiring it; idle keys still go.
const keyMarginMs = 60_000;

// KEYS[1] hash { s: window start, c: count }; ARGV now, windowMs, limit, ttl. Returns { allowed, n } where n is
// the remaining budget, or the milliseconds until the window ends.
const fixedWindow = luaScript(`
local now = tonumber(ARGV[1]); local win = tonumber(ARGV[2]); local limit = tonumber(ARGV[3])
local state = redis.call('HMGET', KEYS[1], 's', 'c')
local start = tonumber(state[1]); local count = tonumber(state[2]) or 0
if start == nil or now - start >= win or now < start then start = now; count = 0 end
if count >= limit then return {0, start + win - now} end
count = count + 1
redis.call('HSET', KEYS[1], 's', start, 'c', count)
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return {1, limit - count}
`);

// KEYS[1] sorted set of accepted times; ARGV now, windowMs, limit, ttl, a unique member.
const slidingWindow = luaScript(`
local now = tonumber(ARGV[1]); local win = tonumber(ARGV[2]); local limit = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - win)
local count = redis.call('ZCARD', KEYS[1])
if count >= limit then
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return {0, tonumber(oldest[2]) + win - now}
end
redis.call('ZADD', KEYS[1], now, ARGV[5])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return {1, limit - count - 1}
`);

/** Limits that must not be bypassed while Redis is away. */
const failClosed: ReadonlySet<LimitSpec['name']> = new Set(['Lifecycle']);

export function sharedLimiterFactory(
  link: RedisLink,
  log: ClusterLog,
  metrics: Registry,
  now: Clock,
): LimiterFactory {
  const failedOpen = new Counter({
    name: 'rate_limit_fail_open_total',
    help: 'Requests let through unlimited because the shared Redis was unreachable, by limit.',
    labelNames: ['limit'],
    registers: [metrics],
  });
  const refused = new Counter({
    name: 'rate_limit_fail_closed_total',
    help: 'Requests refused (503) because the shared Redis was unreachable, by limit.',
    labelNames: ['limit'],
    registers: [metrics],
  });
  let warned = false;
  link.onRestored(() => {
    warned = false;
  });

  return (spec) => ({
    async take(key): Promise<LimitDecision> {
      const redisKey = clusterKey('limit', spec.name, key);
      const ttl = spec.windowMs + keyMarginMs;
      let answer: [number, number];
      try {
        const raw =
          spec.kind === 'fixed'
            ? await link.eval('limit', fixedWindow, [redisKey], [now(), spec.windowMs, spec.limit, ttl])
            : await link.eval(
                'limit',
                slidingWindow,
                [redisKey],
                [now(), spec.windowMs, spec.limit, ttl, randomUUID()],
              );
        answer = checkedAnswer(raw);
      } catch (err) {
        if (failClosed.has(spec.name)) {
          refused.inc({ limit: spec.name });
          throw clusterUnavailable(
            `The ${spec.name} limit is kept in the shared Redis; refused until it answers again.`,
            err,
          );
        }
        failedOpen.inc({ limit: spec.name });
        if (!warned) {
          warned = true;
          log.warn(
            { limit: spec.name, err: (err as Error).message },
            'rate limits fail open: Redis unreachable',
          );
        }
        return { allowed: true, remaining: spec.limit };
      }
      const [allowed, n] = answer;
      return allowed === 1
        ? { allowed: true, remaining: n }
        : { allowed: false, retryAfterSeconds: retryAfterSeconds(n) };
    },
  });
}

/** The scripts answer two integers; anything else (a Redis that is not what it seems) is treated as a failure. */
function checkedAnswer(raw: unknown): [number, number] {
  if (
    Array.isArray(raw) &&
    raw.length === 2 &&
    (raw[0] === 0 || raw[0] === 1) &&
    Number.isSafeInteger(raw[1])
  )
    return [raw[0] as number, raw[1] as number];
  throw new Error('unexpected answer from the limit script');
}
