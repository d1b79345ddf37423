// The history on a real PostgreSQL started by the test: recording and buckets, 64-bit values, gaps, a restart,
// two replicas recording the same PLC into one store (each sample and transition stored once), and the store
// down and back (samples buffered meanwhile arrive; overflow is counted and stored as a gap).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { SimulatedPlc } from '../../../src/simulator/engine/index.ts';
import { PostgresServer } from '../../../bench/servers/postgres-server.ts';
import {
  historyProgram,
  historyUrl,
  iso,
  seriesOf,
  startHistoryRig,
  t0,
  untilSamples,
  type HistoryRig,
} from './fixture.ts';

let server: PostgresServer;
let databases = 0;

/** A fresh database per test, so each starts empty. */
async function database(): Promise<string> {
  const name = `history_${++databases}`;
  const client = new pg.Client(server.url);
  await client.connect();
  await client.query(`CREATE DATABASE ${name}`);
  await client.end();
  return server.url.replace(/\/postgres$/, `/${name}`);
}

async function pgRig(options: Parameters<typeof startHistoryRig>[0], url?: string): Promise<HistoryRig> {
  return startHistoryRig({
    ...options,
    history: {
      Store: 'postgres',
      Postgres: { ConnectionString: url ?? (await database()) },
      ...options.history,
    },
  });
}

before(async () => {
  server = await PostgresServer.start();
});
after(() => server.close());

describe('history on PostgreSQL', () => {
  it('records, keeps a spike in its bucket, stores 64-bit values exactly', async () => {
    const rig = await pgRig({
      symbols: [{ Path: 'MAIN.fTemp' }, { Path: 'MAIN.nBig' }, { Path: 'MAIN.uBig' }],
    });
    try {
      for (let i = 1; i <= 20; i++)
        await rig.write('MAIN.fTemp', i === 13 ? -500 : 20 + (i % 2), t0 + i * 100);
      await rig.write('MAIN.nBig', '-9223372036854775807', t0 + 10);
      await rig.write('MAIN.uBig', '18446744073709551615', t0 + 10);
      await untilSamples(rig, 'MAIN.fTemp', 21);
      await untilSamples(rig, 'MAIN.uBig', 2);
      const n = await untilSamples(rig, 'MAIN.nBig', 2);
      assert.deepEqual(
        n.samples?.map((x) => x.value),
        ['0', '-9223372036854775807'],
      );
      const [temp, , u] = await seriesOf(
        rig,
        historyUrl(['MAIN.fTemp', 'MAIN.nBig', 'MAIN.uBig'], t0, t0 + 2100, { maxPoints: 3 }),
      );
      assert.equal(temp?.bucketMs, 700);
      // [t0+700, t0+1400): 21, 20, 21, 20, 21, 20 and the spike.
      assert.deepEqual(temp?.buckets?.[1], {
        t: iso(t0 + 700),
        min: -500,
        max: 21,
        first: 21,
        last: -500,
        count: 7,
      });
      assert.equal(u?.buckets?.[0]?.max, '18446744073709551615');
    } finally {
      await rig.close();
    }
  });

  it('stores a gap while the PLC is down, and keeps history over a restart', async () => {
    const rig = await pgRig({ symbols: [{ Path: 'MAIN.nCount' }] });
    try {
      await untilSamples(rig, 'MAIN.nCount', 1);
      rig.gatewayTime = t0 + 1000;
      rig.target.disconnect();
      rig.gatewayTime = t0 + 3000;
      rig.plcTime = t0 + 3000;
      rig.target.reconnect();
      await rig.write('MAIN.nCount', 5, t0 + 3500);
      await untilSamples(rig, 'MAIN.nCount', 2);
      await rig.closeApp();
      await rig.restart();
      const s = await untilSamples(rig, 'MAIN.nCount', 3);
      // The value is recorded again when the PLC is back, so the trend resumes right after the gap.
      assert.deepEqual(s.samples, [
        { t: iso(t0), value: 0 },
        { t: iso(t0 + 3000), value: 0 },
        { t: iso(t0 + 3500), value: 5 },
      ]);
      assert.deepEqual(s.gaps, [{ from: iso(t0 + 1000), to: iso(t0 + 3000), reason: 'unreachable' }]);
    } finally {
      await rig.close();
    }
  });

  it('two replicas recording one PLC into one store: each sample once, read from either', async () => {
    const url = await database();
    let plcNow = t0;
    const plc = new SimulatedPlc(historyProgram(), { clock: () => plcNow });
    const a = await pgRig({ symbols: [{ Path: 'MAIN.nCount' }], plc }, url);
    const b = await pgRig({ symbols: [{ Path: 'MAIN.nCount' }], plc }, url);
    try {
      await untilSamples(a, 'MAIN.nCount', 1);
      await untilSamples(b, 'MAIN.nCount', 1);
      // Written to the PLC once: both replicas are notified and both write it.
      plcNow = t0 + 10;
      plc.write('MAIN.nCount', 2);
      plc.sample({ immediate: true });
      const fromA = await untilSamples(a, 'MAIN.nCount', 2);
      assert.deepEqual(
        fromA.samples?.map((x) => x.value),
        [0, 2],
      );
      assert.equal(fromA.samples?.[1]?.t, iso(t0 + 10));
      const fromB = await untilSamples(b, 'MAIN.nCount', 2);
      assert.deepEqual(fromB.samples, fromA.samples);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('the store down and back: buffered samples arrive, overflow is counted and stored as a gap', async () => {
    const url = await database();
    const rig = await pgRig({ symbols: [{ Path: 'MAIN.nCount' }], history: { BufferLength: 3 } }, url);
    try {
      await untilSamples(rig, 'MAIN.nCount', 1);
      await server.stop();
      for (let i = 1; i <= 5; i++) await rig.write('MAIN.nCount', i, t0 + i * 10);
      // The gateway keeps serving while the store is down.
      const live = await rig.get('/api/plcs/line1/variables/MAIN.nCount');
      assert.notEqual(live.statusCode, 503);
      await rig.until(async () => {
        const metrics = (await rig.get('/metrics')).body;
        return (
          /history_samples_dropped_total 2\b/.test(metrics) &&
          /history_store_errors_total [1-9]/.test(metrics)
        );
      }, 'two samples dropped');
      await server.restart();
      const url = historyUrl(['MAIN.nCount'], t0, t0 + 1000, { aggregate: 'raw' });
      await rig.until(async () => {
        const [series] = await seriesOf(rig, url);
        return series?.samples?.length === 4 && series.gaps.length === 1;
      }, 'the buffered samples and the overflow gap');
      const [s] = await seriesOf(rig, url);
      // Three were held; the two that did not fit are a gap.
      assert.deepEqual(
        s?.samples?.map((x) => x.value),
        [0, 1, 2, 3],
      );
      assert.deepEqual(s?.gaps, [{ from: iso(t0 + 40), to: iso(t0 + 50), reason: 'overflow' }]);
    } finally {
      await rig.close();
    }
  });
});
