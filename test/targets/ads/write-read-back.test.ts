// A write that landed answers 200 even when reading the value back fails: the answer says so beside the
// written symbol, instead of a 5xx that would invite the caller to write again.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildTestApp } from '../../helpers/app.ts';
import { bearer, mintToken } from '../../helpers/tokens.ts';
import { AdsCommand, IndexGroup } from '../../../src/plc/ads/constants.ts';
import { FaultProxy, makeTarget, reach, startPlant } from './harness.ts';

const { Read, Write } = AdsCommand;
const Memory = IndexGroup.PlcMemory;

describe('ADS target: write read-back', () => {
  it('PUT answers 200 with value null and readBackError when only the read-back fails', async () => {
    const plant = await startPlant();
    const proxy = new FaultProxy(plant.port);
    const target = makeTarget(await proxy.listen(), { TimeoutMs: 3000 });
    const app = await buildTestApp({ targets: [target] });
    const headers = bearer(await mintToken());
    try {
      await target.start();
      await reach(target, 'Connected');
      await target.symbols();
      proxy.fault = (r) => (r.command === Read && r.indexGroup === Memory ? 1796 : undefined);
      const res = await app.inject({
        method: 'PUT',
        url: '/api/plcs/press/variables/MAIN.nA',
        headers,
        payload: { value: 77 },
      });
      assert.equal(res.statusCode, 200, res.body);
      const data = res.json<{ data: Record<string, unknown> }>().data;
      assert.deepEqual(data, {
        symbol: 'MAIN.nA',
        value: null,
        typeName: null,
        timestamp: null,
        readBackError: {
          code: 'ADS_ERROR',
          message: 'Reading MAIN.nA: ADS error 1796 (reading/writing not permitted).',
        },
      });
      assert.equal(plant.plc.read('MAIN.nA'), 77);
      proxy.fault = undefined;
      const again = await app.inject({
        method: 'PUT',
        url: '/api/plcs/press/variables/MAIN.nA',
        headers,
        payload: { value: 78 },
      });
      const ok = again.json<{ data: Record<string, unknown> }>().data;
      assert.deepEqual([ok.value, ok.typeName, ok.readBackError], [78, 'DINT', undefined]);
      proxy.fault = (r) => (r.command === Write && r.indexGroup === Memory ? 1796 : undefined);
      const refused = await app.inject({
        method: 'PUT',
        url: '/api/plcs/press/variables/MAIN.nA',
        headers,
        payload: { value: 79 },
      });
      assert.equal(refused.statusCode, 502, 'a write that failed still fails');
      assert.equal(plant.plc.read('MAIN.nA'), 78);
    } finally {
      await app.close();
      await target.close();
      await proxy.close();
      await plant.stop();
    }
  });
});
