// The ADS target answers like the in-process simulated target on a program with every supported type:
// WSTRING, 2-D arrays, nested structs, enums on DINT, methods with outputs and enum return values.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SimulatedPlc } from '../../../src/simulator/engine/index.ts';
import { SimulatedTarget } from '../../../src/targets/simulated/index.ts';
import type { PlcTarget } from '../../../src/targets/target.ts';
import { buildProgram } from '../../simulator/ads-server/fixture.ts';
import { makeTarget, startConnected, startPlant, type Plant } from './harness.ts';

describe('ADS target: parity with the simulated target', () => {
  let plant: Plant;
  let ads: PlcTarget;
  let sim: SimulatedTarget;

  before(async () => {
    const plc = new SimulatedPlc(buildProgram());
    plant = await startPlant(plc);
    ads = makeTarget(plant.port, { TimeoutMs: 3000 });
    sim = new SimulatedTarget('sim', 'Sim', plc);
    await Promise.all([startConnected(ads), sim.start()]);
  });
  after(async () => {
    await ads.close();
    await sim.close();
    await plant.stop();
  });

  it('same symbol tree and the same value for every symbol', async () => {
    assert.deepEqual(await ads.symbols(), await sim.symbols());
    const paths = plant.plc.program.symbols.map((s) => s.name);
    const [a, s] = await Promise.all([ads.readMany(paths), sim.readMany(paths)]);
    const strip = (items: typeof a) => items.map((i) => ('value' in i ? [i.symbol, i.value, i.typeName] : i));
    assert.deepEqual(strip(a), strip(s));
  });

  it('same results for method calls with outputs and enum return values', async () => {
    const r1 = await ads.invoke('GVL.fbAlarms', 'AcknowledgeAlarm', { sKey: 'K-1' });
    assert.deepEqual(r1, { returnValue: true, outParameters: { nCount: 1 } });
    const r2 = await sim.invoke('GVL.fbAlarms', 'AcknowledgeAlarm', ['K-2']);
    assert.deepEqual(r2, { returnValue: true, outParameters: { nCount: 2 } });
    assert.equal((await ads.read('GVL.fbAlarms.sLastKey')).value, 'K-2');
    assert.deepEqual(await ads.invoke('GVL.fbAlarms', 'Lookup', [1]), {
      returnValue: 0,
      outParameters: {},
      returnMember: 'SUCCESS',
    });
    assert.deepEqual(
      await ads.invoke('GVL.fbAlarms', 'Lookup', [2]),
      await sim.invoke('GVL.fbAlarms', 'Lookup', [2]),
    );
  });

  it('same writes: wide strings, 2-D arrays, arrays of structs by element', async () => {
    await ads.write('MAIN.wsText', 'Größe Ω');
    assert.equal((await sim.read('MAIN.wsText')).value, 'Größe Ω');
    await ads.write('MAIN.aGrid', [
      [9, 8, 7],
      [6, 5, 4],
    ]);
    assert.deepEqual((await sim.read('MAIN.aGrid[1,2]')).value, 5);
    assert.deepEqual((await ads.read('MAIN.aGrid[1,2]')).value, 5);
    await ads.write('MAIN.aAxes[2].pos', { y: 3.5 });
    assert.deepEqual((await sim.read('MAIN.aAxes[2].pos')).value, { x: 0, y: 3.5 });
    const tooLong = 'x'.repeat(21);
    await assert.rejects(ads.write('MAIN.wsText', tooLong), /do not fit/);
    await assert.rejects(sim.write('MAIN.wsText', tooLong), /do not fit/);
  });
});
