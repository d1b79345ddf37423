// Symbol routes through HTTP: the tree, search and flat listings, one symbol by encoded or literal path, the
// index following downloads and reconnects, the SymbolBrowsing limit, flags, policies and PLC-side errors.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { buildTestApp, manualClock } from '../../helpers/app.ts';
import {
  caller,
  richBuilder,
  type Call,
  type TestPlc,
  testDrivers,
  startFeatureApp,
  type FeatureApp,
} from '../variables/fixture.ts';

for (const driver of testDrivers) {
  describe(`symbol routes (${driver})`, () => {
    interface Sym {
      instancePath: string;
      typeName: string;
      size: number;
      comment: string;
      children?: Sym[] | null;
    }

    const paths = (list: Sym[]) => list.map((s) => s.instancePath);

    let sim: TestPlc;
    let app: FastifyInstance;
    let call: Call;
    const clock = manualClock();

    let feature: FeatureApp;
    before(async () => {
      feature = await startFeatureApp(driver, {
        settings: { RateLimiting: { SymbolBrowsing: 1000 } },
        now: clock.now,
      });
      ({ sim, app, call } = feature);
    });
    after(() => feature.close());

    async function list(query = ''): Promise<Sym[]> {
      const res = await call('GET', `/api/plcs/sim1/symbols${query}`);
      assert.equal(res.statusCode, 200, res.body);
      return res.json<{ data: Sym[] }>().data;
    }

    describe('GET /api/plcs/{plcId}/symbols', () => {
      test('top-level symbols with recursive children; leaves have children null', async () => {
        const tree = await list();
        assert.deepEqual(paths(tree).slice(0, 3), ['GVL_Test.bFlag', 'GVL_Test.vSINT', 'GVL_Test.vUSINT']);
        assert.ok(paths(tree).includes('GVL_HMI.aAxes'));
        const flag = tree[0]!;
        assert.deepEqual(flag, {
          instancePath: 'GVL_Test.bFlag',
          typeName: 'BOOL',
          size: 1,
          comment: 'A flag',
          children: null,
        });
        const axes = tree.find((s) => s.instancePath === 'GVL_HMI.aAxes')!;
        assert.equal(axes.typeName, 'ARRAY [1..4] OF ST_Axis');
        assert.equal(axes.comment, 'The axes');
        assert.deepEqual(paths(axes.children!), [
          'GVL_HMI.aAxes[1]',
          'GVL_HMI.aAxes[2]',
          'GVL_HMI.aAxes[3]',
          'GVL_HMI.aAxes[4]',
        ]);
        const third = axes.children![2]!;
        assert.deepEqual(paths(third.children!), [
          'GVL_HMI.aAxes[3].sId',
          'GVL_HMI.aAxes[3].rPosition',
          'GVL_HMI.aAxes[3].bEnabled',
          'GVL_HMI.aAxes[3].eMode',
        ]);
        assert.deepEqual(third.children![1], {
          instancePath: 'GVL_HMI.aAxes[3].rPosition',
          typeName: 'LREAL',
          size: 8,
          comment: 'Actual position',
          children: null,
        });
        // Three levels down: nested structs keep their children too.
        const nested = tree.find((s) => s.instancePath === 'GVL_Test.stNested')!;
        const grid = nested.children!.find((c) => c.instancePath.endsWith('aGrid'))!;
        assert.deepEqual(paths(grid.children!), [
          'GVL_Test.stNested.aGrid[0,0]',
          'GVL_Test.stNested.aGrid[0,1]',
          'GVL_Test.stNested.aGrid[1,0]',
          'GVL_Test.stNested.aGrid[1,1]',
        ]);
      });

      test('search as a tree: the outermost matches, each with its children; case-insensitive', async () => {
        const found = await list('?search=AAXES%5B2');
        assert.deepEqual(paths(found), ['GVL_HMI.aAxes[2]']);
        assert.equal(found[0]!.children!.length, 4);
        assert.deepEqual(paths(await list('?search=rposition&flat=false')), [
          'GVL_Test.stAxis.rPosition',
          'GVL_Test.stNested.stAxis.rPosition',
          'GVL_HMI.aAxes[1].rPosition',
          'GVL_HMI.aAxes[2].rPosition',
          'GVL_HMI.aAxes[3].rPosition',
          'GVL_HMI.aAxes[4].rPosition',
        ]);
        assert.deepEqual(await list('?search=no-such-text'), []);
      });

      test('search flat: every matching node, without children', async () => {
        const found = await list('?search=gvl_hmi.aaxes%5B4%5D&flat=true');
        assert.deepEqual(paths(found), [
          'GVL_HMI.aAxes[4]',
          'GVL_HMI.aAxes[4].sId',
          'GVL_HMI.aAxes[4].rPosition',
          'GVL_HMI.aAxes[4].bEnabled',
          'GVL_HMI.aAxes[4].eMode',
        ]);
        for (const s of found) assert.equal('children' in s, false);
        assert.deepEqual(found[0], {
          instancePath: 'GVL_HMI.aAxes[4]',
          typeName: 'ST_Axis',
          size: 32,
          comment: '',
        });
      });

      test('flat without search lists every node of the tree, twice the same', async () => {
        const all = await list('?flat=true');
        assert.ok(all.length > 60);
        assert.ok(paths(all).includes('GVL_Test.stNested.stAxis.eMode'));
        assert.ok(paths(all).includes('GVL_HMI.aCounters[2].nCount'));
        assert.deepEqual(await list('?flat=true'), all);
        assert.deepEqual(await list('?search=&flat=true'), all);
      });

      test('flat other than true or false: 400 VALIDATION_ERROR', async () => {
        for (const bad of ['1', 'yes', 'TRUE', '']) {
          const res = await call('GET', `/api/plcs/sim1/symbols?flat=${bad}`);
          assert.equal(res.statusCode, 400, bad);
          assert.equal(res.json().error.code, 'VALIDATION_ERROR');
        }
      });
    });

    describe('GET /api/plcs/{plcId}/symbols/{symbolPath}', () => {
      test('one symbol with its children; dotted, encoded and literal brackets, any case', async () => {
        for (const path of [
          'GVL_HMI.aAxes%5B3%5D',
          'GVL_HMI.aAxes[3]',
          'gvl_hmi.AAXES%5b3%5d',
          encodeURIComponent('GVL_HMI.aAxes[3]'),
        ]) {
          const res = await call('GET', `/api/plcs/sim1/symbols/${path}`);
          assert.equal(res.statusCode, 200, path);
          const data = res.json<{ data: Sym }>().data;
          assert.equal(data.instancePath, 'GVL_HMI.aAxes[3]');
          assert.equal(data.children!.length, 4);
        }
        const leaf = await call('GET', '/api/plcs/sim1/symbols/GVL_HMI.aAxes%5B3%5D.rPosition');
        assert.deepEqual(leaf.json(), {
          data: {
            instancePath: 'GVL_HMI.aAxes[3].rPosition',
            typeName: 'LREAL',
            size: 8,
            comment: 'Actual position',
            children: null,
          },
          error: null,
        });
        const grid = await call('GET', '/api/plcs/sim1/symbols/GVL_Test.stNested.aGrid%5B1,0%5D');
        assert.equal(grid.json().data.instancePath, 'GVL_Test.stNested.aGrid[1,0]');
      });

      test('unknown symbol, member or index: 404 SYMBOL_NOT_FOUND', async () => {
        for (const path of [
          'GVL_HMI.nope',
          'GVL_HMI.aAxes%5B5%5D',
          'GVL_HMI.aAxes%5B3%5D.rSpeed',
          'GVL_HMI',
        ]) {
          const res = await call('GET', `/api/plcs/sim1/symbols/${path}`);
          assert.equal(res.statusCode, 404, path);
          assert.equal(res.json().error.code, 'SYMBOL_NOT_FOUND');
        }
      });
    });

    describe('the symbol index follows the PLC', () => {
      test('a download is seen after a reconnect at once, or after the index ages', async () => {
        const extended = richBuilder();
        extended.symbol('GVL_New.nAdded', 'INT');
        sim.plc.load(extended.build());
        // Cached: the same index until the connection changes or a minute passes.
        assert.equal((await call('GET', '/api/plcs/sim1/symbols/GVL_New.nAdded')).statusCode, 404);
        await sim.reconnect();
        assert.equal((await call('GET', '/api/plcs/sim1/symbols/GVL_New.nAdded')).statusCode, 200);

        sim.plc.load(richBuilder().build());
        clock.advance(60_000);
        // The first request after the index aged is answered from it and starts the refresh in the background;
        // once the refresh's symbol upload has come back, requests see the new program.
        const symbols = sim.target.symbols.bind(sim.target);
        let refresh: Promise<unknown> | undefined;
        sim.target.symbols = () => {
          const fetched = symbols();
          refresh = fetched;
          return fetched;
        };
        try {
          assert.equal((await call('GET', '/api/plcs/sim1/symbols/GVL_New.nAdded')).statusCode, 200);
          assert.ok(refresh, 'the aged index started a refresh');
          await refresh;
        } finally {
          sim.target.symbols = symbols;
        }
        assert.equal((await call('GET', '/api/plcs/sim1/symbols/GVL_New.nAdded')).statusCode, 404);
      });

      test('PLC not connected: 503 PLC_UNAVAILABLE, then answers again after reconnect', async () => {
        await sim.disconnect();
        try {
          for (const url of ['/api/plcs/sim1/symbols', '/api/plcs/sim1/symbols/GVL_Test.bFlag']) {
            const res = await call('GET', url);
            assert.equal(res.statusCode, 503, url);
            assert.equal(res.json().error.code, 'PLC_UNAVAILABLE');
          }
        } finally {
          await sim.reconnect();
        }
        assert.equal((await call('GET', '/api/plcs/sim1/symbols/GVL_Test.bFlag')).statusCode, 200);
      });

      test('ADS errors and timeouts surface unchanged: 502 ADS_ERROR, 504 ADS_TIMEOUT', async () => {
        const err = await call('GET', '/api/plcs/ads-err/symbols');
        assert.equal(err.statusCode, 502);
        assert.deepEqual(err.json(), {
          data: null,
          error: { code: 'ADS_ERROR', message: 'ADS_ERROR from the driver' },
        });
        const slow = await call('GET', '/api/plcs/ads-slow/symbols/GVL.x');
        assert.equal(slow.statusCode, 504);
        assert.equal(slow.json().error.code, 'ADS_TIMEOUT');
      });
    });

    describe('symbol routes: guards', () => {
      test('viewer with ads:read may browse; without it 403; plc_access and unknown PLC', async () => {
        const viewer = await caller(app, { role: 'viewer', scope: 'ads:read' });
        assert.equal((await viewer('GET', '/api/plcs/sim1/symbols?search=bFlag')).statusCode, 200);
        const noScope = await caller(app, { role: 'viewer', scope: 'ads:write' });
        assert.equal((await noScope('GET', '/api/plcs/sim1/symbols')).json().error.code, 'FORBIDDEN');
        const other = await caller(app, { plc_access: ['ads-err'] });
        const denied = await other('GET', '/api/plcs/sim1/symbols/GVL_Test.bFlag');
        assert.equal(denied.statusCode, 403);
        assert.equal(denied.json().error.code, 'PLC_ACCESS_DENIED');
        const unknown = await call('GET', '/api/plcs/nope/symbols');
        assert.equal(unknown.statusCode, 404);
        assert.equal(unknown.json().error.code, 'PLC_NOT_FOUND');
      });

      test('flag Symbols off: 501 FEATURE_DISABLED on both routes', async () => {
        const off = await buildTestApp({ targets: [sim.target], settings: { Features: { Symbols: false } } });
        try {
          const c = await caller(off);
          for (const url of ['/api/plcs/sim1/symbols', '/api/plcs/sim1/symbols/GVL_Test.bFlag']) {
            const res = await c('GET', url);
            assert.equal(res.statusCode, 501);
            assert.equal(res.json().error.code, 'FEATURE_DISABLED');
          }
        } finally {
          await off.close();
        }
      });

      test('SymbolBrowsing: 10 per second per user, shared with enum members; the 11th is 429 with Retry-After', async () => {
        const limited = manualClock();
        const small = await buildTestApp({
          targets: [sim.target],
          settings: { Features: { TypeMetadata: true } },
          now: limited.now,
        });
        try {
          const alice = await caller(small, { sub: 'alice' });
          const bob = await caller(small, { sub: 'bob' });
          const urls = [
            '/api/plcs/sim1/symbols',
            '/api/plcs/sim1/symbols/GVL_Test.bFlag',
            '/api/plcs/sim1/types/E_Mode/enum-members',
          ];
          for (let i = 0; i < 10; i++) {
            const res = await alice('GET', urls[i % urls.length]!);
            assert.equal(res.statusCode, 200, `request ${i + 1}`);
          }
          const refused = await alice('GET', '/api/plcs/sim1/types/E_Mode/enum-members');
          assert.equal(refused.statusCode, 429);
          assert.equal(refused.json().error.code, 'RATE_LIMITED');
          assert.equal(refused.headers['retry-after'], '1');
          assert.equal((await alice('GET', '/api/plcs/sim1/symbols')).statusCode, 429);
          assert.equal((await bob('GET', '/api/plcs/sim1/symbols')).statusCode, 200);
          limited.advance(1000);
          assert.equal((await alice('GET', '/api/plcs/sim1/symbols')).statusCode, 200);
        } finally {
          await small.close();
        }
      });
    });
  });
}
