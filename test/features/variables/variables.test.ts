// Variable routes beyond value conversion: batch reads and writes with per-path errors, the 100-path batch
// limit at its edge, body validation, PLC-side errors, policies, plc_access and the feature flag.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { buildTestApp } from '../../helpers/app.ts';
import { caller, testDrivers, type Call, type TestPlc, startFeatureApp, type FeatureApp } from './fixture.ts';

for (const driver of testDrivers) {
  describe(`variable routes (${driver})`, () => {
    let sim: TestPlc;
    let app: FastifyInstance;
    let call: Call;

    let feature: FeatureApp;
    before(async () => {
      feature = await startFeatureApp(driver);
      ({ sim, app, call } = feature);
    });
    after(() => feature.close());

    const batchUrl = (paths: string[], plcId = 'sim1') =>
      `/api/plcs/${plcId}/variables?${paths.map((p) => `paths=${encodeURIComponent(p)}`).join('&')}`;
    const paths100 = (n: number) =>
      Array.from({ length: n }, (_, i) => `GVL_Test.aInts[${(i % 5) + 1}]${i >= 5 ? `x${i}` : ''}`);

    describe('GET /variables?paths=...', () => {
      test('values by path as requested; a bad path fails alone with value and typeName null', async () => {
        const res = await call(
          'GET',
          batchUrl(['GVL_Test.aInts', 'gvl_test.SText', 'GVL_Test.nope', 'GVL_HMI.aAxes[9]']),
        );
        assert.equal(res.statusCode, 200);
        assert.deepEqual(res.json(), {
          data: {
            values: {
              'GVL_Test.aInts': {
                symbol: 'GVL_Test.aInts',
                value: [1, 2, 3, 4, 5],
                typeName: 'ARRAY [1..5] OF INT',
              },
              'gvl_test.SText': { symbol: 'gvl_test.SText', value: 'hello', typeName: 'STRING(10)' },
              'GVL_Test.nope': {
                symbol: 'GVL_Test.nope',
                value: null,
                typeName: null,
                error: { code: 'SYMBOL_NOT_FOUND', message: "Symbol 'GVL_Test.nope' not found." },
              },
              'GVL_HMI.aAxes[9]': {
                symbol: 'GVL_HMI.aAxes[9]',
                value: null,
                typeName: null,
                error: {
                  code: 'SYMBOL_NOT_FOUND',
                  message: 'Index 9 is outside the bounds of GVL_HMI.aAxes (ARRAY [1..4] OF ST_Axis).',
                },
              },
            },
          },
          error: null,
        });
      });

      test('one path, and structs kept whole', async () => {
        const res = await call('GET', batchUrl(['GVL_Test.stAxis']));
        assert.deepEqual(res.json().data.values['GVL_Test.stAxis'].value, {
          sId: 'X',
          rPosition: 1.5,
          bEnabled: true,
          eMode: 10,
        });
      });

      test('all paths failing is still 200', async () => {
        const res = await call('GET', batchUrl(['a.b', 'c.d']));
        assert.equal(res.statusCode, 200);
        assert.equal(res.json().data.values['c.d'].error.code, 'SYMBOL_NOT_FOUND');
      });

      test('100 paths pass; 101 are 400 BATCH_LIMIT_EXCEEDED; none or an empty path 400 VALIDATION_ERROR', async () => {
        const ok = await call('GET', batchUrl(paths100(100)));
        assert.equal(ok.statusCode, 200);
        assert.equal(Object.keys(ok.json<{ data: { values: object } }>().data.values).length, 100);
        const over = await call('GET', batchUrl(paths100(101)));
        assert.equal(over.statusCode, 400);
        assert.equal(over.json().error.code, 'BATCH_LIMIT_EXCEEDED');
        for (const url of ['/api/plcs/sim1/variables', '/api/plcs/sim1/variables?paths=']) {
          const res = await call('GET', url);
          assert.equal(res.statusCode, 400, url);
          assert.equal(res.json().error.code, 'VALIDATION_ERROR');
        }
      });
    });

    describe('PUT /variables/{path}', () => {
      test('answers the value read back', async () => {
        const res = await call('PUT', '/api/plcs/sim1/variables/GVL_Test.vDINT', { value: -77 });
        assert.deepEqual(res.json(), {
          data: {
            symbol: 'GVL_Test.vDINT',
            value: -77,
            typeName: 'DINT',
            timestamp: '2024-05-17T08:30:00.250Z',
          },
          error: null,
        });
      });

      test('a body without value, or no body: 400 VALIDATION_ERROR; value null: 400 TYPE_MISMATCH', async () => {
        for (const body of [{}, { values: 1 }, undefined]) {
          const res = await call('PUT', '/api/plcs/sim1/variables/GVL_Test.vDINT', body);
          assert.equal(res.statusCode, 400, JSON.stringify(body));
          assert.equal(res.json().error.code, 'VALIDATION_ERROR');
        }
        const nul = await call('PUT', '/api/plcs/sim1/variables/GVL_Test.vDINT', { value: null });
        assert.equal(nul.json().error.code, 'TYPE_MISMATCH');
      });

      test('unknown symbol: 404 SYMBOL_NOT_FOUND', async () => {
        const res = await call('PUT', '/api/plcs/sim1/variables/GVL_Test.nope', { value: 1 });
        assert.equal(res.statusCode, 404);
        assert.equal(res.json().error.code, 'SYMBOL_NOT_FOUND');
      });
    });

    describe('PUT /variables (batch)', () => {
      test('per-path results: good paths are written, a bad one fails alone', async () => {
        const res = await call('PUT', '/api/plcs/sim1/variables', {
          values: {
            'GVL_Test.vINT': 11,
            'GVL_Test.vUINT': -1,
            'GVL_Test.sText': 'batch',
            'GVL_Test.nope': 1,
          },
        });
        assert.equal(res.statusCode, 200);
        const results = res.json().data.results;
        assert.deepEqual(results['GVL_Test.vINT'], { symbol: 'GVL_Test.vINT', written: true });
        assert.deepEqual(results['GVL_Test.sText'], { symbol: 'GVL_Test.sText', written: true });
        assert.equal(results['GVL_Test.vUINT'].written, false);
        assert.equal(results['GVL_Test.vUINT'].error.code, 'TYPE_MISMATCH');
        assert.equal(results['GVL_Test.nope'].error.code, 'SYMBOL_NOT_FOUND');
        const read = await call('GET', batchUrl(['GVL_Test.vINT', 'GVL_Test.sText', 'GVL_Test.vUINT']));
        const values = read.json().data.values;
        assert.equal(values['GVL_Test.vINT'].value, 11);
        assert.equal(values['GVL_Test.sText'].value, 'batch');
        assert.equal(values['GVL_Test.vUINT'].value, 0);
      });

      test('100 values pass; 101 are 400 BATCH_LIMIT_EXCEEDED; empty or missing values 400 VALIDATION_ERROR', async () => {
        const values = (n: number) => Object.fromEntries(paths100(n).map((p, i) => [p, i]));
        const ok = await call('PUT', '/api/plcs/sim1/variables', { values: values(100) });
        assert.equal(ok.statusCode, 200);
        assert.equal(Object.keys(ok.json<{ data: { results: object } }>().data.results).length, 100);
        const over = await call('PUT', '/api/plcs/sim1/variables', { values: values(101) });
        assert.equal(over.statusCode, 400);
        assert.equal(over.json().error.code, 'BATCH_LIMIT_EXCEEDED');
        for (const body of [{ values: {} }, {}, { values: [1] }, { values: 'x' }]) {
          const res = await call('PUT', '/api/plcs/sim1/variables', body);
          assert.equal(res.statusCode, 400, JSON.stringify(body));
          assert.equal(res.json().error.code, 'VALIDATION_ERROR', JSON.stringify(body));
        }
      });
    });

    describe('variables: PLC-side errors', () => {
      test('PLC not connected: 503 PLC_UNAVAILABLE on every route', async () => {
        await sim.disconnect();
        try {
          const answers = [
            await call('GET', '/api/plcs/sim1/variables/GVL_Test.vINT'),
            await call('GET', batchUrl(['GVL_Test.vINT'])),
            await call('PUT', '/api/plcs/sim1/variables/GVL_Test.vINT', { value: 1 }),
            await call('PUT', '/api/plcs/sim1/variables', { values: { 'GVL_Test.vINT': 1 } }),
          ];
          for (const res of answers) {
            assert.equal(res.statusCode, 503);
            assert.equal(res.json().error.code, 'PLC_UNAVAILABLE');
          }
        } finally {
          await sim.reconnect();
        }
      });

      test('ADS error 502 and ADS timeout 504 pass through unchanged', async () => {
        for (const [plcId, status, code] of [
          ['ads-err', 502, 'ADS_ERROR'],
          ['ads-slow', 504, 'ADS_TIMEOUT'],
        ] as const) {
          const answers = [
            await call('GET', `/api/plcs/${plcId}/variables/MAIN.x`),
            await call('GET', batchUrl(['MAIN.x'], plcId)),
            await call('PUT', `/api/plcs/${plcId}/variables/MAIN.x`, { value: 1 }),
            await call('PUT', `/api/plcs/${plcId}/variables`, { values: { 'MAIN.x': 1 } }),
          ];
          for (const res of answers) {
            assert.equal(res.statusCode, status);
            assert.deepEqual(res.json(), { data: null, error: { code, message: `${code} from the driver` } });
          }
        }
      });
    });

    describe('variables: guards', () => {
      test('a viewer reads but cannot write (403 FORBIDDEN); an operator with ads:write writes', async () => {
        const viewer = await caller(app, { role: 'viewer', scope: 'ads:read ads:write' });
        assert.equal((await viewer('GET', '/api/plcs/sim1/variables/GVL_Test.vINT')).statusCode, 200);
        assert.equal((await viewer('GET', batchUrl(['GVL_Test.vINT']))).statusCode, 200);
        for (const res of [
          await viewer('PUT', '/api/plcs/sim1/variables/GVL_Test.vINT', { value: 1 }),
          await viewer('PUT', '/api/plcs/sim1/variables', { values: { 'GVL_Test.vINT': 1 } }),
        ]) {
          assert.equal(res.statusCode, 403);
          assert.equal(res.json().error.code, 'FORBIDDEN');
        }
        const operator = await caller(app, { role: 'operator', scope: 'ads:read ads:write' });
        assert.equal(
          (await operator('PUT', '/api/plcs/sim1/variables/GVL_Test.vINT', { value: 2 })).statusCode,
          200,
        );
        const noWriteScope = await caller(app, { role: 'operator', scope: 'ads:read' });
        const res = await noWriteScope('PUT', '/api/plcs/sim1/variables/GVL_Test.vINT', { value: 3 });
        assert.equal(res.json().error.code, 'FORBIDDEN');
      });

      test('plc_access and unknown PLC', async () => {
        const other = await caller(app, { plc_access: ['ads-err'] });
        const denied = await other('PUT', '/api/plcs/sim1/variables/GVL_Test.vINT', { value: 1 });
        assert.equal(denied.statusCode, 403);
        assert.equal(denied.json().error.code, 'PLC_ACCESS_DENIED');
        assert.equal(
          (await other('GET', batchUrl(['GVL_Test.vINT']))).json().error.code,
          'PLC_ACCESS_DENIED',
        );
        const unknown = await call('GET', '/api/plcs/nope/variables/GVL_Test.vINT');
        assert.equal(unknown.statusCode, 404);
        assert.equal(unknown.json().error.code, 'PLC_NOT_FOUND');
      });

      test('no token: 401', async () => {
        const res = await app.inject({ url: '/api/plcs/sim1/variables/GVL_Test.vINT' });
        assert.equal(res.statusCode, 401);
      });

      test('flag Variables off: 501 FEATURE_DISABLED on all four routes', async () => {
        const off = await buildTestApp({
          targets: [sim.target],
          settings: { Features: { Variables: false } },
        });
        try {
          const c = await caller(off);
          const answers = [
            await c('GET', '/api/plcs/sim1/variables/GVL_Test.vINT'),
            await c('GET', batchUrl(['GVL_Test.vINT'])),
            await c('PUT', '/api/plcs/sim1/variables/GVL_Test.vINT', { value: 1 }),
            await c('PUT', '/api/plcs/sim1/variables', { values: { 'GVL_Test.vINT': 1 } }),
          ];
          for (const res of answers) {
            assert.equal(res.statusCode, 501);
            assert.equal(res.json().error.code, 'FEATURE_DISABLED');
          }
        } finally {
          await off.close();
        }
      });
    });
  });
}
