// Partial struct and array writes on a Real target send only the bytes of what they name: no read first
// (a failing read cannot zero the omitted members), one request for one range, one sum write for several.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ProgramBuilder, SimulatedPlc } from '../../../src/simulator/engine/index.ts';
import { AdsCommand, IndexGroup } from '../../../src/plc/ads/constants.ts';
import { FaultProxy, makeTarget, reach, startPlant } from './harness.ts';

const { Read, Write, ReadWrite } = AdsCommand;
const { SumRead, SumWrite, PlcMemory: Memory } = IndexGroup;
/** Read by ads-client's connection check (system state), not by writes. */
const SystemState = IndexGroup.SystemExtendedState;

function structProgram(): SimulatedPlc {
  const b = new ProgramBuilder();
  b.struct('ST_Drive', [
    { name: 'nSet', type: 'DINT' },
    { name: 'nOther', type: 'DINT' },
    { name: 'sName', type: 'STRING(15)' },
    { name: 'fLimit', type: 'LREAL' },
  ]);
  b.symbol('MAIN.stA', 'ST_Drive', { value: { nSet: 1, nOther: 7, sName: 'a', fLimit: 1.5 } });
  b.symbol('MAIN.stB', 'ST_Drive', { value: { nSet: 2, nOther: 8, sName: 'b', fLimit: 2.5 } });
  b.symbol('MAIN.aDrives', 'ARRAY [0..2] OF ST_Drive', {
    value: [0, 1, 2].map((i) => ({ nSet: i, nOther: 10 + i, sName: `d${i}`, fLimit: i })),
  });
  return new SimulatedPlc(b.build());
}

describe('ADS target: partial writes', () => {
  it('write only the ranges sent, never reading first, even when every read fails', async () => {
    const plc = structProgram();
    const plant = await startPlant(plc);
    const proxy = new FaultProxy(plant.port);
    const target = makeTarget(await proxy.listen(), { TimeoutMs: 3000 });
    const requests: Array<[number, number]> = [];
    try {
      await target.start();
      await reach(target, 'Connected');
      await target.symbols();
      proxy.fault = ({ command, indexGroup }) => {
        if (indexGroup === SystemState) return undefined;
        requests.push([command, indexGroup]);
        if (command === Read || (command === ReadWrite && indexGroup === SumRead)) return 1796;
        return undefined;
      };
      await target.write('MAIN.stA', { nSet: 5 });
      assert.deepEqual(requests, [[Write, Memory]], 'one plain write of one range');
      assert.deepEqual(plc.read('MAIN.stA'), { nSet: 5, nOther: 7, sName: 'a', fLimit: 1.5 });

      requests.length = 0;
      await target.write('MAIN.stA', { nSet: 6, fLimit: 9.5 });
      assert.deepEqual(requests, [[ReadWrite, SumWrite]], 'two ranges: one sum write');
      assert.deepEqual(plc.read('MAIN.stA'), { nSet: 6, nOther: 7, sName: 'a', fLimit: 9.5 });

      requests.length = 0;
      const results = await target.writeMany([
        { symbol: 'MAIN.stB', value: { nOther: 80 } },
        { symbol: 'MAIN.aDrives', value: [{ nSet: 100 }, {}, { sName: 'z' }] },
        { symbol: 'MAIN.aDrives[1]', value: { fLimit: 4 } },
      ]);
      assert.deepEqual(results, [
        { symbol: 'MAIN.stB' },
        { symbol: 'MAIN.aDrives' },
        { symbol: 'MAIN.aDrives[1]' },
      ]);
      assert.deepEqual(requests, [[ReadWrite, SumWrite]], 'a batch is one sum write, no read');
      assert.deepEqual(plc.read('MAIN.stB'), { nSet: 2, nOther: 80, sName: 'b', fLimit: 2.5 });
      assert.deepEqual(plc.read('MAIN.aDrives'), [
        { nSet: 100, nOther: 10, sName: 'd0', fLimit: 0 },
        { nSet: 1, nOther: 11, sName: 'd1', fLimit: 4 },
        { nSet: 2, nOther: 12, sName: 'z', fLimit: 2 },
      ]);
    } finally {
      await target.close();
      await proxy.close();
      await plant.stop();
    }
  });
});
