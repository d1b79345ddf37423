// The stream registry across replicas: each replica keeps its streams in a Redis hash that its heartbeat re-writes
// (so a dead replica's entries expire three heartbeats later, and an emptied Redis is refilled), ConnectionLimits
// are checked over every live replica in one Lua script, and a stream is ended wherever it lives by pub/sub.
// What is read back from Redis (rows, terminate messages) is checked before use: a forged one is dropped and logged.
import { Type } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import type { ConnectionLimitSettings, StreamIdentity, StreamRow } from '../http/streams/stream-rows.ts';
import { perUserRefusal, totalRefusal } from '../http/streams/registry.ts';
import type { LocalStreams, StreamLedger } from '../http/streams/stream-ledger.ts';
import { clusterKey, type Cluster } from './cluster.ts';
import { luaScript, type ClusterLog } from './redis-link.ts';
import { clusterUnavailable } from './redis-unavailable.ts';

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

const text = Type.String({ maxLength: 2048 });
const count = Type.Integer({ minimum: 0 });
const rowCheck = TypeCompiler.Compile(
  Type.Object({
    id: text,
    kind: text,
    plcId: Type.Union([text, Type.Null()]),
    user: text,
    remote: text,
    openedAt: text,
    symbols: Type.Array(text, { maxItems: 10_000 }),
    sent: count,
    dropped: count,
    replica: Type.Optional(text),
  }),
);
const terminateCheck = TypeCompiler.Compile(Type.Object({ replica: text, id: text }));

/** The value JSON-decoded when it passes `check`, else undefined. */
function decoded<T>(json: unknown, check: { Check(value: unknown): boolean }): T | undefined {
  if (typeof json !== 'string') return undefined;
  try {
    const value = JSON.parse(json) as unknown;
    return check.Check(value) ? (value as T) : undefined;
  } catch {
    return undefined;
  }
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
      const wanted = decoded<TerminateMessage>(message, terminateCheck);
      if (wanted === undefined) {
        this.#log.warn({ channel: 'terminate' }, 'stream terminate message dropped: not a terminate message');
        return;
      }
      if (wanted.replica === this.replicaId) void local.terminate(wanted.id);
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

  /** Every live replica's rows but this one's; 503 CLUSTER_UNAVAILABLE while Redis does not answer. */
  async others(): Promise<StreamRow[]> {
    try {
      const replicas = (await this.#cluster.liveReplicas()).filter((r) => r !== this.replicaId);
      const values = await this.#cluster.link.run('streams', (r) => {
        const pipeline = r.pipeline();
        for (const replica of replicas) pipeline.hvals(clusterKey('streams', replica));
        return pipeline.exec();
      });
      return (values ?? []).flatMap(([err, rows], i) => {
        if (err !== null) throw err;
        return (rows as unknown[]).flatMap((row) => this.#row(row, replicas[i]));
      });
    } catch (err) {
      throw clusterUnavailable("The other replicas' streams are listed in the shared Redis.", err);
    }
  }

  async terminateElsewhere(id: string, authorize: (row: StreamRow) => void): Promise<StreamRow | undefined> {
    let replica: string | undefined;
    let row: StreamRow | undefined;
    try {
      const replicas = (await this.#cluster.liveReplicas()).filter((r) => r !== this.replicaId);
      const found = await this.#cluster.link.run('streams', (r) => {
        const pipeline = r.pipeline();
        for (const replica of replicas) pipeline.hget(clusterKey('streams', replica), id);
        return pipeline.exec();
      });
      for (const [i, [err, value]] of (found ?? []).entries()) {
        if (err !== null) throw err;
        if (value === null) continue;
        row = this.#row(value, replicas[i])[0];
        if (row === undefined) continue;
        replica = replicas[i];
        break;
      }
    } catch (err) {
      throw clusterUnavailable("The other replicas' streams are listed in the shared Redis.", err);
    }
    if (replica === undefined || row === undefined) return undefined;
    authorize(row);
    try {
      await this.#cluster.publish('terminate', JSON.stringify({ replica, id } satisfies TerminateMessage));
    } catch (err) {
      throw clusterUnavailable('Streams on other replicas are ended through the shared Redis.', err);
    }
    return row;
  }

  /** The row when it has a row's shape and is the one its replica's hash holds; otherwise dropped and logged. */
  #row(value: unknown, replica: string | undefined): StreamRow[] {
    const row = decoded<StreamRow>(value, rowCheck);
    if (row !== undefined && row.replica === replica) return [row];
    this.#log.warn({ replica }, 'stream row in Redis dropped: not a stream row of its replica');
    return [];
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
