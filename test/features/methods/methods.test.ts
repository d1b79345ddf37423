// POST /api/plcs/{plcId}/methods/{instancePath}.{Method} through HTTP: positional and named parameters, the
// Rpc.Invokable allow-list checked before the PLC is called, the RpcInvocations limit, flag, policies, errors.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { buildTestApp, manualClock } from '../../helpers/app.ts';
import {
  caller,
  startTestPlc,
  testDrivers,
  type Call,
  type TestPlc,
  failingTargets,
} from '../variables/fixture.ts';

for (const driver of testDrivers) {
  describe(`method routes (${driver})`, () => {
    const simulated = { Mode: 'Simulated' } as const;
    const settings = {
      Features: { Rpc: true },
      RateLimiting: { RpcInvocations: 1000 },
      PlcTargets: {
        sim1: { ...simulated, Rpc: { Invokable: ['GVL_HMI.fbCounter.*', 'gvl_hmi.aCounters[*]#Add'] } },
        sim2: { ...simulated, Rpc: { Invokable: [] } },
        'ads-err': { ...simulated, Rpc: { Invokable: ['**'] } },
        'ads-slow': { ...simulated, Rpc: { Invokable: ['**'] } },
      },
    };

    let sim: TestPlc;
    let sim2: TestPlc;
    let app: FastifyInstance;
    let call: Call;
    const invoked: string[] = [];

    before(async () => {
      sim = await startTestPlc('sim1', driver);
      sim2 = await startTestPlc('sim2', driver);
      // Records what reaches the PLC, so a denied call can be shown never to get there.
      const invoke = sim.target.invoke.bind(sim.target);
      sim.target.invoke = (path, method, parameters) => {
        invoked.push(`${path}#${method}`);
        return invoke(path, method, parameters);
      };
      app = await buildTestApp({
        targets: [sim.target, sim2.target, ...failingTargets()],
        settings,
      });
      call = await caller(app);
    });
    after(async () => {
      await app.close();
      await sim.close();
      await sim2.close();
    });

    const url = (callPath: string, plcId = 'sim1') => `/api/plcs/${plcId}/methods/${callPath}`;

    describe('method calls', () => {
      test('positional parameters: return value and out parameters', async () => {
        await call('POST', url('GVL_HMI.fbCounter.Reset'));
        const res = await call('POST', url('GVL_HMI.fbCounter.Add'), { parameters: [5] });
        assert.equal(res.statusCode, 200);
        assert.deepEqual(res.json(), {
          data: { returnValue: 5, outParameters: { nBefore: 0 } },
          error: null,
        });
        const again = await call('POST', url('GVL_HMI.fbCounter.Add'), { parameters: [-2] });
        assert.deepEqual(again.json().data, { returnValue: 3, outParameters: { nBefore: 5 } });
      });

      test('named parameters, the # form, and values converted by the PLC types', async () => {
        const res = await call('POST', url('GVL_HMI.fbCounter%23Describe'), {
          parameters: { sPrefix: 'n', EMODE: 'erun' },
        });
        assert.equal(res.statusCode, 200, res.body);
        assert.deepEqual(res.json().data, { returnValue: 'n:eRun:3', outParameters: {} });
      });

      test('no body or no parameters: a call without inputs; returnValue null without a return type', async () => {
        for (const body of [undefined, {}]) {
          const res = await call('POST', url('GVL_HMI.fbCounter.Reset'), body);
          assert.equal(res.statusCode, 200, res.body);
          assert.deepEqual(res.json().data, { returnValue: null, outParameters: {} });
        }
      });

      test('an array element instance, URL-encoded or literal', async () => {
        const encoded = await call('POST', url('GVL_HMI.aCounters%5B2%5D.Add'), { parameters: [4] });
        assert.deepEqual(encoded.json().data, { returnValue: 4, outParameters: { nBefore: 0 } });
        const literal = await call('POST', url('GVL_HMI.aCounters[2]%23Add'), { parameters: { nBy: 1 } });
        assert.deepEqual(literal.json().data, { returnValue: 5, outParameters: { nBefore: 4 } });
        const read = await call('GET', '/api/plcs/sim1/variables/GVL_HMI.aCounters%5B2%5D.nCount');
        assert.equal(read.json().data.value, 5);
      });

      test('outside Rpc.Invokable: 403 RPC_INVOKE_DENIED and nothing reaches the PLC', async () => {
        invoked.length = 0;
        for (const [plcId, path] of [
          ['sim1', 'GVL_HMI.aCounters%5B1%5D.Reset'],
          ['sim1', 'GVL_HMI.fbCounterX.Add'],
          ['sim1', 'GVL_Test.stAxis.Add'],
          ['sim2', 'GVL_HMI.fbCounter.Reset'],
        ] as const) {
          const res = await call('POST', url(path, plcId), { parameters: [1] });
          assert.equal(res.statusCode, 403, `${plcId} ${path}`);
          assert.equal(res.json().error.code, 'RPC_INVOKE_DENIED');
        }
        assert.deepEqual(invoked, []);
      });

      test('the allow-list is checked before the PLC: denied even while disconnected', async () => {
        await sim.disconnect();
        try {
          const denied = await call('POST', url('GVL_HMI.aCounters%5B1%5D.Reset'));
          assert.equal(denied.json().error.code, 'RPC_INVOKE_DENIED');
          const allowed = await call('POST', url('GVL_HMI.fbCounter.Reset'));
          assert.equal(allowed.statusCode, 503);
          assert.equal(allowed.json().error.code, 'PLC_UNAVAILABLE');
        } finally {
          await sim.reconnect();
        }
      });

      test('bad calls: 400 VALIDATION_ERROR for the name or parameters, TYPE_MISMATCH for values, 404 for no method', async () => {
        for (const [path, body] of [
          ['GVL_HMI', {}],
          ['GVL_HMI.fbCounter.', {}],
          ['GVL_HMI.fbCounter.Add', { parameters: 5 }],
          ['GVL_HMI.fbCounter.Add', { parameters: 'x' }],
        ] as const) {
          const res = await call('POST', url(path), body);
          assert.equal(res.statusCode, 400, `${path} ${JSON.stringify(body)}`);
          assert.equal(res.json().error.code, 'VALIDATION_ERROR');
        }
        for (const parameters of [[], ['x'], [1, 2], { nope: 1 }, { nBy: 1.5 }]) {
          const res = await call('POST', url('GVL_HMI.fbCounter.Add'), { parameters });
          assert.equal(res.statusCode, 400, JSON.stringify(parameters));
          assert.equal(res.json().error.code, 'TYPE_MISMATCH');
        }
        const missing = await call('POST', url('GVL_HMI.fbCounter.Nope'));
        assert.equal(missing.statusCode, 404);
        assert.equal(missing.json().error.code, 'SYMBOL_NOT_FOUND');
      });

      test('ADS error 502 and ADS timeout 504 pass through', async () => {
        const err = await call('POST', url('MAIN.fb.Run', 'ads-err'));
        assert.equal(err.statusCode, 502);
        assert.equal(err.json().error.code, 'ADS_ERROR');
        const slow = await call('POST', url('MAIN.fb.Run', 'ads-slow'));
        assert.equal(slow.statusCode, 504);
        assert.equal(slow.json().error.code, 'ADS_TIMEOUT');
      });
    });

    describe('method calls: guards', () => {
      test('WriteAccess: a viewer gets 403 FORBIDDEN; plc_access; unknown PLC', async () => {
        const viewer = await caller(app, { role: 'viewer', scope: 'ads:read ads:write' });
        const res = await viewer('POST', url('GVL_HMI.fbCounter.Reset'));
        assert.equal(res.statusCode, 403);
        assert.equal(res.json().error.code, 'FORBIDDEN');
        const other = await caller(app, { plc_access: ['sim2'] });
        assert.equal(
          (await other('POST', url('GVL_HMI.fbCounter.Reset'))).json().error.code,
          'PLC_ACCESS_DENIED',
        );
        assert.equal(
          (await call('POST', url('GVL_HMI.fbCounter.Reset', 'nope'))).json().error.code,
          'PLC_NOT_FOUND',
        );
      });

      test('flag Rpc is off by default: 501 FEATURE_DISABLED', async () => {
        const off = await buildTestApp({
          targets: [sim.target],
          settings: { PlcTargets: settings.PlcTargets },
        });
        try {
          const res = await (await caller(off))('POST', url('GVL_HMI.fbCounter.Reset'));
          assert.equal(res.statusCode, 501);
          assert.equal(res.json().error.code, 'FEATURE_DISABLED');
        } finally {
          await off.close();
        }
      });

      test('RpcInvocations: 10 per second per user per PLC; the 11th is 429 with Retry-After', async () => {
        const clock = manualClock();
        const limited = await buildTestApp({
          targets: [sim.target, sim2.target],
          settings: { ...settings, RateLimiting: {} },
          now: clock.now,
        });
        try {
          const alice = await caller(limited, { sub: 'alice' });
          const bob = await caller(limited, { sub: 'bob' });
          for (let i = 0; i < 10; i++) {
            assert.equal(
              (await alice('POST', url('GVL_HMI.fbCounter.Reset'))).statusCode,
              200,
              `call ${i + 1}`,
            );
          }
          const refused = await alice('POST', url('GVL_HMI.fbCounter.Reset'));
          assert.equal(refused.statusCode, 429);
          assert.equal(refused.json().error.code, 'RATE_LIMITED');
          assert.equal(refused.headers['retry-after'], '1');
          // Another PLC and another user have budgets of their own.
          assert.equal(
            (await alice('POST', url('GVL_HMI.fbCounter.Reset', 'sim2'))).json().error.code,
            'RPC_INVOKE_DENIED',
          );
          assert.equal((await bob('POST', url('GVL_HMI.fbCounter.Reset'))).statusCode, 200);
          clock.advance(1000);
          assert.equal((await alice('POST', url('GVL_HMI.fbCounter.Reset'))).statusCode, 200);
        } finally {
          await limited.close();
        }
      });
    });
  });
}
