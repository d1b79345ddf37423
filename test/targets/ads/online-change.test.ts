// Online changes are followed for the life of the connection: after a program download and after each
// online change, reads and writes reach the symbols where they are now.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ProgramBuilder, SimulatedPlc, type Program } from '../../../src/simulator/engine/index.ts';
import type { ProgramChange } from '../../../src/targets/target.ts';
import { eventually, makeTarget, onlineChangeCounter, reach, startPlant } from './harness.ts';

/** The counter first (it keeps its place, as TwinCAT's does); `extra` symbols move every later one. */
function layout(extra: number): Program {
  const b = new ProgramBuilder();
  b.symbol(onlineChangeCounter, 'UDINT', { value: 0 });
  for (let i = 0; i < extra; i++) b.symbol(`MAIN.aPad${i}`, 'LREAL', { value: i });
  b.symbol('MAIN.nA', 'DINT', { value: 1 });
  b.symbol('MAIN.nB', 'DINT', { value: 2 });
  return b.build();
}

/**
 * A PLC that can change its program online: the new layout replaces the old one, but the symbol version
 * stays and notifications keep running, as on TwinCAT; the counter then counts the change.
 */
class OnlineChangingPlc extends SimulatedPlc {
  #online = false;
  /** The version still answered after online changes; a real download ends it. */
  #pinned: number | undefined;
  #changes = 0;

  override get symbolVersion(): number {
    return this.#pinned ?? super.symbolVersion;
  }

  override load(program: Program): void {
    if (!this.#online) this.#pinned = undefined;
    super.load(program);
  }

  override onLoad(listener: (program: Program, symbolVersion: number) => void): () => void {
    return super.onLoad((program, version) => {
      if (!this.#online) listener(program, version);
    });
  }

  /** The counter's notification is watched by path, so it survives the change (raw watches would not). */
  override watch(
    ...[target, callback, options]: Parameters<SimulatedPlc['watch']>
  ): ReturnType<SimulatedPlc['watch']> {
    const counter = this.resolve(onlineChangeCounter);
    const isCounter =
      typeof target !== 'string' && target.offset === counter.offset && target.size === counter.size;
    return super.watch(isCounter ? onlineChangeCounter : target, callback, options);
  }

  onlineChange(program: Program): void {
    this.#pinned = this.symbolVersion;
    this.#online = true;
    try {
      this.load(program);
    } finally {
      this.#online = false;
    }
    this.write(onlineChangeCounter, ++this.#changes);
  }
}

describe('ADS target: online changes', () => {
  it('download, then two online changes: a read and a write of a moved symbol hit its new offset', async () => {
    const plc = new OnlineChangingPlc(layout(0));
    const plant = await startPlant(plc);
    const target = makeTarget(plant.port, { TimeoutMs: 3000 });
    try {
      await target.start();
      await reach(target, 'Connected');
      assert.equal((await target.read('MAIN.nA')).value, 1);
      await eventually(() => (target.diagnostics.onlineChangeWatch ? true : undefined), 5000, 'watch armed');

      plc.load(layout(1));
      plc.write('MAIN.nA', 11);
      await eventually(
        async () => ((await target.read('MAIN.nA')).value === 11 ? true : undefined),
        5000,
        'the download followed',
      );
      await eventually(
        () => (target.diagnostics.onlineChangeWatch ? true : undefined),
        5000,
        'watch re-armed',
      );

      for (const [extra, value] of [
        [3, 21],
        [6, 31],
      ] as const) {
        const seen = target.diagnostics.onlineChanges;
        plc.onlineChange(layout(extra));
        plc.write('MAIN.nA', value);
        await eventually(
          () => (target.diagnostics.onlineChanges > seen ? true : undefined),
          5000,
          `online change to ${extra} pads seen`,
        );
        assert.equal((await target.read('MAIN.nA')).value, value);
      }
      await target.write('MAIN.nB', 42);
      assert.equal(plc.read('MAIN.nB'), 42);
      assert.equal(plc.read('MAIN.nA'), 31);
      assert.equal(plc.read('MAIN.aPad5'), 5, 'the old offset of MAIN.nB was not written');
    } finally {
      await target.close();
      await plant.stop();
    }
  });

  it('an online change that moves a subscribed symbol is reported as moved; its subscription streams on', async () => {
    const plc = new OnlineChangingPlc(layout(0));
    const plant = await startPlant(plc);
    const target = makeTarget(plant.port, { TimeoutMs: 3000 });
    const values: unknown[] = [];
    const reports: ProgramChange[] = [];
    try {
      await target.start();
      await reach(target, 'Connected');
      target.onProgramChange((c) => reports.push(c));
      await target.subscribe('MAIN.nB', { cycleTimeMs: 10, onChange: (e) => values.push(e.value) });
      await eventually(() => (target.diagnostics.onlineChangeWatch ? true : undefined), 5000, 'watch armed');
      const before = plc.resolve('MAIN.nB').offset;
      plc.onlineChange(layout(2));
      const report = await eventually(() => reports[0], 5000, 'the report');
      assert.deepEqual(
        [report.kind, report.oldSymbolVersion, report.newSymbolVersion],
        ['onlineChange', 1, 1],
      );
      assert.deepEqual(
        report.affected.map((a) => [a.symbol, a.impact, a.before.indexOffset, a.after?.indexOffset]),
        [['MAIN.nB', 'moved', before, plc.resolve('MAIN.nB').offset]],
      );
      plc.write('MAIN.nB', 64);
      await eventually(() => (values.includes(64) ? true : undefined), 5000, 'the moved symbol streams on');
    } finally {
      await target.close();
      await plant.stop();
    }
  });
});
