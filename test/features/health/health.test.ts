// /health/live and /health/ready: anonymous, the plc-connectivity check in each of its states.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp } from '../../helpers/app.ts';
import { FakeTarget } from '../../helpers/fake-target.ts';

describe('health', () => {
  test('/health/live: 200 Healthy without a token', async () => {
    const app = await buildTestApp();
    const res = await app.inject('/health/live');
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { status: 'Healthy' });
    await app.close();
  });

  test('/health/ready follows PLC connectivity: Healthy, Degraded, Unhealthy', async () => {
    const a = new FakeTarget('a');
    const b = new FakeTarget('b');
    const app = await buildTestApp({ targets: [b, a] });
    try {
      const ready = async () => {
        const res = await app.inject('/health/ready');
        return { status: res.statusCode, body: res.json() };
      };
      let r = await ready();
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
      r = await ready();
      assert.equal(r.status, 200);
      assert.equal(r.body.status, 'Degraded');
      assert.equal(r.body.checks[0].status, 'Degraded');
      assert.deepEqual(r.body.checks[0].data, { a: 'Connected', b: 'Connecting' });

      a.setConnectionState('Disconnected');
      r = await ready();
      assert.equal(r.status, 503);
      assert.equal(r.body.status, 'Unhealthy');
      assert.equal(r.body.checks[0].description, '0 of 2 PLC targets connected.');
    } finally {
      await app.close();
    }
  });

  test('/health/ready with no targets configured: Healthy', async () => {
    const app = await buildTestApp();
    const res = await app.inject('/health/ready');
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().status, 'Healthy');
    assert.deepEqual(res.json().checks[0].data, {});
    await app.close();
  });
});
