// Alarm KPIs with replicas in real processes sharing one redis-server, on one sim-ads PLC: every replica answers
// from its copy of the shared journal (the holder's and the other's alike), covering the journal since it
// started, and counts a shelve taken through another replica.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { authHeaders, RawSse } from '../../notifications/clients.ts';
import { entry } from '../fixture.ts';
import type { CliProcess } from '../../../helpers/cluster-plant.ts';
import { alarmEvent, startAlarmPlant, writeSlot, type AlarmPlant } from '../cluster/alarm-cluster.ts';
import { mintToken } from '../../../helpers/tokens.ts';
import type { KpiJson } from './routes.test.ts';

describe('cluster: alarm KPIs from the shared journal on every replica', () => {
  let plant: AlarmPlant;
  let replicas: CliProcess[];
  const streams: RawSse[] = [];
  let headers: Record<string, string>;

  before(async () => {
    plant = await startAlarmPlant(['k1', 'k2']);
    replicas = plant.replicas;
    headers = authHeaders(await mintToken({ sub: 'admin-1' }));
  });

  after(async () => {
    for (const s of streams) s.close();
    await plant.stop();
  });

  const kpis = async (via: CliProcess): Promise<KpiJson> => {
    const res = await fetch(`${via.url}/api/plcs/line1/alarms/kpis`, { headers });
    assert.equal(res.status, 200, await res.clone().text());
    return ((await res.json()) as { data: KpiJson }).data;
  };

  it('both replicas count the same raises over the same covered start, and a shelve taken elsewhere', async () => {
    const [k1, k2] = replicas as [CliProcess, CliProcess];
    const open = async (via: CliProcess): Promise<RawSse> => {
      const s = await new RawSse(`${via.url}/api/plcs/line1/alarms/stream`, headers).opened();
      streams.push(s);
      return s;
    };
    const [c1, c2] = await Promise.all([open(k1), open(k2)]);
    await writeSlot(k1, headers, 1, entry({ sKey: 'PUMP_DRY', NeedsAck: false }));
    await writeSlot(k1, headers, 2, entry({ sKey: 'VALVE_STUCK', NeedsAck: false }));
    await Promise.all([c1, c2].map((c) => c.next(alarmEvent('raised', 'VALVE_STUCK'))));

    const [a1, a2] = await Promise.all([kpis(k1), kpis(k2)]);
    for (const answer of [a1, a2]) {
      assert.equal(answer.source, 'journal');
      assert.equal(answer.limitedBy, 'journal', 'the shared journal started after the window’s start');
      assert.equal(answer.figures.raised.total, 2);
      assert.deepEqual(
        answer.figures.topKeys.items.map((k) => k.key),
        ['PUMP_DRY', 'VALVE_STUCK'],
      );
    }
    assert.equal(a1.covered.from, a2.covered.from, 'both from the shared journal’s start');

    const shelve = await fetch(`${k1.url}/api/plcs/line1/alarms/PUMP_DRY/shelve`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ minutes: 30, reason: 'dry run test' }),
    });
    assert.equal(shelve.status, 200, await shelve.text());
    await c2.next((e) => e.event === 'shelving');
    assert.deepEqual((await kpis(k2)).figures.now, {
      outstanding: 2,
      shelved: 1,
      outOfService: 0,
      suppressed: 0,
    });
  });
});
