// The shipped example shows alarms: a gateway built from examples/appsettings.json monitors line1 and line2, and
// the example scenarios' scripts raise, clear and re-raise alarms of every severity. The scenarios are stepped
// with sim/step on a PLC clock that follows simulated time, so every scan is sampled and nothing waits on the wall.
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../../src/config/load.ts';
import { developmentSigningKey } from '../../src/config/development-key.ts';
import { createSimulatedTarget, type SimulatedTarget } from '../../src/targets/simulated/index.ts';
import { alarmEvent } from '../features/alarms/cluster/alarm-cluster.ts';
import { RawSse } from '../features/notifications/clients.ts';
import { buildTestApp } from '../helpers/app.ts';
import { bearer, mintToken } from '../helpers/tokens.ts';

interface Alarm {
  code: string;
  scope: string;
  severityLabel: string;
  status: string;
  description: string;
  capabilities: string[];
}

interface AlarmList {
  count: number;
  partial: boolean;
  items: Alarm[];
}

const settingsFile = resolve(import.meta.dirname, '../../examples/appsettings.json');

describe('examples/appsettings.json: alarms on line1 and line2', () => {
  let app: FastifyInstance;
  const targets: SimulatedTarget[] = [];
  let headers: Record<string, string>;
  let base: string;

  before(async () => {
    const config = loadConfig(settingsFile, {});
    for (const [id, settings] of Object.entries(config.settings.PlcTargets)) {
      const followed: { target?: SimulatedTarget } = {};
      const base = Date.now();
      // The PLC clock advances with simulated time: a stepped scan is one scanMs later for the alarm monitor.
      const clock = (): number => base + (followed.target?.simulation?.state().elapsedMs ?? 0);
      const target = await createSimulatedTarget(id, settings, { config, clock });
      followed.target = target;
      // Auto-started simulations are paused before their pump's first tick: the test steps them.
      if (target.simulation?.state().state === 'Running') target.simulation.pause();
      targets.push(target);
    }
    for (const t of targets) await t.start();
    app = await buildTestApp({ config, targets });
    headers = bearer(await mintToken({}, { key: developmentSigningKey }));
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    base = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
  });

  after(async () => {
    await app?.close();
    for (const t of targets) await t.close();
  });

  const get = (url: string, extra: Record<string, string> = {}) =>
    app.inject({ method: 'GET', url, headers: { ...headers, ...extra } });
  const post = (url: string) => app.inject({ method: 'POST', url, headers });

  /** Steps `plcId`'s simulation to scan `cycle` (counted from load). */
  async function stepTo(plcId: string, cycle: number): Promise<void> {
    const state = await get(`/api/plcs/${plcId}/sim/state`);
    const at = state.json<{ data: { cycleCount: number } }>().data.cycleCount;
    assert.ok(cycle > at, `${plcId} is at scan ${at}, past ${cycle}`);
    const res = await post(`/api/plcs/${plcId}/sim/step?cycles=${cycle - at}`);
    assert.equal(res.statusCode, 200, res.body);
  }

  async function list(url = '/api/alarms', extra: Record<string, string> = {}): Promise<AlarmList> {
    const res = await get(url, extra);
    assert.equal(res.statusCode, 200, res.body);
    return res.json<{ data: AlarmList }>().data;
  }

  const outstanding = async (url?: string): Promise<string[]> =>
    (await list(url)).items.map((a) => `${a.scope}:${a.code}:${a.severityLabel}:${a.status}`);

  async function health(): Promise<[number, string]> {
    const res = await app.inject({ method: 'GET', url: '/health/alarms' });
    return [res.statusCode, res.json<{ status: string }>().status];
  }

  it('monitors both PLCs, with nothing outstanding at load: Healthy', async () => {
    assert.deepEqual(await outstanding('/api/plcs/line1/alarms'), []);
    assert.deepEqual(await outstanding('/api/plcs/line2/alarms'), []);
    assert.equal((await get('/api/plcs/cell3/alarms')).statusCode, 404, 'cell3 is not monitored');
    assert.deepEqual(await health(), [200, 'Healthy']);
  });

  it('line1 raises INFO, WARNING and ERROR alarms within its first 30 s; health follows the worst', async () => {
    await stepTo('line1', 30); // 3 s: PALLET_FULL
    assert.deepEqual(await outstanding(), ['line1:PALLET_FULL:INFO:active']);
    assert.deepEqual(await health(), [200, 'Healthy'], 'INFO does not degrade');

    await stepTo('line1', 150); // 13 s: PALLET_FULL's fault ends (awaits acknowledgement); 15 s: FILLER_OVERTEMP
    assert.deepEqual(await outstanding(), [
      'line1:PALLET_FULL:INFO:passive',
      'line1:FILLER_OVERTEMP:WARNING:active',
    ]);
    assert.deepEqual(await health(), [200, 'Degraded']);

    await stepTo('line1', 250); // 25 s: CAPPER_JAM
    const fleet = await list();
    assert.deepEqual(
      fleet.items.map((a) => a.severityLabel),
      ['INFO', 'WARNING', 'ERROR'],
    );
    assert.equal(fleet.partial, false);
    assert.deepEqual(await health(), [503, 'Unhealthy']);
  });

  it('describes alarms from the text catalog, in German for Accept-Language: de', async () => {
    const en = await list('/api/plcs/line1/alarms');
    assert.equal(en.items.find((a) => a.code === 'CAPPER_JAM')?.description, 'Cap feed jammed');
    const de = await list('/api/plcs/line1/alarms', { 'accept-language': 'de-DE, en;q=0.5' });
    assert.equal(de.items.find((a) => a.code === 'CAPPER_JAM')?.description, 'Deckelzufuhr verklemmt');
  });

  it('acknowledges the alarm awaiting it, once; an acknowledged alarm whose fault ended goes', async () => {
    const pallet = (await list()).items.find((a) => a.code === 'PALLET_FULL');
    assert.deepEqual(pallet?.capabilities, ['acknowledge']);
    const ack = await post('/api/plcs/line1/alarms/PALLET_FULL/acknowledge');
    assert.equal(ack.statusCode, 200, ack.body);
    assert.deepEqual(ack.json(), { data: { acknowledged: true }, error: null });
    assert.deepEqual(await outstanding(), [
      'line1:FILLER_OVERTEMP:WARNING:active',
      'line1:CAPPER_JAM:ERROR:active',
    ]);
    const again = await post('/api/plcs/line1/alarms/PALLET_FULL/acknowledge');
    assert.equal(again.statusCode, 404);
    assert.equal(again.json<{ error: { code: string } }>().error.code, 'ALARM_NOT_FOUND');
  });

  it('health goes back through Degraded to Healthy as the alarms go, and the cycle repeats', async () => {
    await stepTo('line1', 350); // 35 s: CAPPER_JAM ends
    assert.deepEqual(await outstanding(), ['line1:FILLER_OVERTEMP:WARNING:active']);
    assert.deepEqual(await health(), [200, 'Degraded']);

    await stepTo('line1', 450); // 45 s: FILLER_OVERTEMP ends
    assert.deepEqual(await outstanding(), []);
    assert.deepEqual(await health(), [200, 'Healthy']);

    await stepTo('line1', 630); // 63 s: the minute starts again
    assert.deepEqual(await outstanding(), ['line1:PALLET_FULL:INFO:active']);
    await stepTo('line1', 850); // 85 s
    assert.deepEqual(await health(), [503, 'Unhealthy']);
  });

  it('line2 raises its own alarms when stepped; its ERROR awaits acknowledgement after its fault ends', async () => {
    await stepTo('line2', 20); // 2 s: LAYER_DONE
    assert.deepEqual(await outstanding('/api/plcs/line2/alarms'), ['line2:LAYER_DONE:INFO:active']);
    await stepTo('line2', 120); // 6 s LAYER_DONE ends, 8 s VACUUM_LOW, 10 s DOOR_OPEN, 12 s its fault ends
    assert.deepEqual(await outstanding('/api/plcs/line2/alarms'), [
      'line2:VACUUM_LOW:WARNING:active',
      'line2:DOOR_OPEN:ERROR:passive',
    ]);
    const ack = await post('/api/plcs/line2/alarms/DOOR_OPEN/acknowledge');
    assert.deepEqual(ack.json(), { data: { acknowledged: true }, error: null });
    assert.deepEqual(await outstanding('/api/plcs/line2/alarms'), ['line2:VACUUM_LOW:WARNING:active']);
    await stepTo('line2', 160); // 16 s: VACUUM_LOW ends
    assert.deepEqual(await outstanding('/api/plcs/line2/alarms'), []);
  });

  it('pushes the transitions live on the fleet stream the console reads', async () => {
    const sse = await new RawSse(`${base}/api/alarms/stream`, headers).opened();
    try {
      assert.equal(sse.status, 200);
      await stepTo('line1', 950); // 95 s: the second minute's CAPPER_JAM ends
      await sse.next(alarmEvent('ended', 'CAPPER_JAM'));
      await stepTo('line2', 320); // 32 s: line2's LAYER_DONE again
      await sse.next(alarmEvent('raised', 'LAYER_DONE'));
    } finally {
      sse.close();
    }
  });
});
