// Leases (the alarms' and MQTT's) against a real redis-server: a lease whose watch fails to start (the stored journal could not be
// read, say Redis timed out right after the lease was taken) is given back at once instead of being renewed with
// nobody watching the PLC, and the next round takes it again; the lease members' ranks go by seniority, and a
// member that lapses comes back as the most junior.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { Lease, type LeaseStanding } from '../../src/cluster/lease.ts';
import { leaseKeys, leaseRound } from '../../src/cluster/lease-scripts.ts';
import { clusterKey } from '../../src/cluster/cluster.ts';
import { RedisLink, type ClusterLog } from '../../src/cluster/redis-link.ts';
import { RedisServer } from '../helpers/redis-server.ts';

const quiet: ClusterLog = { info: () => undefined, warn: () => undefined, error: () => undefined };

/** The senior: takes every free lease. */
const senior: LeaseStanding = { senior: true, graceMs: 0 };

describe('cluster lease', () => {
  let redis: RedisServer;
  let link: RedisLink;

  before(async () => {
    redis = await RedisServer.start();
    link = new RedisLink({ url: redis.url }, quiet, new Registry());
    await link.connect();
  });

  after(async () => {
    await link.close();
    await redis.kill();
  });

  it('gives the lease back when its watch does not start, and takes it again at the next round', async () => {
    const keys = leaseKeys('alarms', 'line1');
    const acquisitions: string[] = [];
    const losses: string[] = [];
    let failNext = true;
    const lease = new Lease(
      'alarm',
      link,
      keys,
      'replica-a',
      5000,
      {
        canHold: () => true,
        acquired: (value) => {
          acquisitions.push(value);
          if (!failNext) return Promise.resolve();
          failNext = false;
          return Promise.reject(new Error('stored journal not read: command timed out'));
        },
        lost: (reason) => {
          losses.push(reason);
          return Promise.resolve();
        },
        epoch: () => undefined,
      },
      quiet,
    );

    await lease.tick(senior);
    assert.equal(acquisitions.length, 1);
    assert.equal(lease.held, false, 'a lease whose watch failed is not held');
    assert.deepEqual(losses, ['the watch did not start']);
    assert.equal(await link.commands.get(keys.lease), null, 'and it is free in Redis for any replica');

    await lease.tick(senior);
    assert.equal(acquisitions.length, 2);
    assert.equal(lease.held, true);
    assert.equal(await link.commands.get(keys.lease), acquisitions[1]);
    assert.notEqual(acquisitions[1], acquisitions[0], 'taken again under a new fencing token');
    await lease.stop();
    assert.equal(await link.commands.get(keys.lease), null);
  });

  it('tells until when it is surely held: its time to live from the last renewal sent, 0 once given up', async () => {
    const keys = leaseKeys('mqtt', 'line1');
    const lease = new Lease(
      'mqtt',
      link,
      keys,
      'replica-a',
      4000,
      { canHold: () => true, acquired: () => Promise.resolve(), lost: () => Promise.resolve() },
      quiet,
    );
    assert.equal(lease.safeUntil, 0, 'not held');
    const before = Date.now();
    await lease.tick(senior);
    const after = Date.now();
    assert.equal(lease.held, true);
    // The key lives three quarters of the lease time (3000 ms) from when Redis set it, no earlier than `before`.
    assert.ok(lease.safeUntil >= before + 3000 && lease.safeUntil <= after + 3000, String(lease.safeUntil));
    const pttl = await link.commands.pttl(keys.lease);
    assert.ok(pttl > 0 && Date.now() + pttl >= lease.safeUntil, 'Redis keeps the key at least that long');
    const first = lease.safeUntil;
    await lease.tick(senior);
    assert.ok(lease.safeUntil >= first, 'a renewal moves it on');
    await lease.drop('test');
    assert.equal(lease.safeUntil, 0);
    await link.commands.del(keys.lease);
  });

  it('ranks the lease members by when they joined; one that lapses rejoins below the others', async () => {
    const member = (...parts: string[]) => clusterKey('alarm-members', 'test', ...parts);
    const keys = [member(), member('joined'), member('joins')];
    const windowMs = 60_000;
    const round = async (id: string): Promise<number> =>
      (await link.eval('alarm-lease', leaseRound, keys, [id, windowMs])) as number;

    assert.equal(await round('replica-b'), 0, 'the first to join is the senior');
    assert.equal(await round('replica-a'), 1, 'seniority, not the name, ranks');
    assert.equal(await round('replica-c'), 2);
    assert.equal(await round('replica-b'), 0, 'rounds keep the rank');
    assert.equal(await round('replica-a'), 1);

    // b's last round falls out of the window (dated back past it, as if b had stopped a window ago) while a and c
    // go on: a and c move up, b rejoins last.
    const [seconds] = await link.commands.time();
    await link.commands.zadd(keys[0] as string, Number(seconds) * 1000 - windowMs - 1, 'replica-b');
    assert.equal(await round('replica-a'), 0, 'the senior lapsed: the next in rank is the senior');
    assert.equal(await round('replica-c'), 1);
    assert.equal(await round('replica-b'), 2, 'a lapsed member joins again as the most junior');
  });
});
