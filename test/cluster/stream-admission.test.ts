// ConnectionLimits' admission in Redis when the replica's heartbeat got there first: the heartbeat writes every
// stream the replica admitted or is admitting, so a stream can already be in Redis when its own admission runs. It
// must count once, not against itself, and be taken out again when refused.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { Registry } from 'prom-client';
import { Cluster, clusterKey } from '../../src/cluster/cluster.ts';
import { SharedStreams } from '../../src/cluster/shared-streams.ts';
import { isAppError } from '../../src/errors.ts';
import type { StreamIdentity } from '../../src/http/streams/stream-rows.ts';
import { RedisServer } from '../helpers/redis-server.ts';

const log = { info: () => undefined, warn: () => undefined, error: () => undefined };
const limits = { MaxPerUser: 2, MaxTotal: 100 };
const identity = (user: string): StreamIdentity => ({
  kind: 'notifications.sse',
  plcId: 'line1',
  user,
  remote: '127.0.0.1',
});
const streamsKey = clusterKey('streams', 'r1');
const usersKey = clusterKey('stream-users', 'r1');

describe('cluster: a stream the heartbeat wrote before its admission ran', () => {
  let redis: RedisServer;
  let cluster: Cluster;
  let streams: SharedStreams;
  let direct: Redis;

  before(async () => {
    redis = await RedisServer.start();
    // No heartbeat during the test: the one at start-up writes nothing yet, the ones below are written by hand.
    cluster = new Cluster(
      { Redis: redis.url, ReplicaId: 'r1', HeartbeatSeconds: 3600, LeaseSeconds: 5 },
      { log, metrics: new Registry() },
    );
    streams = new SharedStreams(cluster, log);
    await cluster.start();
    direct = new Redis(redis.url);
  });

  after(async () => {
    direct.disconnect();
    await cluster.close();
    await redis.kill();
  });

  /** What a heartbeat writes for a stream of `user` whose admission has not reached Redis yet. */
  const writtenByHeartbeat = async (id: string, user: string): Promise<void> => {
    await direct.hset(streamsKey, id, JSON.stringify({ id, ...identity(user) }));
    await direct.hincrby(usersKey, user, 1);
  };
  const refusedPerUser = (err: unknown): boolean =>
    isAppError(err) &&
    err.code === 'CONNECTION_LIMIT' &&
    err.message.includes('already has 2 open streams (ConnectionLimits:MaxPerUser 2)');

  it('counts it once, and not against itself', async () => {
    await writtenByHeartbeat('s1', 'u1');
    assert.equal(await streams.admit('s1', identity('u1'), limits), 'admitted');
    assert.equal(await direct.hget(usersKey, 'u1'), '1');
    assert.equal(await streams.admit('s2', identity('u1'), limits), 'admitted');
    assert.equal(await direct.hget(usersKey, 'u1'), '2');
    await assert.rejects(streams.admit('s3', identity('u1'), limits), refusedPerUser);
    assert.deepEqual((await direct.hkeys(streamsKey)).sort(), ['s1', 's2']);
  });

  it('takes it out again when it is refused', async () => {
    await writtenByHeartbeat('s4', 'u1');
    await assert.rejects(streams.admit('s4', identity('u1'), limits), refusedPerUser);
    assert.deepEqual((await direct.hkeys(streamsKey)).sort(), ['s1', 's2']);
    assert.equal(await direct.hget(usersKey, 'u1'), '2');
  });
});
