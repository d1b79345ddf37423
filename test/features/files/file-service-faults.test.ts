// A Real PLC without a file service, or whose file service cannot rename: the answer says so plainly, and an
// upload that cannot be atomic is refused with the old file left whole.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildTestApp } from '../../helpers/app.ts';
import { FaultProxy, makeTarget, reach, startPlant, type Plant } from '../../targets/ads/harness.ts';
import type { AdsTarget } from '../../../src/targets/ads/index.ts';
import { caller, type Call } from '../variables/fixture.ts';

const errorMessage = (res: { json(): unknown }): string =>
  (res.json() as { error: { message: string } }).error.message;

const FileOpen = 120;
const FileRename = 132;
const FileFind = 133;
const ServiceNotSupported = 1793;
const InvalidIndexGroup = 1794;

describe('file routes on a Real PLC with a missing file service', () => {
  let plant: Plant;
  let proxy: FaultProxy;
  let target: AdsTarget;
  let app: FastifyInstance;
  let call: Call;

  before(async () => {
    plant = await startPlant();
    proxy = new FaultProxy(plant.port);
    target = makeTarget(await proxy.listen());
    await target.start();
    await reach(target, 'Connected');
    app = await buildTestApp({
      targets: [target],
      settings: { Features: { Files: true }, RateLimiting: { Enabled: false } },
    });
    call = await caller(app);
    await plant.plc.files.write('recipes/r1.csv', Buffer.from('old content'));
  });
  after(async () => {
    await app.close();
    await target.close();
    await proxy.close();
    await plant.stop();
  });

  test('no file service at all: 502 ADS_ERROR that says so, for reads, listings and writes', async () => {
    for (const code of [ServiceNotSupported, InvalidIndexGroup]) {
      proxy.fault = ({ command, indexGroup }) =>
        command === 9 && (indexGroup === FileOpen || indexGroup === FileFind) ? code : undefined;
      try {
        for (const res of [
          await call('GET', '/api/plcs/press/files/recipes/r1.csv'),
          await call('GET', '/api/plcs/press/files?dir=recipes'),
          await call('PUT', '/api/plcs/press/files/recipes/r1.csv', { contentBase64: 'bmV3' }),
        ]) {
          assert.equal(res.statusCode, 502, res.body);
          assert.equal(res.json().error.code, 'ADS_ERROR');
          assert.match(errorMessage(res), /offers no file service/);
        }
      } finally {
        proxy.fault = undefined;
      }
    }
    assert.equal((await plant.plc.files.read('recipes/r1.csv')).toString(), 'old content');
  });

  test('no FRENAME: the upload is refused as not atomic, the old file stays and no temporary file is left', async () => {
    proxy.fault = ({ command, indexGroup }) =>
      command === 9 && indexGroup === FileRename ? ServiceNotSupported : undefined;
    try {
      for (let i = 0; i < 2; i++) {
        const res = await call('PUT', '/api/plcs/press/files/recipes/r1.csv', { contentBase64: 'bmV3' });
        assert.equal(res.statusCode, 502, res.body);
        assert.equal(res.json().error.code, 'ADS_ERROR');
        assert.match(errorMessage(res), /no FRENAME.*atomically.*nothing was written/);
      }
    } finally {
      proxy.fault = undefined;
    }
    assert.equal((await plant.plc.files.read('recipes/r1.csv')).toString(), 'old content');
    assert.deepEqual(
      (await plant.plc.files.list('recipes')).map((e) => e.name),
      ['r1.csv'],
    );
    // Reads still work on such a PLC.
    const read = await call('GET', '/api/plcs/press/files/recipes/r1.csv');
    assert.equal(read.statusCode, 200);
  });
});
