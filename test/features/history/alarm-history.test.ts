// Alarm transitions go to the history store with the acknowledging user, and GET .../alarms/history serves a
// from/to window from it, beyond the in-memory journal (JournalLength 2 here), also after a restart.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { manualClock } from '../../helpers/app.ts';
import { Signal } from '../../helpers/signal.ts';
import { entry, startAlarmRig, type AlarmRig } from '../alarms/fixture.ts';

interface Item {
  seq: number;
  at: string;
  kind: string;
  alarm: { code: string };
  user?: string;
}

const start = Date.UTC(2026, 10, 28, 8, 0, 0);
const iso = (ms: number) => new Date(ms).toISOString();

describe('alarm history in the store', () => {
  const dir = mkdtempSync(join(tmpdir(), 'alarm-history-'));
  const clock = manualClock(start);
  let rig: AlarmRig;
  before(async () => {
    rig = await startAlarmRig('simulated', {
      now: clock.now,
      alarm: { JournalLength: 2 },
      settings: {
        Features: { Alarms: true, Simulation: true, Variables: true, Rpc: true, History: true },
        History: { Path: join(dir, 'history.db'), FlushIntervalMs: 10 },
      },
    });
    clock.advance(1000);
    await rig.writeSlot(4, entry({ sKey: 'A1' }));
    clock.advance(1000);
    await rig.writeSlot(5, entry({ sKey: 'A2' }));
    clock.advance(1000);
    await rig.writeSlot(6, entry({ sKey: 'A3' }));
    clock.advance(1000);
    const ack = await rig.call('POST', '/api/plcs/line1/alarms/A3/acknowledge');
    assert.equal(ack.statusCode, 200, ack.body);
    await rig.settle();
  });
  after(async () => {
    await rig.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const window = async (query: string): Promise<{ items: Item[]; nextAfter: number }> => {
    const res = await rig.call('GET', `/api/plcs/line1/alarms/history?${query}`);
    assert.equal(res.statusCode, 200, res.body);
    return res.json<{ data: { items: Item[]; nextAfter: number } }>().data;
  };

  const until = async (probe: () => Promise<boolean>): Promise<void> => {
    const signal = new Signal();
    let hit = false;
    const timer = setInterval(
      () =>
        void probe().then((v) => {
          hit = v;
          signal.notify();
        }),
      10,
    );
    try {
      await signal.until(
        () => hit,
        10_000,
        () => 'the transitions in the store',
      );
    } finally {
      clearInterval(timer);
    }
  };

  it('serves a window beyond the journal from the store, with the acknowledging user', async () => {
    const query = `from=${iso(start)}&to=${iso(start + 10_000)}&limit=100`;
    await until(async () => (await window(query)).items.length === 4);
    const { items } = await window(query);
    assert.deepEqual(
      items.map((i) => [i.kind, i.alarm.code, i.at, i.user]),
      [
        ['raised', 'A1', iso(start + 1000), undefined],
        ['raised', 'A2', iso(start + 2000), undefined],
        ['raised', 'A3', iso(start + 3000), undefined],
        ['acknowledged', 'A3', iso(start + 4000), 'test-user'],
      ],
    );
    // The journal alone holds only the last two.
    const ring = (await rig.call('GET', '/api/plcs/line1/alarms/history?limit=100')).json<{
      data: { items: Item[] };
    }>().data.items;
    assert.equal(ring.length, 2);
  });

  it('bounds the window by from (inclusive) and to (exclusive), and pages with after and limit', async () => {
    const { items } = await window(`from=${iso(start + 2000)}&to=${iso(start + 4000)}`);
    assert.deepEqual(
      items.map((i) => i.alarm.code),
      ['A2', 'A3'],
    );
    const first = await window(`from=${iso(start)}&limit=1`);
    assert.equal(first.items[0]?.alarm.code, 'A1');
    const next = await window(`from=${iso(start)}&limit=1&after=${first.nextAfter}`);
    assert.equal(next.items[0]?.alarm.code, 'A2');
  });

  it('refuses a window whose from is not before its to', async () => {
    const res = await rig.call('GET', `/api/plcs/line1/alarms/history?from=${iso(start)}&to=${iso(start)}`);
    assert.equal(res.statusCode, 400);
    assert.equal(res.json<{ error: { code: string } }>().error.code, 'VALIDATION_ERROR');
  });
});
