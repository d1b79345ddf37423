// Rate limits and the audit trail shared by three in-process replicas through a real redis-server: one global
// budget whichever replica a request reaches, the Lifecycle window per PLC across replicas, and Redis dying:
// ordinary limits fail open (counted, Degraded), Lifecycle fails closed (503), and both hold again once it is back.
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { clusterKey } from '../../src/cluster/cluster.ts';
import { buildTestApp, manualClock } from '../helpers/app.ts';
import { FakeTarget } from '../helpers/fake-target.ts';
import { RedisServer } from '../helpers/redis-server.ts';
import { bearer, mintToken } from '../helpers/tokens.ts';

interface Replicas {
  apps: FastifyInstance[];
  /** Each replica's log lines, as `line` events. */
  logs: EventEmitter[];
  clock: ReturnType<typeof manualClock>;
  close(): Promise<void>;
}

async function startReplicas(redis: RedisServer, settings: Record<string, unknown>): Promise<Replicas> {
  const clock = manualClock(Date.now());
  const apps: FastifyInstance[] = [];
  const logs: EventEmitter[] = [];
  for (const id of ['r1', 'r2', 'r3']) {
    const log = new EventEmitter();
    logs.push(log);
    apps.push(
      await buildTestApp({
        logger: { level: 'info', stream: { write: (line: string) => void log.emit('line', line) } },
        targets: [new FakeTarget('line1', { adsState: 'Stop' })],
        now: clock.now,
        settings: {
          ...settings,
          Features: { Lifecycle: true },
          // The cluster check's data is read anonymously here: a token would spend the budgets under test.
          Health: { Detailed: true },
          Cluster: { Redis: redis.url, ReplicaId: id, HeartbeatSeconds: 1 },
        },
      }),
    );
  }
  return { apps, logs, clock, close: async () => void (await Promise.all(apps.map((a) => a.close()))) };
}

async function readyReport(app: FastifyInstance) {
  const res = await app.inject('/health/ready');
  return res.json<{
    status: string;
    checks: Array<{ name: string; status: string; data: Record<string, unknown> }>;
  }>();
}

/** Resolves once every replica in `ids` has marked itself alive in Redis, waiting on Redis's keyspace events. */
async function allAlive(url: string, ids: readonly string[]): Promise<void> {
  const watcher = new Redis(url);
  const reader = new Redis(url);
  try {
    await watcher.config('SET', 'notify-keyspace-events', 'E$');
    await watcher.subscribe('__keyevent@0__:set');
    const allThere = async (): Promise<boolean> =>
      (await Promise.all(ids.map((id) => reader.exists(clusterKey('alive', id))))).every((n) => n === 1);
    await new Promise<void>((resolve, reject) => {
      const check = (): void => void allThere().then((yes) => yes && resolve(), reject);
      watcher.on('message', check);
      check();
    });
  } finally {
    watcher.disconnect();
    reader.disconnect();
  }
}

/** The next line a replica logs when Redis becomes reachable or unreachable. */
function reachabilityLogged(log: EventEmitter): Promise<void> {
  return new Promise((resolve) => {
    const onLine = (line: string): void => {
      if (!line.includes('"shared Redis')) return;
      log.off('line', onLine);
      resolve();
    };
    log.on('line', onLine);
  });
}

/**
 * Waits until the replica's cluster check reports Redis as `redis`. Reconnects are asynchronous; the replica logs each
 * change of reachability, so the check is read again on each log line.
 */
async function redisSeenAs(
  app: FastifyInstance,
  log: EventEmitter,
  redis: 'Reachable' | 'Unreachable',
): Promise<void> {
  for (;;) {
    const next = reachabilityLogged(log);
    const check = (await readyReport(app)).checks.find((c) => c.name === 'cluster');
    if (check?.data.redis === redis) return;
    await next;
  }
}

describe('cluster: shared rate limits and audit', () => {
  let redis: RedisServer;
  before(async () => {
    redis = await RedisServer.start();
  });
  after(async () => {
    await redis.kill();
  });

  it('GlobalPerUser is one budget over all replicas; the window reopens for all of them', async () => {
    const r = await startReplicas(redis, { RateLimiting: { GlobalPerUser: 5 } });
    try {
      const headers = bearer(await mintToken({ sub: 'spreader' }));
      const statuses: number[] = [];
      for (let i = 0; i < 7; i++) {
        const app = r.apps[i % 3] as FastifyInstance;
        statuses.push((await app.inject({ url: '/api/plcs', headers })).statusCode);
      }
      assert.deepEqual(statuses, [200, 200, 200, 200, 200, 429, 429]);
      const refused = await (r.apps[2] as FastifyInstance).inject({ url: '/api/plcs', headers });
      assert.equal(refused.json().error.code, 'RATE_LIMITED');
      assert.equal(refused.headers['retry-after'], '1');
      // Another user has a budget of their own.
      const other = bearer(await mintToken({ sub: 'someone-else' }));
      assert.equal(
        (await (r.apps[0] as FastifyInstance).inject({ url: '/api/plcs', headers: other })).statusCode,
        200,
      );
      r.clock.advance(1000);
      assert.equal(
        (await (r.apps[1] as FastifyInstance).inject({ url: '/api/plcs', headers })).statusCode,
        200,
      );
    } finally {
      await r.close();
    }
  });

  it('the Lifecycle window holds per PLC across replicas, and audit records are read on any replica', async () => {
    const r = await startReplicas(redis, {});
    try {
      const [a, b, c] = r.apps as [FastifyInstance, FastifyInstance, FastifyInstance];
      const admin = bearer(await mintToken({ sub: 'op-1', role: 'admin', scope: 'ads:lifecycle' }));
      const post = (app: FastifyInstance, cmd: string) =>
        app.inject({ method: 'POST', url: `/api/plcs/line1/lifecycle/${cmd}`, headers: admin });
      assert.equal((await post(a, 'start')).statusCode, 200);
      const second = await post(b, 'stop');
      assert.equal(second.statusCode, 429);
      assert.equal(second.json().error.code, 'RATE_LIMITED');
      r.clock.advance(4999);
      assert.equal((await post(c, 'stop')).statusCode, 429);
      r.clock.advance(1);
      assert.equal((await post(c, 'stop')).statusCode, 200);

      const audit = await b.inject({ url: '/api/admin/audit', headers: admin });
      assert.equal(audit.statusCode, 200);
      const items = audit.json().data.items as Array<{
        seq: number;
        action: string;
        sub: string;
        plcId: string;
      }>;
      assert.deepEqual(
        items.map((i) => [i.seq, i.action, i.sub, i.plcId]),
        [
          [1, 'lifecycle.start', 'op-1', 'line1'],
          [2, 'lifecycle.stop', 'op-1', 'line1'],
        ],
      );
      const page = await a.inject({ url: '/api/admin/audit?after=1&limit=1', headers: admin });
      const pageData = page.json<{ data: { items: Array<{ seq: number }>; nextAfter: number } }>().data;
      assert.deepEqual(
        pageData.items.map((i) => i.seq),
        [2],
      );
      assert.equal(pageData.nextAfter, 2);
      const filtered = await c.inject({ url: '/api/admin/audit?plcId=other', headers: admin });
      assert.deepEqual(filtered.json().data, { items: [], nextAfter: 2 });
    } finally {
      await r.close();
    }
  });

  it('Redis away: limits fail open (counted, Degraded), Lifecycle 503; Redis back empty: both hold again', async () => {
    const r = await startReplicas(redis, { RateLimiting: { GlobalPerUser: 2 } });
    try {
      const [a, b] = r.apps as [FastifyInstance, FastifyInstance];
      const user = bearer(await mintToken({ sub: 'u', role: 'admin', scope: 'ads:read ads:lifecycle' }));
      await redis.kill();
      await redisSeenAs(a, r.logs[0]!, 'Unreachable');
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++)
        statuses.push((await a.inject({ url: '/api/plcs', headers: user })).statusCode);
      assert.deepEqual(statuses, [200, 200, 200, 200]);
      const lifecycle = await a.inject({
        method: 'POST',
        url: '/api/plcs/line1/lifecycle/start',
        headers: user,
      });
      assert.equal(lifecycle.statusCode, 503);
      assert.equal(lifecycle.json().error.code, 'CLUSTER_UNAVAILABLE');
      const report = await readyReport(a);
      assert.equal(report.status, 'Degraded');
      assert.equal(report.checks.find((c) => c.name === 'cluster')?.status, 'Degraded');
      const metrics = (await a.inject('/metrics')).body;
      assert.match(metrics, /rate_limit_fail_open_total\{limit="GlobalPerUser"\} [1-9]/);
      assert.match(metrics, /rate_limit_fail_closed_total\{limit="Lifecycle"\} 1/);
      assert.match(metrics, /cluster_redis_up 0/);

      await redis.restart();
      await redisSeenAs(a, r.logs[0]!, 'Reachable');
      await redisSeenAs(b, r.logs[1]!, 'Reachable');
      const after = [];
      for (let i = 0; i < 3; i++)
        after.push((await (i % 2 ? b : a).inject({ url: '/api/plcs', headers: user })).statusCode);
      assert.deepEqual(after, [200, 200, 429]);
      r.clock.advance(1000);
      assert.equal(
        (await a.inject({ method: 'POST', url: '/api/plcs/line1/lifecycle/start', headers: user }))
          .statusCode,
        200,
      );
      // Each replica's heartbeat after the restart re-registers it; the log line above comes before that.
      await allAlive(redis.url, ['r1', 'r2', 'r3']);
      const healthy = await readyReport(b);
      assert.equal(healthy.status, 'Healthy');
      assert.deepEqual(healthy.checks.find((c) => c.name === 'cluster')?.data, {
        replica: 'r2',
        redis: 'Reachable',
        replicas: ['r1', 'r2', 'r3'],
        // No PLC has alarm monitoring here, so no lease is held.
        leases: {},
      });
    } finally {
      await r.close();
    }
  });
});
