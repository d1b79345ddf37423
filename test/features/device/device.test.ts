// Device info and device state through HTTP: fields, ISO 8601 timestamps, state changes, errors and guards.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { buildTestApp } from '../../helpers/app.ts';
import {
  caller,
  testDrivers,
  type Call,
  type TestPlc,
  startFeatureApp,
  type FeatureApp,
} from '../variables/fixture.ts';

for (const driver of testDrivers) {
  describe(`device routes (${driver})`, () => {
    let sim: TestPlc;
    let app: FastifyInstance;
    let call: Call;

    let feature: FeatureApp;
    before(async () => {
      feature = await startFeatureApp(driver);
      ({ sim, app, call } = feature);
    });
    after(() => feature.close());

    describe('device routes', () => {
      test('info: device name, version and ADS state', async () => {
        const res = await call('GET', '/api/plcs/sim1/device/info');
        assert.equal(res.statusCode, 200);
        assert.deepEqual(res.json(), {
          data: { deviceName: 'Plc30 App', version: '3.1.4024', adsState: 'Run' },
          error: null,
        });
      });

      test('state: ADS state and an ISO 8601 UTC timestamp; follows the PLC', async () => {
        const res = await call('GET', '/api/plcs/sim1/device/state');
        assert.deepEqual(res.json(), {
          data: { state: 'Run', timestamp: '2024-05-17T08:30:00.250Z' },
          error: null,
        });
        assert.match(
          res.json<{ data: { timestamp: string } }>().data.timestamp,
          /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/,
        );
        sim.plc.setState('Stop');
        try {
          assert.equal((await call('GET', '/api/plcs/sim1/device/state')).json().data.state, 'Stop');
          assert.equal((await call('GET', '/api/plcs/sim1/device/info')).json().data.adsState, 'Stop');
        } finally {
          sim.plc.setState('Run');
        }
      });

      test('PLC not connected 503; ADS error 502; ADS timeout 504', async () => {
        await sim.disconnect();
        try {
          for (const path of ['info', 'state']) {
            const res = await call('GET', `/api/plcs/sim1/device/${path}`);
            assert.equal(res.statusCode, 503);
            assert.equal(res.json().error.code, 'PLC_UNAVAILABLE');
          }
        } finally {
          await sim.reconnect();
        }
        const err = await call('GET', '/api/plcs/ads-err/device/info');
        assert.equal(err.statusCode, 502);
        assert.equal(err.json().error.code, 'ADS_ERROR');
        const slow = await call('GET', '/api/plcs/ads-slow/device/state');
        assert.equal(slow.statusCode, 504);
        assert.equal(slow.json().error.code, 'ADS_TIMEOUT');
      });

      test('guards: viewer reads; no ads:read 403; plc_access; unknown PLC', async () => {
        const viewer = await caller(app, { role: 'viewer', scope: 'ads:read' });
        assert.equal((await viewer('GET', '/api/plcs/sim1/device/info')).statusCode, 200);
        const noRead = await caller(app, { role: 'viewer', scope: '' });
        assert.equal((await noRead('GET', '/api/plcs/sim1/device/info')).json().error.code, 'FORBIDDEN');
        const other = await caller(app, { plc_access: ['ads-err'] });
        assert.equal(
          (await other('GET', '/api/plcs/sim1/device/state')).json().error.code,
          'PLC_ACCESS_DENIED',
        );
        assert.equal((await call('GET', '/api/plcs/nope/device/info')).statusCode, 404);
      });

      test('flag DeviceInfo off: 501', async () => {
        const off = await buildTestApp({
          targets: [sim.target],
          settings: { Features: { DeviceInfo: false } },
        });
        try {
          const c = await caller(off);
          assert.equal((await c('GET', '/api/plcs/sim1/device/info')).statusCode, 501);
          assert.equal((await c('GET', '/api/plcs/sim1/device/state')).json().error.code, 'FEATURE_DISABLED');
        } finally {
          await off.close();
        }
      });
    });
  });
}
