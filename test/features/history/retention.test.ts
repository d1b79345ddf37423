// Retention over SQLite: samples older than RetentionDays go in the background pass (one just inside stays),
// and the disk use per stored sample is reported in /metrics.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { historyUrl, iso, seriesOf, startHistoryRig, t0, untilSamples } from './fixture.ts';

const day = 86_400_000;

describe('history retention', () => {
  it('deletes samples older than RetentionDays, keeps the one at the edge, reports bytes per sample', async () => {
    const rig = await startHistoryRig({ symbols: [{ Path: 'MAIN.nCount' }], history: { RetentionDays: 30 } });
    try {
      const edge = t0 - 30 * day;
      await rig.write('MAIN.nCount', 1, edge - 1);
      await rig.write('MAIN.nCount', 2, edge);
      await untilSamples(rig, 'MAIN.nCount', 3, t0 - 40 * day, t0 + day);
      // The pass runs at start-up (and hourly): a restart runs it now (and records the current value again).
      rig.plcTime = t0 + 10;
      await rig.closeApp();
      await rig.restart();
      const url = historyUrl(['MAIN.nCount'], t0 - 40 * day, t0 + day, { aggregate: 'raw' });
      await rig.until(
        async () => (await seriesOf(rig, url))[0]?.samples?.length === 3,
        'the old sample deleted',
      );
      const [s] = await seriesOf(rig, url);
      assert.deepEqual(s?.samples, [
        { t: iso(edge), value: 2 },
        { t: iso(t0), value: 0 },
        { t: iso(t0 + 10), value: 2 },
      ]);
      // The pass reports once its deletes are done (they run on the store's writer thread): wait for the report.
      let metrics = '';
      await rig.until(async () => {
        metrics = (await rig.get('/metrics')).body;
        return /^history_stored_samples /m.test(metrics);
      }, 'the retention pass reported');
      assert.match(metrics, /^history_stored_samples [23]$/m);
      const perSample = Number(/^history_bytes_per_sample (\S+)$/m.exec(metrics)?.[1]);
      assert.ok(perSample > 0, `bytes per sample: ${perSample}`);
    } finally {
      await rig.close();
    }
  });
});
