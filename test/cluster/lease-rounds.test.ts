// Lease rounds of two replicas against a real redis-server, driven round by round: the senior takes a free lease,
// a junior takes it only when the senior cannot hold it (after its grace time). Once the senior can hold it again,
// rounds that offer (the alarms') hand the lease to the senior; rounds that do not (MQTT's) leave it with its holder.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { Cluster } from '../../src/cluster/cluster.ts';
import { Lease, leaseTimes } from '../../src/cluster/lease.ts';
import { LeaseRounds } from '../../src/cluster/lease-rounds.ts';
import { leaseKeys } from '../../src/cluster/lease-scripts.ts';
import type { ClusterLog } from '../../src/cluster/redis-link.ts';
import { RedisServer } from '../helpers/redis-server.ts';

const quiet: ClusterLog = { info: () => undefined, warn: () => undefined, error: () => undefined };

interface Member {
  readonly cluster: Cluster;
  readonly rounds: LeaseRounds;
  readonly lease: Lease;
  canHold: boolean;
}

describe('lease rounds', () => {
  let redis: RedisServer;
  /** The members' local clock (ms): the grace a free lease waits out is counted in it. */
  let clock = 0;
  const clusters: Cluster[] = [];

  before(async () => {
    redis = await RedisServer.start();
  });
  after(async () => {
    await Promise.all(clusters.map((c) => c.close()));
    await redis.kill();
  });

  async function member(replicaId: string, name: string, offer: boolean): Promise<Member> {
    const cluster = new Cluster(
      { Redis: redis.url, ReplicaId: replicaId, HeartbeatSeconds: 60, LeaseSeconds: 1 },
      { log: quiet, metrics: new Registry() },
    );
    await cluster.start();
    clusters.push(cluster);
    const rounds = new LeaseRounds(cluster, quiet, { name, offer });
    const m: Member = {
      cluster,
      rounds,
      canHold: true,
      lease: new Lease(
        name,
        cluster.link,
        leaseKeys(name, 'line1'),
        replicaId,
        cluster.leaseMs,
        { canHold: () => m.canHold, acquired: () => Promise.resolve(), lost: () => Promise.resolve() },
        quiet,
        () => clock,
      ),
    };
    return m;
  }

  /** The senior `x` (its first round counted first) and the junior `y`; y ends up holding the lease. */
  async function juniorHolds(name: string, offer: boolean): Promise<[Member, Member]> {
    const x = await member(`${name}-x`, name, offer);
    const y = await member(`${name}-y`, name, offer);
    x.canHold = false;
    await x.rounds.round();
    await y.rounds.round();
    x.rounds.add(x.lease);
    y.rounds.add(y.lease);
    // y takes the free lease once it has stayed free for y's grace time (rank 1: two rounds' time), counted on
    // the members' clock, moved a round at a time.
    for (let i = 0; !y.lease.held; i++) {
      assert.ok(i < 20, 'y never took the free lease');
      await x.rounds.round();
      await y.rounds.round();
      assert.equal(x.lease.held, false, 'the senior cannot hold it');
      clock += leaseTimes(y.cluster.leaseMs).tickMs;
    }
    x.canHold = true;
    return [x, y];
  }

  it('without offers (MQTT), a lease stays with the junior holding it when the senior can hold it again', async () => {
    const [x, y] = await juniorHolds('mqtt-test', false);
    for (let i = 0; i < 6; i++) {
      await y.rounds.round();
      await x.rounds.round();
    }
    assert.equal(y.lease.held, true, 'the junior keeps it');
    assert.equal(x.lease.held, false);
    await y.rounds.stop();
    // Stopping releases it: the senior takes it at its next round.
    await x.rounds.round();
    assert.equal(x.lease.held, true);
    await x.rounds.stop();
  });

  it('with offers (alarms), the junior hands the lease to the senior once it can hold it', async () => {
    const [x, y] = await juniorHolds('alarm-test', true);
    await y.rounds.round(); // y renews and offers it
    await x.rounds.round(); // x, the senior, takes it over
    assert.equal(x.lease.held, true);
    await y.rounds.round(); // y learns it is fenced
    assert.equal(y.lease.held, false);
    await x.rounds.stop();
    await y.rounds.stop();
  });
});
