// The Redis side of alarm monitoring across replicas, per monitored PLC: the lease (`<token>|<ReplicaId>`, the
// token a fencing counter), the journal stream (ids `<seq>-0`), and a state hash with the journal's epoch, its
// newest seq, the last snapshot of the outstanding alarms and the seq it is as of (`snapseq`: the outstanding
// alarms now are that snapshot with the stream's later entries applied), the holder and its last renewal.
// Every write checks the lease in the same script, so a holder whose lease was taken cannot append.
import { clusterKey } from '../../../cluster/cluster.ts';
import { luaScript } from '../../../cluster/redis-link.ts';

export interface AlarmKeys {
  readonly lease: string;
  readonly fence: string;
  readonly state: string;
  readonly journal: string;
  readonly offer: string;
}

export function alarmKeys(plcId: string): AlarmKeys {
  return {
    lease: clusterKey('alarms', plcId, 'lease'),
    fence: clusterKey('alarms', plcId, 'fence'),
    state: clusterKey('alarms', plcId, 'state'),
    journal: clusterKey('alarms', plcId, 'journal'),
    offer: clusterKey('alarms', plcId, 'offer'),
  };
}

/** Who asked to acknowledge `key`: claimed by the `acknowledged` entry that follows, whichever replica holds the lease. */
export function ackKey(plcId: string, key: string): string {
  return clusterKey('alarms', plcId, 'ack', key);
}

const redisNowMs = `local function now_ms()
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

/** The channel every replica's append script publishes its new journal entries on, all PLCs' together. */
export const alarmPushChannel = clusterKey('alarms', 'pushes');

// One replica's round of appends, for every PLC it holds the lease of that has something to append (a part).
// KEYS per part: lease, state, journal, then one ack key per entry. ARGV: the push channel, the part count, then per
// part: lease value, journal length, epoch to start when there is none (the journal restarts), snapshot JSON or ''
// (none this time: the stored one and the entries after it still tell the outstanding alarms), entry count, then
// per entry its JSON and '1' when it is an `acknowledged` entry (it claims the acknowledging user). Every part checks
// its own lease: a fenced part appends nothing and the others go on. The new entries of all parts are published
// once on the push channel, in the frames alarm-push.ts reads.
// -> per part { 1, newest seq, epoch } or { 0, error }, then Redis's time in ms.
export const appendTransitions = luaScript(`${redisNowMs}
local frames = {}
local function frame(text)
  frames[#frames + 1] = #text .. ':' .. text
end

local function append(k, a)
  local lease, state, journal = KEYS[k + 1], KEYS[k + 2], KEYS[k + 3]
  if redis.call('GET', lease) ~= ARGV[a] then return { 0, 'FENCED the alarm lease is held by another replica' } end
  local stored = redis.call('HMGET', state, 'epoch', 'seq')
  local epoch, seq = stored[1], tonumber(stored[2])
  if not epoch then
    if ARGV[a + 3] == '' then return { 0, 'NOSNAPSHOT a new journal starts from a snapshot' } end
    epoch = ARGV[a + 2]
    seq = tonumber(epoch)
    redis.call('DEL', journal)
  end
  local n = tonumber(ARGV[a + 4])
  if n > 0 then
    frame(journal)
    frame(tostring(n))
  end
  for i = 1, n do
    seq = seq + 1
    local json = ARGV[a + 3 + 2 * i]
    local fields = { 'p', epoch, 'e', json }
    local user = ''
    if ARGV[a + 4 + 2 * i] == '1' then
      local sub = redis.call('GET', KEYS[k + 3 + i])
      if sub then
        redis.call('DEL', KEYS[k + 3 + i])
        fields[5] = 'u'
        fields[6] = sub
        user = 'u' .. sub
      end
    end
    local seqText = string.format('%.0f', seq)
    redis.call('XADD', journal, 'MAXLEN', ARGV[a + 1], seqText .. '-0', unpack(fields))
    frame(seqText)
    frame(epoch)
    frame(user)
    frame(json)
  end
  local newest = string.format('%.0f', seq)
  redis.call('HSET', state, 'epoch', epoch, 'seq', newest)
  if ARGV[a + 3] ~= '' then redis.call('HSET', state, 'snapshot', ARGV[a + 3], 'snapseq', newest) end
  return { 1, newest, epoch }
end

local results = {}
local k, a = 0, 3
for part = 1, tonumber(ARGV[2]) do
  results[part] = append(k, a)
  local n = tonumber(ARGV[a + 4])
  k = k + 3 + n
  a = a + 5 + 2 * n
end
if #frames > 0 then redis.call('PUBLISH', ARGV[1], table.concat(frames)) end
results[#results + 1] = now_ms()
return results
`);
