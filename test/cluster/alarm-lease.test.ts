// One alarm lease against a real redis-server: a lease whose watch fails to start (the stored journal could not
// be read, say Redis timed out right after the lease was taken) is given back at once instead of being renewed
// with nobody watching the PLC, and the next round takes it again.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { AlarmLease, type LeaseShare } from '../../src/cluster/alarm-lease.ts';
import { alarmKeys } from '../../src/cluster/alarm-scripts.ts';
import { RedisLink, type ClusterLog } from '../../src/cluster/redis-link.ts';
import { RedisServer } from '../helpers/redis-server.ts';

const quiet: ClusterLog = { info: () => undefined, warn: () => undefined, error: () => undefined };

/** Room for every lease this replica is offered. */
const roomy: LeaseShare = { claim: () => true, unclaim: () => undefined };

describe('alarm lease', () => {
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
    const keys = alarmKeys('line1');
    const acquisitions: string[] = [];
    const losses: string[] = [];
    let failNext = true;
    const lease = new AlarmLease(
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

    await lease.tick(roomy);
    assert.equal(acquisitions.length, 1);
    assert.equal(lease.held, false, 'a lease whose watch failed is not held');
    assert.deepEqual(losses, ['the watch did not start']);
    assert.equal(await link.commands.get(keys.lease), null, 'and it is free in Redis for any replica');

    await lease.tick(roomy);
    assert.equal(acquisitions.length, 2);
    assert.equal(lease.held, true);
    assert.equal(await link.commands.get(keys.lease), acquisitions[1]);
    assert.notEqual(acquisitions[1], acquisitions[0], 'taken again under a new fencing token');
    await lease.stop();
    assert.equal(await link.commands.get(keys.lease), null);
  });
});
