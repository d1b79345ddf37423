// Three gateway replicas in real processes on one sim-ads PLC and one Redis: ConnectionLimits count every
// replica's streams, any replica lists and ends any stream, and a SIGKILLed replica's streams leave the listing.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { clusterKey } from '../../src/cluster/cluster.ts';
import { authHeaders, RawSse } from '../features/notifications/clients.ts';
import { startReplica, startSimAds, type CliProcess } from '../helpers/cluster-plant.ts';
import { RedisServer } from '../helpers/redis-server.ts';
import { mintToken } from '../helpers/tokens.ts';

interface Row {
  id: string;
  user: string;
  replica: string;
  kind: string;
  plcId: string;
}

const symbol = 'GVL_HMI.stMachine.rSpeed';

describe('cluster: three replicas share the stream registry', () => {
  let redis: RedisServer;
  let sim: Awaited<ReturnType<typeof startSimAds>>;
  const replicas: CliProcess[] = [];
  let admin: Record<string, string>;

  before(async () => {
    redis = await RedisServer.start();
    sim = await startSimAds();
    replicas.push(
      ...(await Promise.all(
        ['r1', 'r2', 'r3'].map((id, i) =>
          startReplica({
            redisUrl: redis.url,
            simPort: sim.port,
            replicaId: id,
            index: i + 1,
            settings: { ConnectionLimits: { MaxPerUser: 2, MaxTotal: 100 } },
          }),
        ),
      )),
    );
    admin = authHeaders(await mintToken({ sub: 'admin-1' }));
  });

  after(async () => {
    await Promise.all(replicas.map((r) => r.stop()));
    await sim.process.stop();
    await redis.kill();
  });

  const url = (r: CliProcess) => `${r.url}/api/plcs/line1/notifications/sse?symbols=${symbol}`;
  const open = async (r: CliProcess, token: string) => {
    const sse = await new RawSse(url(r), authHeaders(token)).opened();
    return sse;
  };
  const listing = async (r: CliProcess): Promise<Row[]> => {
    const res = await fetch(`${r.url}/api/admin/connections`, { headers: admin });
    assert.equal(res.status, 200);
    return ((await res.json()) as { data: Row[] }).data;
  };

  it('MaxPerUser counts all replicas; any replica lists them with their replica and ends any of them', async () => {
    const [r1, r2, r3] = replicas as [CliProcess, CliProcess, CliProcess];
    const u = await mintToken({ sub: 'spread-user' });
    const a = await open(r1, u);
    const b = await open(r2, u);
    assert.deepEqual([a.status, b.status], [200, 200]);
    await a.next((e) => e.event === 'subscribed');
    const third = await open(r3, u);
    assert.equal(third.status, 429);
    const refusal = await third.json();
    assert.equal(refusal.error?.code, 'CONNECTION_LIMIT');
    assert.match(
      refusal.error?.message ?? '',
      /already has 2 open streams \(ConnectionLimits:MaxPerUser 2\)/,
    );
    const other = await open(r3, await mintToken({ sub: 'other-user' }));
    assert.equal(other.status, 200);

    const rows = (await listing(r3)).filter((row) => row.kind === 'notifications.sse');
    assert.deepEqual(rows.map((row) => [row.user, row.replica, row.plcId]).sort(), [
      ['other-user', 'r3', 'line1'],
      ['spread-user', 'r1', 'line1'],
      ['spread-user', 'r2', 'line1'],
    ]);
    const onR1 = rows.find((row) => row.replica === 'r1') as Row;
    const ended = await fetch(`${r3.url}/api/admin/connections/${onR1.id}`, {
      method: 'DELETE',
      headers: admin,
    });
    assert.equal(ended.status, 200);
    assert.deepEqual(((await ended.json()) as { data: unknown }).data, { id: onR1.id, terminated: true });
    await a.closedByServer();
    // Its place is free on every replica again.
    const again = await open(r2, u);
    assert.equal(again.status, 200);
    const missing = await fetch(`${r2.url}/api/admin/connections/${onR1.id}`, {
      method: 'DELETE',
      headers: admin,
    });
    assert.equal(missing.status, 404);
    for (const s of [b, other, again]) s.close();
  });

  it("a SIGKILLed replica's streams leave the listing and the limits once its heartbeat expires", async () => {
    const [r1, r2] = replicas as [CliProcess, CliProcess, CliProcess];
    const u = await mintToken({ sub: 'victim-user' });
    const a = await open(r2, u);
    const b = await open(r2, u);
    assert.deepEqual([a.status, b.status], [200, 200]);
    assert.equal((await open(r1, u)).status, 429);
    // Redis announces the expiry of r2's liveness key (HeartbeatSeconds 1 x 3 after its last heartbeat).
    const watcher = new Redis(redis.url);
    await watcher.config('SET', 'notify-keyspace-events', 'Ex');
    await watcher.subscribe('__keyevent@0__:expired');
    const expired = new Promise<void>((resolve) =>
      watcher.on('message', (_channel: string, key: string) => {
        if (key === clusterKey('alive', 'r2')) resolve();
      }),
    );
    await r2.kill();
    await expired;
    watcher.disconnect();
    assert.equal(
      (await listing(r1)).some((row) => row.replica === 'r2'),
      false,
    );
    const c = await open(r1, u);
    assert.equal(c.status, 200);
    c.close();
  });
});
