// What the ADS target reports of a program change: a download applied by the ADS server while connected (a
// struct that grew keeps its name but not its size: typeChanged, streaming on in the new shape), and a download
// made while the gateway was away, found at reconnecting by the other symbol version.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ProgramBuilder, SimulatedPlc, type Program } from '../../../src/simulator/engine/index.ts';
import type { ChangeEvent, ProgramChange, TypeChangedNotice } from '../../../src/targets/target.ts';
import { Signal } from '../../helpers/signal.ts';
import { FaultProxy, makeTarget, reach, startPlant } from './harness.ts';

function layout(grown: boolean, withGone = true): Program {
  const b = new ProgramBuilder();
  b.struct('ST_Pos', [{ name: 'nX', type: 'DINT' }, ...(grown ? [{ name: 'nY', type: 'DINT' }] : [])]);
  b.symbol('MAIN.nA', 'DINT', { value: 1 });
  b.symbol('MAIN.stPos', 'ST_Pos', { value: grown ? { nX: 3, nY: 4 } : { nX: 3 } });
  if (withGone) b.symbol('MAIN.nGone', 'DINT', { value: 5 });
  return b.build();
}

/** Everything a subscription and the target's listener are told, with a wait on it. */
function recorder() {
  const signal = new Signal();
  const changes: ChangeEvent[] = [];
  const notices: TypeChangedNotice[] = [];
  const errors: Array<{ symbol: string; code: string }> = [];
  const reports: ProgramChange[] = [];
  const push =
    <T>(list: T[]) =>
    (item: T): void => {
      list.push(item);
      signal.notify();
    };
  return {
    changes,
    notices,
    errors,
    reports,
    options: {
      cycleTimeMs: 10,
      onChange: push(changes),
      onError: push(errors),
      onTypeChanged: push(notices),
    },
    report: push(reports),
    until: <T>(probe: () => T | undefined, what: string): Promise<T> =>
      signal.until(probe, 10_000, () => what),
  };
}

describe('ADS target: program-change report', () => {
  it('server.download while connected: a grown struct is typeChanged and streams on; the report lists it', async () => {
    const plc = new SimulatedPlc(layout(false));
    const plant = await startPlant(plc);
    const target = makeTarget(plant.port, { TimeoutMs: 3000 });
    const r = recorder();
    try {
      await target.start();
      await reach(target, 'Connected');
      target.onProgramChange(r.report);
      const pos = await target.subscribe('main.stPos', r.options);
      const keep = await target.subscribe('MAIN.nA', r.options);
      await r.until(() => r.changes.find((c) => c.symbol === 'main.stPos'), 'first value');

      assert.equal(plant.server.download(layout(true)), 2);

      const report = await r.until(() => r.reports[0], 'the report');
      assert.deepEqual(
        [report.kind, report.oldSymbolVersion, report.newSymbolVersion, report.affectedCount],
        ['download', 1, 2, 1],
      );
      assert.deepEqual(
        report.affected.map((a) => [a.symbol, a.impact, a.before.type, a.before.size, a.after?.size]),
        [['MAIN.stPos', 'typeChanged', 'ST_Pos', 4, 8]],
      );
      assert.deepEqual(r.notices, [
        { symbol: 'main.stPos', type: 'ST_Pos', size: 8, previousType: 'ST_Pos', previousSize: 4 },
      ]);
      const grown = await r.until(
        () => r.changes.find((c) => c.symbol === 'main.stPos' && JSON.stringify(c.value).includes('nY')),
        'a value in the new shape',
      );
      assert.deepEqual(grown.value, { nX: 3, nY: 4 });
      await target.write('MAIN.nA', 42);
      await r.until(() => r.changes.find((c) => c.symbol === 'MAIN.nA' && c.value === 42), 'nA streams on');
      assert.deepEqual(r.errors, []);
      await pos.close();
      await keep.close();
    } finally {
      await target.close();
      await plant.stop();
    }
  });

  it('a download made while disconnected is reported at reconnecting; the vanished symbol is invalidated', async () => {
    const plc = new SimulatedPlc(layout(false));
    const plant = await startPlant(plc);
    const target = makeTarget(plant.port, { TimeoutMs: 3000 });
    const r = recorder();
    try {
      await target.start();
      await reach(target, 'Connected');
      target.onProgramChange(r.report);
      await target.subscribe('MAIN.nGone', r.options);
      await target.subscribe('MAIN.nA', r.options);
      await r.until(() => r.changes.find((c) => c.symbol === 'MAIN.nGone'), 'first value');
      await plant.stop();
      await reach(target, 'Disconnected');
      plc.load(layout(false, false));
      await plant.restart();

      const report = await r.until(() => r.reports[0], 'the report');
      assert.deepEqual([report.kind, report.oldSymbolVersion, report.newSymbolVersion], ['download', 1, 2]);
      assert.deepEqual(
        report.affected.map((a) => [a.symbol, a.impact]),
        [['MAIN.nGone', 'vanished']],
      );
      assert.deepEqual(
        r.errors.map((e) => [e.symbol, e.code]),
        [['MAIN.nGone', 'SYMBOL_INVALIDATED']],
      );
      await target.write('MAIN.nA', 8);
      await r.until(() => r.changes.find((c) => c.symbol === 'MAIN.nA' && c.value === 8), 'nA streams on');
    } finally {
      await target.close();
      await plant.stop();
    }
  });

  it('reconnecting to the same program reports nothing', async () => {
    const plc = new SimulatedPlc(layout(false));
    const plant = await startPlant(plc);
    const target = makeTarget(plant.port, { TimeoutMs: 3000 });
    const r = recorder();
    try {
      await target.start();
      await reach(target, 'Connected');
      target.onProgramChange(r.report);
      await target.subscribe('MAIN.nA', r.options);
      await plant.stop();
      await reach(target, 'Disconnected');
      await plant.restart();
      await reach(target, 'Connected');
      await target.write('MAIN.nA', 9);
      await r.until(() => r.changes.find((c) => c.value === 9), 'nA streams on');
      assert.deepEqual(r.reports, []);
    } finally {
      await target.close();
      await plant.stop();
    }
  });

  it('a symbol retyped to a type the gateway cannot decode is invalidated, and listed as typeChanged', async () => {
    const before = new ProgramBuilder();
    before.symbol('MAIN.tWhen', 'DINT', { value: 1 });
    before.symbol('MAIN.nA', 'DINT', { value: 2 });
    const after = new ProgramBuilder();
    after.symbol('MAIN.tWhen', 'LTIME');
    after.symbol('MAIN.nA', 'DINT', { value: 2 });
    const plant = await startPlant(new SimulatedPlc(before.build()));
    // The simulator serves LTIME; renamed in the uploads it is LDATE, which the driver has no codec for.
    const proxy = new FaultProxy(plant.port);
    proxy.answer = (frame) => {
      const from = Buffer.from('LTIME');
      for (let i = frame.indexOf(from); i >= 0; i = frame.indexOf(from, i + 1))
        Buffer.from('LDATE').copy(frame, i);
      return frame;
    };
    const target = makeTarget(await proxy.listen(), { TimeoutMs: 3000 });
    const r = recorder();
    try {
      await target.start();
      await reach(target, 'Connected');
      target.onProgramChange(r.report);
      await target.subscribe('MAIN.tWhen', r.options);
      await r.until(() => r.changes[0], 'first value');
      plant.server.download(after.build());
      const report = await r.until(() => r.reports[0], 'the report');
      assert.deepEqual(
        report.affected.map((a) => [a.symbol, a.impact, a.before.type, a.after?.type]),
        [['MAIN.tWhen', 'typeChanged', 'DINT', 'LDATE']],
      );
      assert.deepEqual(r.notices, []);
      assert.deepEqual(
        r.errors.map((e) => [e.symbol, e.code]),
        [['MAIN.tWhen', 'SYMBOL_INVALIDATED']],
      );
    } finally {
      await target.close();
      await proxy.close();
      await plant.stop();
    }
  });
});
