// The program-change listing keeps ProgramChanges.Length changes per PLC, newest first: at the bound every
// change is kept, one more pushes out the oldest. Changes come from a target that reports them by hand.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ProgramChange, ProgramChangeListener } from '../../../src/targets/target.ts';
import { buildTestApp } from '../../helpers/app.ts';
import { FakeTarget } from '../../helpers/fake-target.ts';
import { bearer, mintToken } from '../../helpers/tokens.ts';
import { loadConfig } from '../../../src/config/load.ts';
import { minimalSettings, problemsOf, writeSettings } from '../../config/helpers.ts';

class ChangingTarget extends FakeTarget {
  readonly #listeners = new Set<ProgramChangeListener>();

  onProgramChange(listener: ProgramChangeListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  download(version: number): void {
    const change: ProgramChange = {
      kind: 'download',
      at: new Date(Date.UTC(2026, 0, 1, 0, 0, version)),
      oldSymbolVersion: version - 1,
      newSymbolVersion: version,
      affected: [],
      affectedCount: 0,
      counts: { vanished: 0, typeChanged: 0, moved: 0 },
    };
    for (const l of this.#listeners) l(change);
  }
}

describe('program-change listing bound (ProgramChanges.Length)', () => {
  it('keeps Length changes, newest first; the one beyond pushes out the oldest; PLCs apart', async () => {
    const line1 = new ChangingTarget('line1', { mode: 'Real' });
    const line2 = new ChangingTarget('line2', { mode: 'Real' });
    const app = await buildTestApp({ targets: [line1, line2], settings: { ProgramChanges: { Length: 3 } } });
    const headers = bearer(await mintToken());
    const versions = async (plcId: string): Promise<Array<number | null>> => {
      const res = await app.inject({ url: `/api/admin/plcs/${plcId}/program-changes`, headers });
      assert.equal(res.statusCode, 200, res.body);
      return res
        .json<{ data: { items: Array<{ newSymbolVersion: number | null }> } }>()
        .data.items.map((i) => i.newSymbolVersion);
    };
    try {
      assert.deepEqual(await versions('line1'), []);
      for (const v of [2, 3, 4]) line1.download(v);
      assert.deepEqual(await versions('line1'), [4, 3, 2], 'exactly Length');
      line1.download(5);
      assert.deepEqual(await versions('line1'), [5, 4, 3], 'Length + 1 drops the oldest');
      line2.download(9);
      assert.deepEqual(await versions('line2'), [9]);
      assert.deepEqual(await versions('line1'), [5, 4, 3]);
    } finally {
      await app.close();
    }
  });

  it('defaults, and values that fail start-up by their path', () => {
    assert.deepEqual(loadConfig(writeSettings(minimalSettings), {}).settings.ProgramChanges, {
      Length: 50,
      MaxSymbolsPerChange: 1000,
    });
    const file = writeSettings({
      ...minimalSettings,
      ProgramChanges: { Length: 0, MaxSymbolsPerChange: 1.5 },
    });
    assert.deepEqual(
      new Set(problemsOf(() => loadConfig(file, {}))),
      new Set([
        'ProgramChanges.Length: must be at least 1',
        'ProgramChanges.MaxSymbolsPerChange: must be an integer',
      ]),
    );
  });
});
