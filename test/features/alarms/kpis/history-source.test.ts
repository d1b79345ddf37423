// The KPIs from the history store when History is on: beyond what the journal holds (JournalLength 2 here),
// cut to History.RetentionDays, with an injected clock.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { manualClock } from '../../../helpers/app.ts';
import { Signal } from '../../../helpers/signal.ts';
import { entry, startAlarmRig, type AlarmRig } from '../fixture.ts';
import type { KpiJson } from './routes.test.ts';

const start = Date.UTC(2030, 5, 1, 8, 0, 0);
const iso = (ms: number) => new Date(ms).toISOString();
const day = 24 * 3_600_000;

describe('alarm KPIs from the history store', () => {
  const dir = mkdtempSync(join(tmpdir(), 'alarm-kpis-'));
  const clock = manualClock(start);
  let rig: AlarmRig;
  before(async () => {
    rig = await startAlarmRig('simulated', {
      now: clock.now,
      alarm: { JournalLength: 2 },
      settings: {
        Features: { Alarms: true, Simulation: true, Variables: true, Rpc: true, History: true },
        History: { Path: join(dir, 'history.db'), FlushIntervalMs: 10, RetentionDays: 1 },
        PlcAlarms: { Kpis: { MaxWindowDays: 3 } },
        RateLimiting: { Enabled: false },
      },
    });
    for (const key of ['S1', 'S2', 'S3']) {
      clock.advance(1000);
      await rig.writeSlot(4, entry({ sKey: key, NeedsAck: false }));
    }
    // A window ends before its `to`: now is a second after the last transition.
    clock.advance(1000);
  });
  after(async () => {
    await rig.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const kpis = async (query = ''): Promise<KpiJson> => {
    const res = await rig.call('GET', `/api/plcs/line1/alarms/kpis${query}`);
    assert.equal(res.statusCode, 200, res.body);
    return res.json<{ data: KpiJson }>().data;
  };

  it('counts every stored transition, also those the journal no longer holds', async () => {
    // S1 raised, S1 ended and S2 raised, S2 ended and S3 raised: five transitions, three raises.
    const signal = new Signal();
    let stored = 0;
    const timer = setInterval(
      () =>
        void kpis().then((k) => {
          stored = k.figures.raised.total;
          signal.notify();
        }),
      10,
    );
    try {
      await signal.until(
        () => stored === 3,
        10_000,
        () => 'three raises in the store',
      );
    } finally {
      clearInterval(timer);
    }
    const answer = await kpis();
    assert.equal(answer.source, 'history');
    assert.deepEqual(answer.covered, { from: iso(clock.now() - day), to: iso(clock.now()) });
    assert.equal(answer.limitedBy, undefined);
    assert.deepEqual(
      answer.figures.topKeys.items.map((k) => k.key),
      ['S1', 'S2', 'S3'],
    );
    assert.deepEqual(answer.figures.now, { outstanding: 1, shelved: 0, outOfService: 0, suppressed: 0 });
    const ring = await rig.call('GET', '/api/plcs/line1/alarms/history?limit=100');
    assert.equal(ring.json<{ data: { items: unknown[] } }>().data.items.length, 2, 'the journal holds two');
  });

  it('covers no more than History.RetentionDays keeps', async () => {
    const now = clock.now();
    const answer = await kpis(`?from=${iso(now - 2 * day)}&to=${iso(now)}`);
    assert.deepEqual(
      [answer.limitedBy, answer.covered.from, answer.requested.from],
      ['retention', iso(now - day), iso(now - 2 * day)],
    );
    assert.equal(answer.figures.raised.total, 3);
  });
});
