// The Redis side of alarm monitoring across replicas, per monitored PLC: the lease (`<token>|<ReplicaId>`, the
// token a fencing counter), the journal stream (ids `<seq>-0`), and a state hash with the journal's epoch, its
// newest seq, the last snapshot of the outstanding alarms and the seq it is as of (`snapseq`: the outstanding
// alarms now are that snapshot with the stream's later entries applied), the holder and its last renewal.
// Every write checks the lease in the same script, so a holder whose lease was taken cannot append.
import { clusterKey } from '../../../cluster/cluster.ts';
import { leaseKeys, redisNowMs, type LeaseKeys } from '../../../cluster/lease-scripts.ts';
import { luaScript } from '../../../cluster/redis-link.ts';

export interface AlarmKeys extends LeaseKeys {
  readonly journal: string;
}

export function alarmKeys(plcId: string): AlarmKeys {
  return { ...leaseKeys('alarms', plcId), journal: clusterKey('alarms', plcId, 'journal') };
}

/** Who asked to acknowledge `key`: claimed by the `acknowledged` entry that follows, whichever replica holds the lease. */
export function ackKey(plcId: string, key: string): string {
  return clusterKey('alarms', plcId, 'ack', key);
}

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
