// Shelving across two replicas in real processes on one sim-ads PLC and one redis-server: a shelve taken through
// one replica is shown by the other at once (list, include=shelved, its stream), survives the shelving replica's
// SIGKILL, and runs out on time on the survivor, whose clock the test sets to instants around the shelve's end.
// Out of service is shared the same way.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { authHeaders, RawSse, type SseEvent } from '../../notifications/clients.ts';
import { entry } from '../fixture.ts';
import type { CliProcess } from '../../../helpers/cluster-plant.ts';
import { alarmEvent, startAlarmPlant, writeSlot, type AlarmPlant } from './alarm-cluster.ts';
import { mintToken } from '../../../helpers/tokens.ts';

interface ListJson {
  count: number;
  shelvedCount: number;
  outOfServiceCount: number;
  items: Array<{ code: string; 'x-shelved'?: { by: string; until: string; reason: string } }>;
}

interface Shelving {
  action: string;
  code: string;
  at: string;
  by?: string;
  cause?: string;
  until?: string;
}

describe('cluster: shelving lives in Redis, shown by every replica, run out by a survivor', () => {
  let plant: AlarmPlant;
  let replicas: CliProcess[];
  let headers: Record<string, string>;
  let operator: Record<string, string>;
  const streams: RawSse[] = [];

  before(async () => {
    plant = await startAlarmPlant(['s1', 's2']);
    replicas = plant.replicas;
    headers = authHeaders(await mintToken({ sub: 'admin-1' }));
    operator = authHeaders(await mintToken({ sub: 'op-7', role: 'operator' }));
  });

  after(async () => {
    for (const s of streams) s.close();
    await plant.stop();
  });

  const list = async (via: CliProcess, query = ''): Promise<ListJson> => {
    const res = await fetch(`${via.url}/api/plcs/line1/alarms${query}`, { headers });
    assert.equal(res.status, 200);
    return ((await res.json()) as { data: ListJson }).data;
  };
  const stream = async (via: CliProcess): Promise<RawSse> => {
    const s = await new RawSse(`${via.url}/api/plcs/line1/alarms/stream`, headers).opened();
    assert.equal(s.status, 200);
    streams.push(s);
    return s;
  };
  const shelving =
    (action: string, code: string) =>
    (e: SseEvent): boolean =>
      e.event === 'shelving' && (e.data as Shelving).action === action && (e.data as Shelving).code === code;

  it('a shelve through s1 is shown by s2, outlives s1’s SIGKILL and runs out on s2 at its until', async () => {
    const [s1, s2] = replicas as [CliProcess, CliProcess];
    const [c1, c2] = await Promise.all([stream(s1), stream(s2)]);
    await writeSlot(s1, headers, 1, entry({ sKey: 'PUMP_DRY', ErrorType: 3 }));
    await Promise.all([c1, c2].map((c) => c.next(alarmEvent('raised', 'PUMP_DRY'))));

    const res = await fetch(`${s1.url}/api/plcs/line1/alarms/PUMP_DRY/shelve`, {
      method: 'POST',
      headers: { ...operator, 'content-type': 'application/json' },
      body: JSON.stringify({ minutes: 1, reason: 'dry run test' }),
    });
    assert.equal(res.status, 200, await res.clone().text());
    const { until } = ((await res.json()) as { data: Shelving }).data;
    assert.ok(until !== undefined);
    const announced = await c2.next(shelving('shelved', 'PUMP_DRY'));
    assert.equal((announced.data as Shelving).by, 'op-7');
    const onS2 = await list(s2);
    assert.equal(onS2.count, 0);
    assert.equal(onS2.shelvedCount, 1);
    assert.deepEqual((await list(s2, '?include=shelved')).items[0]?.['x-shelved'], {
      by: 'op-7',
      at: (announced.data as Shelving).at,
      until,
      reason: 'dry run test',
    });

    await s1.kill();
    const untilMs = Date.parse(until);
    // Five seconds before its end the survivor still has it shelved...
    await s2.setClock(untilMs - 5000);
    assert.equal((await list(s2)).shelvedCount, 1);
    // ...and at its end, the survivor's clock ends it: journaled at the instant, announced, listed again.
    await s2.setClock(untilMs);
    const ended = await c2.next(shelving('unshelved', 'PUMP_DRY'));
    assert.deepEqual(
      { cause: (ended.data as Shelving).cause, at: (ended.data as Shelving).at },
      { cause: 'expired', at: until },
    );
    assert.deepEqual(
      (await list(s2)).items.map((a) => a.code),
      ['PUMP_DRY'],
    );
    const journal = (await (await fetch(`${s2.url}/api/plcs/line1/alarms/shelving`, { headers })).json()) as {
      data: { items: Shelving[] };
    };
    assert.deepEqual(
      journal.data.items.map((e) => `${e.action} ${e.code} ${e.by ?? '-'} ${e.cause ?? ''}`.trim()),
      ['shelved PUMP_DRY op-7', 'unshelved PUMP_DRY - expired'],
    );
  });

  it('out of service taken through the survivor is stored in Redis: a replica started later shows it', async () => {
    const s2 = replicas[1] as CliProcess;
    const res = await fetch(`${s2.url}/api/plcs/line1/alarms/PUMP_DRY/out-of-service`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ reason: 'level switch broken' }),
    });
    assert.equal(res.status, 200, await res.clone().text());
    const s3 = await plant.add('s3', 3);
    const onS3 = await list(s3, '?include=outOfService');
    assert.equal(onS3.outOfServiceCount, 1);
  });
});
