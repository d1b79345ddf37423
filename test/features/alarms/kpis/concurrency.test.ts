// PlcAlarms.Kpis.MaxConcurrent through HTTP: answers held open on a stand-in alarm archive whose reads the test
// releases one by one; at the limit the next answer (one PLC or the fleet) gets 429 CONCURRENCY_LIMIT, and a place
// freed by a finished answer is taken again.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { alarmArchiveKey, type AlarmArchive } from '../../../../src/features/alarms/archive.ts';
import type { JournalEntry } from '../../../../src/features/alarms/journal.ts';
import { Signal } from '../../../helpers/signal.ts';
import { startAlarmRig, type AlarmRig } from '../fixture.ts';

const waitLimitMs = 10_000;
const maxConcurrent = 2;

/** An alarm archive whose reads wait until the test releases them (oldest first), answering nothing. */
class HeldArchive implements AlarmArchive {
  readonly #held: Array<() => void> = [];
  readonly #signal = new Signal();
  reads = 0;

  read(): Promise<JournalEntry[]> {
    return new Promise((resolve) => {
      this.reads += 1;
      this.#held.push(() => resolve([]));
      this.#signal.notify();
    });
  }

  /** Resolves once `n` reads have begun in all. */
  async begun(n: number): Promise<void> {
    await this.#signal.until(
      () => this.reads >= n,
      waitLimitMs,
      () => `${n} archive reads`,
    );
  }

  release(): void {
    const next = this.#held.shift();
    assert.ok(next, 'no read is held');
    next();
  }

  releaseAll(): void {
    while (this.#held.length > 0) this.release();
  }
}

describe('alarm KPIs: PlcAlarms.Kpis.MaxConcurrent over HTTP', () => {
  const archive = new HeldArchive();
  let rig: AlarmRig;
  before(async () => {
    rig = await startAlarmRig('simulated', {
      settings: {
        PlcAlarms: { Kpis: { MaxConcurrent: maxConcurrent } },
        RateLimiting: { Enabled: false },
      },
      provide: (services) => services.provide(alarmArchiveKey, archive),
    });
  });
  after(async () => {
    archive.releaseAll();
    await rig.close();
  });

  const plcKpis = (): Promise<LightMyRequestResponse> => rig.call('GET', '/api/plcs/line1/alarms/kpis');
  const fleetKpis = (): Promise<LightMyRequestResponse> => rig.call('GET', '/api/alarms/kpis');

  const assertRefused = (res: LightMyRequestResponse): void => {
    assert.equal(res.statusCode, 429, res.body);
    const body = res.json<{ data: null; error: { code: string; message: string } }>();
    assert.equal(body.data, null);
    assert.equal(body.error.code, 'CONCURRENCY_LIMIT');
    assert.match(body.error.message, /PlcAlarms\.Kpis\.MaxConcurrent/);
  };

  // The bound only fails a run that would otherwise hang on a held answer.
  const failAfter = { timeout: 30_000 };

  it(
    'computes MaxConcurrent answers at once, refuses the next, and gives a freed place again',
    failAfter,
    async () => {
      // N answers (one PLC and the fleet alike) hold their places while their reads are held.
      const first = plcKpis();
      const second = fleetKpis();
      await archive.begun(maxConcurrent);

      // N+1: refused at once, by either route.
      assertRefused(await plcKpis());
      assertRefused(await fleetKpis());
      assert.equal(archive.reads, maxConcurrent, 'a refused answer reads nothing');

      // One finishes (whichever read began first); its place is free for the next answer, and the one after is
      // refused again.
      archive.release();
      const done = await Promise.race([first, second]);
      assert.equal(done.statusCode, 200, done.body);
      const third = plcKpis();
      await archive.begun(maxConcurrent + 1);
      assertRefused(await plcKpis());

      archive.releaseAll();
      const answers = await Promise.all([first, second, third]);
      assert.deepEqual(
        answers.map((r) => r.statusCode),
        [200, 200, 200],
        answers.map((r) => r.body).join('\n'),
      );
      // All places free again.
      const later = plcKpis();
      await archive.begun(maxConcurrent + 2);
      archive.releaseAll();
      const res = await later;
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json<{ data: { source: string } }>().data.source, 'history');
    },
  );
});
