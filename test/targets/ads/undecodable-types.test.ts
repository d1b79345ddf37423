// No silent wrong values: a type the driver cannot interpret (here LDATE, and an enum on a 64-bit base, as
// the PLC declares them) answers TYPE_NOT_SUPPORTED naming the type, on read, write and subscribe; ADS
// states 17-19 have their names.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppError } from '../../../src/errors.ts';
import { ProgramBuilder, SimulatedPlc } from '../../../src/simulator/engine/index.ts';
import { AdsCommand } from '../../../src/plc/ads/constants.ts';
import { FaultProxy, makeTarget, reach, startPlant } from './harness.ts';

/**
 * The simulator serves LTIME and a UDINT-based enum; the proxy renames them in the uploads to LDATE and a
 * ULINT base (same lengths, so the entries stay well-formed), which the driver has no codec for.
 */
function program(): SimulatedPlc {
  const b = new ProgramBuilder();
  b.enum(
    'E_Big',
    [
      { name: 'eA', value: 1 },
      { name: 'eB', value: 2 },
    ],
    'UDINT',
  );
  b.struct('ST_Holder', [
    { name: 'nA', type: 'DINT' },
    { name: 'tAt', type: 'LTIME' },
  ]);
  b.symbol('MAIN.tStamp', 'LTIME');
  b.symbol('MAIN.eBig', 'E_Big', { value: 1 });
  b.symbol('MAIN.stHolder', 'ST_Holder', { value: { nA: 5 } });
  b.symbol('MAIN.nOk', 'DINT', { value: 3 });
  return new SimulatedPlc(b.build());
}

function rename(frame: Buffer, from: string, to: string): Buffer {
  const a = Buffer.from(from);
  const b = Buffer.from(to);
  for (let i = frame.indexOf(a); i >= 0; i = frame.indexOf(a, i + 1)) b.copy(frame, i);
  return frame;
}

const unsupported = (name: RegExp) => (e: unknown) => {
  assert.ok(e instanceof AppError, String(e));
  assert.equal(e.code, 'TYPE_NOT_SUPPORTED', e.message);
  assert.equal(e.status, 501);
  assert.match(e.message, name);
  return true;
};

describe('ADS target: types it cannot decode', () => {
  it('answer TYPE_NOT_SUPPORTED naming the type instead of {}', async () => {
    const plc = program();
    const plant = await startPlant(plc);
    const proxy = new FaultProxy(plant.port);
    proxy.answer = (frame) => rename(rename(frame, 'LTIME', 'LDATE'), 'UDINT', 'ULINT');
    const target = makeTarget(await proxy.listen(), { TimeoutMs: 3000 });
    try {
      await target.start();
      await reach(target, 'Connected');
      const tree = await target.symbols();
      assert.equal(tree.find((n) => n.instancePath === 'MAIN.tStamp')?.typeName, 'LDATE');
      await assert.rejects(target.read('MAIN.tStamp'), unsupported(/MAIN\.tStamp: its type LDATE/));
      await assert.rejects(target.read('MAIN.eBig'), unsupported(/E_Big/));
      await assert.rejects(target.read('MAIN.stHolder'), unsupported(/ST_Holder contains LDATE/));
      assert.equal((await target.read('MAIN.stHolder.nA')).value, 5);
      await assert.rejects(target.write('MAIN.tStamp', {}), unsupported(/LDATE/));
      await assert.rejects(target.write('MAIN.stHolder', { nA: 1 }), unsupported(/LDATE/));
      const items = await target.readMany(['MAIN.nOk', 'MAIN.eBig']);
      assert.deepEqual(items[0] && 'value' in items[0] ? items[0].value : undefined, 3);
      assert.equal(items[1] && 'error' in items[1] ? items[1].error.code : undefined, 'TYPE_NOT_SUPPORTED');
      await assert.rejects(
        target.subscribe('MAIN.tStamp', { cycleTimeMs: 10, onChange: () => undefined }),
        unsupported(/LDATE/),
      );
      assert.equal(plc.read('MAIN.stHolder.nA'), 5, 'nothing was written');
    } finally {
      await target.close();
      await proxy.close();
      await plant.stop();
    }
  });

  it('names ADS states 17, 18 and 19', async () => {
    const plant = await startPlant();
    const proxy = new FaultProxy(plant.port);
    let forced: number | undefined;
    // ReadState answers of the PLC runtime (source port 851): result u32, ADS state u16, device state u16.
    proxy.answer = (frame) => {
      const ams = frame.subarray(6);
      if (
        forced !== undefined &&
        ams.readUInt16LE(16) === AdsCommand.ReadState &&
        ams.readUInt16LE(14) === 851
      ) {
        ams.writeUInt16LE(forced, 36);
      }
      return frame;
    };
    const target = makeTarget(await proxy.listen(), { TimeoutMs: 3000 });
    try {
      await target.start();
      await reach(target, 'Connected');
      const names: string[] = [];
      for (const state of [17, 18, 19]) {
        forced = state;
        names.push((await target.deviceState()).state);
      }
      assert.deepEqual(names, ['Stopping', 'Incompatible', 'Exception']);
    } finally {
      await target.close();
      await proxy.close();
      await plant.stop();
    }
  });
});
