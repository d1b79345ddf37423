// PlcAlarms.ShelvingStateFile: shelves and out-of-service states survive a gateway restart; a shelve that ran out
// while the gateway was down ends at once, journaled at its until; a file that is not a shelving state stops
// start-up naming the setting.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { ConfigError } from '../../../src/config/schema.ts';
import { manualDeadlineClock } from '../../helpers/app.ts';
import { startAlarmRig, type AlarmRig } from './fixture.ts';

interface ListJson {
  count: number;
  shelvedCount: number;
  outOfServiceCount: number;
}

const minute = 60_000;

describe('PlcAlarms.ShelvingStateFile', () => {
  const file = join(mkdtempSync(join(tmpdir(), 'plc-gateway-shelving-')), 'state', 'shelving.json');
  const start = Date.UTC(2030, 0, 1, 6, 0, 0);
  const rig = (at: number): Promise<AlarmRig> =>
    startAlarmRig('simulated', {
      deadlines: manualDeadlineClock(at),
      settings: { PlcAlarms: { ShelvingStateFile: file } },
    });
  const list = async (r: AlarmRig): Promise<ListJson> =>
    (await r.call('GET', '/api/plcs/line1/alarms')).json<{ data: ListJson }>().data;

  test('a restart keeps what is shelved and out of service; a shelve that ran out meanwhile ends at its until', async () => {
    const first = await rig(start);
    try {
      await first.step(2);
      const shelve = await first.call('POST', '/api/plcs/line1/alarms/CAPPER_JAM/shelve', {
        minutes: 30,
        reason: 'jam known',
      });
      assert.equal(shelve.statusCode, 200, shelve.body);
      const out = await first.call('POST', '/api/plcs/line1/alarms/FILLER_OVERTEMP/out-of-service', {
        reason: 'probe broken',
      });
      assert.equal(out.statusCode, 200, out.body);
    } finally {
      await first.close();
    }
    const saved = JSON.parse(readFileSync(file, 'utf8')) as {
      line1: { shelved: Record<string, { until: string }>; outOfService: Record<string, { reason: string }> };
    };
    assert.equal(saved.line1.shelved.CAPPER_JAM?.until, new Date(start + 30 * minute).toISOString());
    assert.equal(saved.line1.outOfService.FILLER_OVERTEMP?.reason, 'probe broken');

    // Back ten minutes later: both still hold.
    const second = await rig(start + 10 * minute);
    try {
      await second.step(2);
      const l = await list(second);
      assert.deepEqual([l.count, l.shelvedCount, l.outOfServiceCount], [0, 1, 1]);
    } finally {
      await second.close();
    }

    // Back an hour later: the shelve ran out at its until; out of service holds until returned.
    const third = await rig(start + 60 * minute);
    try {
      await third.step(2);
      const l = await list(third);
      assert.deepEqual([l.count, l.shelvedCount, l.outOfServiceCount], [1, 0, 1]);
      const journal = (await third.call('GET', '/api/plcs/line1/alarms/shelving')).json<{
        data: { items: Array<{ action: string; code: string; cause?: string; at: string }> };
      }>().data.items;
      assert.deepEqual(journal, [
        {
          seq: (journal[0] as { seq?: number } | undefined)?.seq,
          at: new Date(start + 30 * minute).toISOString(),
          action: 'unshelved',
          code: 'CAPPER_JAM',
          cause: 'expired',
        },
      ]);
      const back = await third.call('POST', '/api/plcs/line1/alarms/FILLER_OVERTEMP/return-to-service');
      assert.equal(back.statusCode, 200, back.body);
    } finally {
      await third.close();
    }
    const after = JSON.parse(readFileSync(file, 'utf8')) as { line1: object };
    assert.deepEqual(after.line1, { shelved: {}, outOfService: {} });
  });

  test('ShelvingWriteIntervalMs: a burst of changes is one write at the interval’s end (N - 1 and N), the last at shutdown', async () => {
    const burstFile = join(mkdtempSync(join(tmpdir(), 'plc-gateway-shelving-')), 'shelving.json');
    const clock = manualDeadlineClock(start);
    const r = await startAlarmRig('simulated', {
      deadlines: clock,
      settings: { PlcAlarms: { ShelvingStateFile: burstFile, ShelvingWriteIntervalMs: 1000 } },
    });
    const saved = (): string[] =>
      Object.keys(
        (JSON.parse(readFileSync(burstFile, 'utf8')) as { line1: { outOfService: object } }).line1
          .outOfService,
      ).sort();
    const change = async (code: string, action: 'out-of-service' | 'return-to-service'): Promise<void> => {
      const body = action === 'out-of-service' ? { reason: 'x' } : undefined;
      const res = await r.call('POST', `/api/plcs/line1/alarms/${code}/${action}`, body);
      assert.equal(res.statusCode, 200, res.body);
    };
    try {
      await r.step(2);
      // The first change after a quiet interval is written at once.
      await change('CAPPER_JAM', 'out-of-service');
      assert.deepEqual(saved(), ['CAPPER_JAM']);
      // Within the interval: kept for its end, however many.
      await change('CAPPER_JAM', 'return-to-service');
      await change('FILLER_OVERTEMP', 'out-of-service');
      assert.deepEqual(saved(), ['CAPPER_JAM']);
      clock.advance(999);
      assert.deepEqual(saved(), ['CAPPER_JAM']);
      clock.advance(1);
      assert.deepEqual(saved(), ['FILLER_OVERTEMP']);
      // One more within the next interval: written when the gateway shuts down.
      await change('CAPPER_JAM', 'out-of-service');
      assert.deepEqual(saved(), ['FILLER_OVERTEMP']);
    } finally {
      await r.close();
    }
    assert.deepEqual(saved(), ['CAPPER_JAM', 'FILLER_OVERTEMP']);
  });

  test('a file that is not a shelving state stops start-up naming the setting', async () => {
    for (const text of [
      '{ not json',
      JSON.stringify({ line1: { shelved: { X: { by: 1 } }, outOfService: {} } }),
    ]) {
      writeFileSync(file, text);
      await assert.rejects(
        rig(start),
        (err: Error) =>
          err instanceof ConfigError && /^PlcAlarms\.ShelvingStateFile: /.test(err.problems[0] ?? ''),
      );
    }
  });
});
