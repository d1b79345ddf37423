// The Redis side of a lease per resource (an alarm-monitored PLC, a PLC published to MQTT), held by one replica at
// a time: the lease key (`<token>|<ReplicaId>`, the token a fencing counter), a state hash with the holder and its
// last renewal (and whatever the lease's user keeps beside them, e.g. the alarm journal's `epoch`), the offer key (a
// holder hands the lease to the senior replica), and the lease members that rank the replicas by seniority.
import { clusterKey } from './cluster.ts';
import { luaScript } from './redis-link.ts';

export interface LeaseKeys {
  readonly lease: string;
  readonly fence: string;
  readonly state: string;
  readonly offer: string;
}

/** The keys of the lease of `id` (a plcId) in `scope` (`alarms`, `mqtt`). */
export function leaseKeys(scope: string, id: string): LeaseKeys {
  return {
    lease: clusterKey(scope, id, 'lease'),
    fence: clusterKey(scope, id, 'fence'),
    state: clusterKey(scope, id, 'state'),
    offer: clusterKey(scope, id, 'offer'),
  };
}

/** Lua: `now_ms()`, Redis's own clock in milliseconds. */
export const redisNowMs = `local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
`;

// KEYS lease, fence, state, offer; ARGV ReplicaId, ttl ms, 'senior' (to take a free or offered lease), 'grace'
// (a free one only) or 'look'. -> { token or 0, epoch, previous holder (whose lease expired), its last renewal,
// 1 when the lease is free or 2 offered (and was not taken) }. A lease already held by this replica is kept (same token): the caller takes
// over from the stored state again. Taking an offered lease fences its holder at once.
export const acquireLease = luaScript(`${redisNowMs}
local epoch = redis.call('HGET', KEYS[3], 'epoch') or ''
local current = redis.call('GET', KEYS[1])
if current then
  local token, holder = string.match(current, '^(%d+)|(.*)$')
  if holder == ARGV[1] then
    redis.call('PEXPIRE', KEYS[1], ARGV[2])
    return { tonumber(token), epoch, '', '0', 0 }
  end
  if redis.call('GET', KEYS[4]) ~= current then return { 0, epoch, '', '0', 0 } end
  if ARGV[3] ~= 'senior' then return { 0, epoch, '', '0', 2 } end
  redis.call('DEL', KEYS[4])
  local next = redis.call('INCR', KEYS[2])
  redis.call('SET', KEYS[1], next .. '|' .. ARGV[1], 'PX', ARGV[2])
  redis.call('HSET', KEYS[3], 'holder', ARGV[1], 'renewed', now_ms())
  return { next, epoch, '', '0', 0 }
end
if ARGV[3] == 'look' then return { 0, epoch, '', '0', 1 } end
local token = redis.call('INCR', KEYS[2])
redis.call('SET', KEYS[1], token .. '|' .. ARGV[1], 'PX', ARGV[2])
local previous = redis.call('HMGET', KEYS[3], 'holder', 'renewed')
redis.call('HSET', KEYS[3], 'holder', ARGV[1], 'renewed', now_ms())
return { token, epoch, previous[1] or '', previous[2] or '0', 0 }
`);

// KEYS members (a sorted set: ReplicaId by its last round, Redis ms), joined (ReplicaId by the order it joined
// in), the join counter; ARGV ReplicaId, window ms. Drops the members whose last round is older than the window,
// marks this replica (joining it last if it is not a member) and answers its rank by seniority: how many live
// members joined before it.
export const leaseRound = luaScript(`${redisNowMs}
local now = now_ms()
local lapsed = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[2]))
for _, id in ipairs(lapsed) do
  redis.call('ZREM', KEYS[1], id)
  redis.call('ZREM', KEYS[2], id)
end
redis.call('ZADD', KEYS[1], now, ARGV[1])
if not redis.call('ZSCORE', KEYS[2], ARGV[1]) then
  redis.call('ZADD', KEYS[2], redis.call('INCR', KEYS[3]), ARGV[1])
end
for i = 1, 3 do redis.call('PEXPIRE', KEYS[i], ARGV[2]) end
return redis.call('ZRANK', KEYS[2], ARGV[1])
`);

// KEYS lease, state, offer; ARGV lease value, ttl ms, '1' to offer the lease to the senior replica.
// -> { 1 held or 0 lost, epoch }.
export const renewLease = luaScript(`${redisNowMs}
local epoch = redis.call('HGET', KEYS[2], 'epoch') or ''
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return { 0, epoch } end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('HSET', KEYS[2], 'renewed', now_ms())
if ARGV[3] == '1' then redis.call('SET', KEYS[3], ARGV[1], 'PX', ARGV[2]) else redis.call('DEL', KEYS[3]) end
return { 1, epoch }
`);

// KEYS lease; ARGV lease value. Lets another replica take over at once (this one cannot reach the PLC, or stops).
export const releaseLease = luaScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`);
