// The guard order of the design: 401 -> 429 global -> 501 flag -> 403 policy -> 404 plc -> 403 plc_access
// -> 429 route limit -> 400 validation -> handler, shown by requests that fail two checks at once.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { buildTestApp, manualClock } from '../helpers/app.ts';
import type { SettingsOverrides } from '../helpers/config.ts';
import { FakeTarget } from '../helpers/fake-target.ts';
import { bearer, mintToken } from '../helpers/tokens.ts';

const Query = Type.Object({ n: Type.Integer() });

async function app(settings: SettingsOverrides = {}): Promise<FastifyInstance> {
  return buildTestApp({
    targets: [new FakeTarget('line1'), new FakeTarget('line2')],
    settings: { Features: { Alarms: false, Rpc: true }, ...settings },
    now: manualClock().now,
    extend: (a) => {
      const handler = () => ({ data: 'handled', error: null });
      a.get(
        '/api/test/:plcId/alarms',
        {
          schema: { querystring: Query },
          config: { feature: 'Alarms', policy: 'ReadAccess', plcScoped: true, limit: 'AlarmReads' },
        },
        handler,
      );
      a.get(
        '/api/test/:plcId/call',
        {
          schema: { querystring: Query },
          config: { feature: 'Rpc', policy: 'WriteAccess', plcScoped: true, limit: 'RpcInvocations' },
        },
        handler,
      );
    },
  });
}

async function code(a: FastifyInstance, url: string, token?: string): Promise<[number, string]> {
  const res = await a.inject({ url, headers: token ? bearer(token) : {} });
  const body = res.json();
  return [res.statusCode, body.error?.code ?? body.data];
}

describe('check order', () => {
  test('disabled flag without a token: 401 first', async () => {
    const a = await app();
    assert.deepEqual(await code(a, '/api/test/line1/alarms?n=1'), [401, 'UNAUTHORIZED']);
    await a.close();
  });

  test('disabled flag with a valid token: 501 naming the flag, even for a token lacking the policy or an unknown plcId', async () => {
    const a = await app();
    const viewerNoScope = await mintToken({ role: 'viewer', scope: '', plc_access: [] });
    assert.deepEqual(await code(a, '/api/test/nope/alarms?n=x', viewerNoScope), [501, 'FEATURE_DISABLED']);
    const res = await a.inject({ url: '/api/test/line1/alarms', headers: bearer(await mintToken()) });
    assert.match(res.json<{ error: { message: string } }>().error.message, /Alarms/);
    await a.close();
  });

  test('global limit before the flag: the request over the limit is 429, not 501', async () => {
    const a = await app({ RateLimiting: { GlobalPerUser: 1 } });
    const token = await mintToken();
    assert.deepEqual(await code(a, '/api/test/line1/alarms', token), [501, 'FEATURE_DISABLED']);
    assert.deepEqual(await code(a, '/api/test/line1/alarms', token), [429, 'RATE_LIMITED']);
    await a.close();
  });

  test('policy before plc lookup: missing scope on an unknown plcId is 403 FORBIDDEN', async () => {
    const a = await app();
    const reader = await mintToken({ role: 'operator', scope: 'ads:read' });
    assert.deepEqual(await code(a, '/api/test/nope/call?n=1', reader), [403, 'FORBIDDEN']);
    await a.close();
  });

  test('unknown plcId outside the claim: 404 PLC_NOT_FOUND (not 403)', async () => {
    const a = await app();
    const token = await mintToken({ plc_access: ['line1'] });
    assert.deepEqual(await code(a, '/api/test/nope/call?n=1', token), [404, 'PLC_NOT_FOUND']);
    assert.deepEqual(await code(a, '/api/test/line2/call?n=1', token), [403, 'PLC_ACCESS_DENIED']);
    assert.deepEqual(await code(a, '/api/test/line1/call?n=1', token), [200, 'handled']);
    await a.close();
  });

  test('route limit before validation; refused requests do not spend it', async () => {
    const a = await app({ RateLimiting: { RpcInvocations: 2 } });
    const token = await mintToken({ plc_access: ['line1'] });
    // Refused by the PLC checks before the route limit, more often than the limit allows: nothing is spent.
    for (let i = 0; i < 3; i++) {
      assert.deepEqual(await code(a, '/api/test/line2/call?n=1', token), [403, 'PLC_ACCESS_DENIED']);
      assert.deepEqual(await code(a, '/api/test/nope/call?n=1', token), [404, 'PLC_NOT_FOUND']);
    }
    // The whole limit is left: two requests pass it (the first then fails validation), the third does not.
    assert.deepEqual(await code(a, '/api/test/line1/call?n=x', token), [400, 'VALIDATION_ERROR']);
    assert.deepEqual(await code(a, '/api/test/line1/call?n=1', token), [200, 'handled']);
    assert.deepEqual(await code(a, '/api/test/line1/call?n=x', token), [429, 'RATE_LIMITED']);
    await a.close();
  });

  test('a per-PLC limit is one budget however the path spells the plcId', async () => {
    const a = await app({ RateLimiting: { RpcInvocations: 2 } });
    const token = await mintToken({ plc_access: ['LINE1'] });
    assert.deepEqual(await code(a, '/api/test/line1/call?n=1', token), [200, 'handled']);
    assert.deepEqual(await code(a, '/api/test/Line1/call?n=1', token), [200, 'handled']);
    assert.deepEqual(await code(a, '/api/test/LINE1/call?n=1', token), [429, 'RATE_LIMITED']);
    assert.deepEqual(await code(a, '/api/test/line2/call?n=1', token), [403, 'PLC_ACCESS_DENIED']);
    await a.close();
  });
});
