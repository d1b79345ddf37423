// The stream registry across replicas: each replica keeps its streams in a Redis hash that its heartbeat re-writes
// (so a dead replica's entries expire three heartbeats later, and an emptied Redis is refilled), ConnectionLimits
// are checked over every live replica in one Lua script, and a stream is ended wherever it lives by pub/sub.
import type { ConnectionLimitSettings, StreamIdentity, StreamRow } from '../http/streams/stream-rows.ts';
import { perUserRefusal, totalRefusal } from '../http/streams/registry.ts';
import type { LocalStreams, StreamLedger } from '../http/streams/stream-ledger.ts';
import { clusterKey, type Cluster } from './cluster.ts';
import { luaScript, type ClusterLog } from './redis-link.ts';

// KEYS[1] the replica set. ARGV: key prefix, this replica, stream id, user, row JSON, MaxPerUser, MaxTotal, ttl.
// Counts the live replicas' streams (dropping dead replicas' leftovers), then records the new one. A heartbeat that
// reached Redis first has written the stream already (it writes every stream admitted or being admitted): it is
// then not counted against itself nor counted twice, and a refusal takes it out again.
const admitScript = luaScript(`
local prefix = ARGV[1]; local me = ARGV[2]; local id = ARGV[3]; local user = ARGV[4]
local streams = prefix .. 'streams:' .. me; local users = prefix .. 'stream-users:' .. me
local written = redis.call('HEXISTS', streams, id) == 1
local total = 0; local mine = 0
for _, r in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  if r == me or redis.call('EXISTS', prefix .. 'alive:' .. r) == 1 then
    total = total + redis.call('HLEN', prefix .. 'streams:' .. r)
    mine = mine + (tonumber(redis.call('HGET', prefix .. 'stream-users:' .. r, user)) or 0)
  else
    redis.call('SREM', KEYS[1], r)
    redis.call('DEL', prefix .. 'streams:' .. r, prefix .. 'stream-users:' .. r)
  end
end
if written then
  total = total - 1
  mine = mine - 1
end
local verdict
if mine >= tonumber(ARGV[6]) then verdict = 'user' elseif total >= tonumber(ARGV[7]) then verdict = 'total' end
if verdict then
  if written then
    redis.call('HDEL', streams, id)
    if redis.call('HINCRBY', users, user, -1) <= 0 then redis.call('HDEL', users, user) end
  end
  return { verdict, verdict == 'user' and mine or total }
end
redis.call('SADD', KEYS[1], me)
if not written then
  redis.call('HSET', streams, id, ARGV[5])
  redis.call('HINCRBY', users, user, 1)
end
redis.call('PEXPIRE', streams, ARGV[8])
redis.call('PEXPIRE', users, ARGV[8])
return {'ok', 0}
`);

// KEYS[1] this replica's streams, KEYS[2] its per-user counts; ARGV stream id, user.
const releaseScript = luaScript(`
if redis.call('HDEL', KEYS[1], ARGV[1]) == 1 then
  if redis.call('HINCRBY', KEYS[2], ARGV[2], -1) <= 0 then redis.call('HDEL', KEYS[2], ARGV[2]) end
end
return 0
`);

interface TerminateMessage {
  readonly replica: string;
  readonly id: string;
}

export class SharedStreams implements StreamLedger {
  readonly #cluster: Cluster;
  readonly #log: ClusterLog;
  #local: LocalStreams | undefined;
  /** Streams admitted in Redis, by id: the heartbeat writes these (with the registry's current figures). */
  readonly #admitted = new Map<string, StreamRow>();

  constructor(cluster: Cluster, log: ClusterLog) {
    this.#cluster = cluster;
    this.#log = log;
    cluster.onHeartbeat(() => this.#rewrite());
  }

  get replicaId(): string {
    return this.#cluster.replicaId;
  }

  attach(local: LocalStreams): void {
    this.#local = local;
    void this.#cluster.subscribe('terminate', (message) => {
      const { replica, id } = JSON.parse(message) as TerminateMessage;
      if (replica === this.replicaId) void local.terminate(id);
    });
  }

  async admit(
    id: string,
    identity: StreamIdentity,
    limits: ConnectionLimitSettings,
  ): Promise<'admitted' | 'unavailable'> {
    const row: StreamRow = {
      id,
      ...identity,
      openedAt: new Date().toISOString(),
      symbols: [],
      sent: 0,
      dropped: 0,
      replica: this.replicaId,
    };
    // Held before the script runs, so a heartbeat racing it cannot drop the entry.
    this.#admitted.set(id, row);
    let answer: [string, number];
    try {
      answer = (await this.#cluster.link.eval(
        'streams',
        admitScript,
        [clusterKey('replicas')],
        [
          clusterKey(''),
          this.replicaId,
          id,
          identity.user,
          JSON.stringify(row),
          limits.MaxPerUser,
          limits.MaxTotal,
          this.#cluster.entryTtlMs,
        ],
      )) as [string, number];
    } catch (err) {
      this.#log.warn(
        { err: (err as Error).message },
        'connection limits fail open to this replica: Redis unreachable',
      );
      return 'unavailable';
    }
    const [verdict, count] = answer;
    if (verdict === 'ok') return 'admitted';
    this.#admitted.delete(id);
    throw verdict === 'user'
      ? perUserRefusal(count, limits.MaxPerUser)
      : totalRefusal(count, limits.MaxTotal);
  }

  async release(id: string, user: string): Promise<void> {
    this.#admitted.delete(id);
    const me = this.replicaId;
    await this.#cluster.link
      .eval('streams', releaseScript, [clusterKey('streams', me), clusterKey('stream-users', me)], [id, user])
      .catch(() => undefined); // the next heartbeat writes the hash without it
  }

  async others(): Promise<StreamRow[]> {
    const replicas = (await this.#cluster.liveReplicas()).filter((r) => r !== this.replicaId);
    const values = await this.#cluster.link.run('streams', (r) => {
      const pipeline = r.pipeline();
      for (const replica of replicas) pipeline.hvals(clusterKey('streams', replica));
      return pipeline.exec();
    });
    return (values ?? []).flatMap(([, rows]) =>
      (rows as string[]).map((row) => JSON.parse(row) as StreamRow),
    );
  }

  async terminateElsewhere(id: string): Promise<StreamRow | undefined> {
    const replicas = (await this.#cluster.liveReplicas()).filter((r) => r !== this.replicaId);
    const found = await this.#cluster.link.run('streams', (r) => {
      const pipeline = r.pipeline();
      for (const replica of replicas) pipeline.hget(clusterKey('streams', replica), id);
      return pipeline.exec();
    });
    const index = (found ?? []).findIndex(([, row]) => typeof row === 'string');
    const replica = replicas[index];
    if (replica === undefined) return undefined;
    await this.#cluster.publish('terminate', JSON.stringify({ replica, id } satisfies TerminateMessage));
    return JSON.parse(found?.[index]?.[1] as string) as StreamRow;
  }

  /** Writes this replica's streams afresh, with current figures: keeps them alive and repairs any drift. */
  async #rewrite(): Promise<void> {
    const me = this.replicaId;
    const current = new Map((this.#local?.rows() ?? []).map((row) => [row.id, row]));
    const rows = [...this.#admitted.keys()].map((id) => current.get(id) ?? this.#admitted.get(id));
    const streamsKey = clusterKey('streams', me);
    const usersKey = clusterKey('stream-users', me);
    const users = new Map<string, number>();
    for (const row of rows) if (row) users.set(row.user, (users.get(row.user) ?? 0) + 1);
    const ttl = this.#cluster.entryTtlMs;
    await this.#cluster.link.run('streams', (r) => {
      const multi = r.multi().del(streamsKey, usersKey);
      // One HSET per hash whatever the number of streams: a heartbeat costs the same few operations.
      const fields = rows.flatMap((row) => (row ? [row.id, JSON.stringify(row)] : []));
      if (fields.length > 0) multi.hset(streamsKey, ...fields);
      if (users.size > 0)
        multi.hset(usersKey, ...[...users].flatMap(([user, count]) => [user, String(count)]));
      return multi.pexpire(streamsKey, ttl).pexpire(usersKey, ttl).sadd(clusterKey('replicas'), me).exec();
    });
  }
}
