// GET /api/plcs/{plcId}/types/{typeName}/enum-members through HTTP: declaration order with gaps and negative
// values, caching for the life of the connection, 404/400 answers, the flag and PLC-side errors.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { buildTestApp } from '../../helpers/app.ts';
import { AdsTarget } from '../../../src/targets/ads/index.ts';
import { derivedTypeLimit } from '../../../src/targets/ads/type-catalog.ts';
import {
  caller,
  modeMembers,
  richProgram,
  type Call,
  type TestPlc,
  testDrivers,
  startFeatureApp,
  type FeatureApp,
} from '../variables/fixture.ts';

for (const driver of testDrivers) {
  describe(`enum member route (${driver})`, () => {
    let sim: TestPlc;
    let app: FastifyInstance;
    let call: Call;

    let feature: FeatureApp;
    before(async () => {
      feature = await startFeatureApp(driver, {
        settings: {
          Features: { TypeMetadata: true },
          RateLimiting: { SymbolBrowsing: 100_000, GlobalPerUser: 100_000 },
        },
      });
      ({ sim, app, call } = feature);
    });
    after(() => feature.close());

    const url = (typeName: string, plcId = 'sim1') => `/api/plcs/${plcId}/types/${typeName}/enum-members`;

    describe('enum members', () => {
      test('many distinct derived names, refused: the type caches stay bounded', async () => {
        const remembered = (): number =>
          sim.target instanceof AdsTarget
            ? sim.target.diagnostics.derivedTypes
            : sim.plc.program.types.derivedCount;
        const before = remembered();
        const names = 3 * derivedTypeLimit;
        for (let n = 1; n <= names; n++) {
          const name = n % 2 === 0 ? `STRING(${n})` : `ARRAY[1..${n}] OF INT`;
          const res = await call('GET', url(encodeURIComponent(name)));
          assert.equal(res.statusCode, 400, name);
          assert.equal(res.json().error.code, 'VALIDATION_ERROR');
        }
        for (let n = 1; n <= 100; n++) {
          assert.equal((await call('GET', url(`E_Nope${n}`))).statusCode, 404);
        }
        const after = remembered();
        assert.ok(
          after <= before + derivedTypeLimit,
          `${after} derived types remembered after ${names} names`,
        );
        assert.equal((await call('GET', url('E_Mode'))).statusCode, 200);
      });

      test('declaration order, gaps, non-zero start and negative values kept', async () => {
        const res = await call('GET', url('E_Mode'));
        assert.equal(res.statusCode, 200);
        assert.deepEqual(res.json(), { data: { typeName: 'E_Mode', members: modeMembers }, error: null });
      });

      test('not sorted by value; another base type', async () => {
        const res = await call('GET', url('E_Small'));
        assert.deepEqual(res.json().data, {
          typeName: 'E_Small',
          members: [
            { name: 'A', value: 3 },
            { name: 'B', value: 1 },
          ],
        });
      });

      test('type names are case-insensitive; the answer carries the declared spelling', async () => {
        assert.equal((await call('GET', url('e_mode'))).json().data.typeName, 'E_Mode');
      });

      test('unknown type: 404 TYPE_NOT_FOUND; a type that is not an enum: 400 VALIDATION_ERROR', async () => {
        const missing = await call('GET', url('E_Nope'));
        assert.equal(missing.statusCode, 404);
        assert.equal(missing.json().error.code, 'TYPE_NOT_FOUND');
        for (const name of ['ST_Axis', 'INT', 'FB_Counter', encodeURIComponent('STRING(10)')]) {
          const res = await call('GET', url(name));
          assert.equal(res.statusCode, 400, name);
          assert.equal(res.json().error.code, 'VALIDATION_ERROR');
        }
      });

      test('cached for the life of the connection: a changed enum shows only after reconnecting', async () => {
        const changed = [
          { name: 'eStop', value: 100 },
          { name: 'eGo', value: -100 },
        ];
        await call('GET', url('E_Mode'));
        sim.plc.load(richProgram(changed));
        // Let the target look at the PLC's program again: the download is known to it, yet the answer stays.
        await sim.target.symbols();
        assert.deepEqual((await call('GET', url('E_Mode'))).json().data.members, modeMembers);
        await sim.reconnect();
        assert.deepEqual((await call('GET', url('E_Mode'))).json().data.members, changed);
        sim.plc.load(richProgram());
        await sim.reconnect();
      });

      test('PLC not connected 503; ADS error 502; ADS timeout 504', async () => {
        await sim.disconnect();
        try {
          assert.equal((await call('GET', url('E_Mode'))).json().error.code, 'PLC_UNAVAILABLE');
        } finally {
          await sim.reconnect();
        }
        const err = await call('GET', url('E_Mode', 'ads-err'));
        assert.equal(err.statusCode, 502);
        assert.equal(err.json().error.code, 'ADS_ERROR');
        assert.equal((await call('GET', url('E_Mode', 'ads-slow'))).statusCode, 504);
      });

      test('guards: ReadAccess, plc_access, unknown PLC', async () => {
        const viewer = await caller(app, { role: 'viewer', scope: 'ads:read' });
        assert.equal((await viewer('GET', url('E_Mode'))).statusCode, 200);
        const noRead = await caller(app, { role: 'operator', scope: 'ads:write' });
        assert.equal((await noRead('GET', url('E_Mode'))).statusCode, 403);
        const other = await caller(app, { plc_access: ['ads-err'] });
        assert.equal((await other('GET', url('E_Mode'))).json().error.code, 'PLC_ACCESS_DENIED');
        assert.equal((await call('GET', url('E_Mode', 'nope'))).json().error.code, 'PLC_NOT_FOUND');
      });

      test('flag TypeMetadata is off by default: 501 FEATURE_DISABLED', async () => {
        const off = await buildTestApp({ targets: [sim.target] });
        try {
          const res = await (await caller(off))('GET', url('E_Mode'));
          assert.equal(res.statusCode, 501);
          assert.equal(res.json().error.code, 'FEATURE_DISABLED');
        } finally {
          await off.close();
        }
      });
    });
  });
}
