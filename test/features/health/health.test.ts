// /health/live and /health/ready: anonymous, the plc-connectivity check in each of its states, and who sees the
// checks' data: nobody anonymous unless Health.Detailed is on, an admin of every PLC all of it, another ReadAccess
// token only its own PLCs' (and a cluster replica's ids and lease holders only with full details).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../../../src/config/load.ts';
import { ConfigError } from '../../../src/config/schema.ts';
import { buildTestApp } from '../../helpers/app.ts';
import { minimalSettings, writeSettings } from '../../config/helpers.ts';
import { FakeTarget } from '../../helpers/fake-target.ts';
import { RedisServer } from '../../helpers/redis-server.ts';
import { bearer, mintToken } from '../../helpers/tokens.ts';

interface Check {
  name: string;
  status: string;
  description: string;
  data?: Record<string, unknown>;
}

async function ready(app: FastifyInstance, headers: Record<string, string> = {}) {
  const res = await app.inject({ url: '/health/ready', headers });
  return {
    status: res.statusCode,
    body: res.json<{ status: string; checks: Check[] }>(),
    headers: res.headers,
  };
}

describe('health', () => {
  test('/health/live: 200 Healthy without a token', async () => {
    const app = await buildTestApp();
    const res = await app.inject('/health/live');
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { status: 'Healthy' });
    await app.close();
  });

  test('/health/ready follows PLC connectivity: Healthy, Degraded, Unhealthy (an admin sees the data)', async () => {
    const a = new FakeTarget('a');
    const b = new FakeTarget('b');
    const app = await buildTestApp({ targets: [b, a] });
    const admin = bearer(await mintToken());
    try {
      let r = await ready(app, admin);
      assert.equal(r.status, 200);
      assert.deepEqual(r.body, {
        status: 'Healthy',
        checks: [
          {
            name: 'plc-connectivity',
            status: 'Healthy',
            description: '2 of 2 PLC targets connected.',
            data: { a: 'Connected', b: 'Connected' },
          },
        ],
      });

      b.setConnectionState('Connecting');
      r = await ready(app, admin);
      assert.equal(r.status, 200);
      assert.equal(r.body.status, 'Degraded');
      assert.equal(r.body.checks[0]?.status, 'Degraded');
      assert.deepEqual(r.body.checks[0]?.data, { a: 'Connected', b: 'Connecting' });

      a.setConnectionState('Disconnected');
      r = await ready(app, admin);
      assert.equal(r.status, 503);
      assert.equal(r.body.status, 'Unhealthy');
      assert.equal(r.body.checks[0]?.description, '0 of 2 PLC targets connected.');
    } finally {
      await app.close();
    }
  });

  test('/health/ready anonymous: names, statuses and fixed descriptions, no data, same status codes', async () => {
    const a = new FakeTarget('line-secret-a');
    const b = new FakeTarget('line-secret-b');
    const app = await buildTestApp({ targets: [a, b] });
    try {
      const answers: Array<[number, unknown]> = [];
      for (const change of [() => undefined, () => b.setConnectionState('Disconnected')]) {
        change();
        const r = await ready(app);
        assert.equal(r.headers['cache-control'], 'no-store');
        assert.match(String(r.headers.vary), /authorization/i);
        assert.doesNotMatch(JSON.stringify(r.body), /line-secret|of 2/);
        answers.push([r.status, r.body]);
      }
      a.setConnectionState('Disconnected');
      const down = await ready(app);
      answers.push([down.status, down.body]);
      const only = (status: string, description: string) => ({
        status,
        checks: [{ name: 'plc-connectivity', status, description }],
      });
      assert.deepEqual(answers, [
        [200, only('Healthy', 'Every configured PLC target is connected.')],
        [200, only('Degraded', 'Some PLC targets are not connected.')],
        [503, only('Unhealthy', 'No PLC target is connected.')],
      ]);
    } finally {
      await app.close();
    }
  });

  test('/health/ready with no targets configured: Healthy', async () => {
    const app = await buildTestApp();
    const res = await app.inject('/health/ready');
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().status, 'Healthy');
    assert.equal(res.json().checks[0].data, undefined);
    assert.deepEqual((await ready(app, bearer(await mintToken()))).body.checks[0]?.data, {});
    await app.close();
  });

  describe('who sees the data', () => {
    let app: FastifyInstance;
    const a = new FakeTarget('a');
    const b = new FakeTarget('b');
    before(async () => {
      b.setConnectionState('Disconnected');
      app = await buildTestApp({ targets: [a, b] });
    });
    after(async () => {
      await app.close();
    });
    const dataFor = async (claims: Record<string, unknown>) =>
      (await ready(app, bearer(await mintToken(claims)))).body.checks[0];

    test('an admin whose plc_access reaches every PLC: everything', async () => {
      const check = await dataFor({ role: 'admin', plc_access: ['*'] });
      assert.equal(check?.description, '1 of 2 PLC targets connected.');
      assert.deepEqual(check?.data, { a: 'Connected', b: 'Disconnected' });
    });

    test('an admin or viewer limited to PLC a: a fixed description and the data of a only', async () => {
      for (const claims of [
        { role: 'admin', plc_access: ['a'] },
        { role: 'viewer', scope: 'ads:read', plc_access: ['A'] },
      ]) {
        const check = await dataFor(claims);
        assert.deepEqual(
          check,
          {
            name: 'plc-connectivity',
            status: 'Degraded',
            description: 'Some PLC targets are not connected.',
            data: { a: 'Connected' },
          },
          JSON.stringify(claims),
        );
      }
    });

    test('a viewer of every PLC sees every PLC’s state, still with the fixed description', async () => {
      const check = await dataFor({ role: 'viewer', scope: 'ads:read', plc_access: ['*'] });
      assert.deepEqual(check?.data, { a: 'Connected', b: 'Disconnected' });
      assert.equal(check?.description, 'Some PLC targets are not connected.');
    });

    test('a token without ReadAccess, a bad token or a malformed header: the anonymous answer, not 401', async () => {
      const forged = await mintToken({}, { key: 'another-key-that-the-gateway-does-not-know-0123' });
      const expired = await mintToken({}, { expiresIn: -3600 });
      for (const headers of [
        bearer(await mintToken({ role: 'viewer', scope: 'ads:write', plc_access: ['*'] })),
        bearer(forged),
        bearer(expired),
        bearer('not-a-token'),
        { authorization: 'Basic YWxpY2U6c2VjcmV0' },
      ]) {
        const r = await ready(app, headers);
        assert.equal(r.status, 200, JSON.stringify(headers));
        assert.equal(r.body.checks[0]?.data, undefined, JSON.stringify(headers));
        assert.equal(r.body.checks[0]?.description, 'Some PLC targets are not connected.');
      }
    });

    test('Health.Detailed on: anonymous callers get everything', async () => {
      const detailed = await buildTestApp({ targets: [a, b], settings: { Health: { Detailed: true } } });
      try {
        const check = (await ready(detailed)).body.checks[0];
        assert.equal(check?.description, '1 of 2 PLC targets connected.');
        assert.deepEqual(check?.data, { a: 'Connected', b: 'Disconnected' });
      } finally {
        await detailed.close();
      }
    });

    test('Health.Detailed: false by default, set by Health__Detailed, a boolean or start-up fails', () => {
      assert.equal(loadConfig(writeSettings(minimalSettings)).settings.Health.Detailed, false);
      const env = loadConfig(writeSettings(minimalSettings), { Health__Detailed: 'true' });
      assert.equal(env.settings.Health.Detailed, true);
      assert.throws(
        () => loadConfig(writeSettings({ ...minimalSettings, Health: { Detailed: 'yes' } })),
        (err: unknown) =>
          err instanceof ConfigError && err.problems.some((p) => p.startsWith('Health.Detailed:')),
      );
    });
  });

  describe('cluster check', () => {
    let redis: RedisServer;
    let app: FastifyInstance;
    before(async () => {
      redis = await RedisServer.start();
      app = await buildTestApp({
        targets: [new FakeTarget('line1')],
        settings: { Cluster: { Redis: redis.url, ReplicaId: 'replica-secret-7' } },
      });
    });
    after(async () => {
      await app.close();
      await redis.kill();
    });

    test('anonymous: no replica ids, leases or counts; an admin of every PLC: all of them', async () => {
      const anonymous = await ready(app);
      assert.doesNotMatch(JSON.stringify(anonymous.body), /replica-secret|replica\(s\)/);
      assert.deepEqual(
        anonymous.body.checks.find((c) => c.name === 'cluster'),
        { name: 'cluster', status: 'Healthy', description: 'Redis is reachable.' },
      );
      // A viewer of every PLC sees PLC states, never the replicas.
      const viewer = await ready(app, bearer(await mintToken({ role: 'viewer', scope: 'ads:read' })));
      assert.equal(viewer.body.checks.find((c) => c.name === 'cluster')?.data, undefined);
      const admin = await ready(app, bearer(await mintToken()));
      const cluster = admin.body.checks.find((c) => c.name === 'cluster');
      assert.equal(cluster?.data?.replica, 'replica-secret-7');
      assert.deepEqual(cluster?.data?.replicas, ['replica-secret-7']);
      assert.deepEqual(cluster?.data?.leases, {});
    });
  });
});
