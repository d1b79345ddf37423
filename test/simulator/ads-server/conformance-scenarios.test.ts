// ads-client against the example scenarios served over ADS: the gvl-hmi/1 program as the gateway builds it,
// uploaded and read as the engine holds it, and the alarm FB acknowledged through invokeRpcMethod.
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { StructType } from '../../../src/plc/types.ts';
import { createSimulatedTarget, type SimulatedTarget } from '../../../src/targets/simulated/index.ts';
import { testConfig } from '../../helpers/config.ts';
import { startHarness, type Harness } from './fixture.ts';

interface HmiAxis {
  sId: string;
  rPosition: number;
  rTargetPos: number;
  bEnabled: boolean;
}

for (const scenario of ['small', 'line16']) {
  describe(`ADS server on the example scenario ${scenario} (ads-client)`, () => {
    let target: SimulatedTarget;
    let h: Harness;
    before(async () => {
      const config = testConfig({
        PlcTargets: { sim: { Mode: 'Simulated', Scenario: resolve('examples/scenarios', scenario) } },
      });
      target = await createSimulatedTarget('sim', config.settings.PlcTargets.sim!, { config });
      await target.start();
      h = await startHarness({ plc: target.plc });
    });
    after(async () => {
      await h.close();
      await target.close();
    });

    it('uploads every symbol with the engine offsets, sizes and types', async () => {
      const client = await h.connect();
      const symbols = await client.getSymbols();
      const engine = target.plc.program.symbols;
      assert.equal(Object.keys(symbols).length, engine.length);
      for (const s of engine) {
        const got = symbols[s.name.toLowerCase()];
        assert.ok(got, s.name);
        assert.deepEqual(
          [got.name, got.type, got.indexOffset, got.size],
          [s.name, s.type.name, s.offset, s.type.size],
        );
      }
    });

    it('builds ST_HmiAxis, ST_ErrorEntry and E_ErrorType exactly as the engine declares them', async () => {
      const client = await h.connect();
      for (const name of ['ST_HmiAxis', 'ST_ErrorEntry']) {
        const engine = target.plc.program.types.resolve(name) as StructType;
        const got = await client.getDataType(name);
        assert.equal(got.size, engine.size, name);
        assert.deepEqual(
          got.subItems.map((m) => [m.name, m.offset, m.size]),
          engine.members.map((m) => [m.name, m.offset, m.type.size]),
          name,
        );
      }
      const entry = await client.getDataType('ST_ErrorEntry');
      const errorType = entry.subItems.find((m) => m.name === 'ErrorType');
      assert.deepEqual(
        errorType?.enumInfos.map((e) => [e.name, e.value]),
        [
          ['NONE', 0],
          ['INFO', 1],
          ['WARNING', 2],
          ['ERROR', 3],
        ],
      );
      const fb = await client.getDataType(target.plc.program.resolve('GVL_HMI.fbAlarms').type.name);
      assert.deepEqual(
        fb.rpcMethods.map((m) => m.name),
        ['AcknowledgeAlarm'],
      );
    });

    it('reads the header and the whole axes array as the engine holds them', async () => {
      const client = await h.connect();
      const header = (await client.readValue<{ sContract: string; nAxisCount: number }>('GVL_HMI.stHeader'))
        .value;
      assert.equal(header.sContract, 'gvl-hmi/1');
      const axes = (await client.readValue<HmiAxis[]>('GVL_HMI.aAxes')).value;
      const engineAxes = target.plc.read('GVL_HMI.aAxes') as unknown as HmiAxis[];
      assert.equal(axes.length, engineAxes.length);
      assert.ok(header.nAxisCount >= 1);
      for (let i = 0; i < header.nAxisCount; i++) {
        const [got, want] = [axes[i]!, engineAxes[i]!];
        assert.deepEqual(
          [got.sId, got.rPosition, got.rTargetPos, got.bEnabled],
          [want.sId, want.rPosition, want.rTargetPos, want.bEnabled],
        );
      }
    });

    it('acknowledges an outstanding alarm through invokeRpcMethod, once', async () => {
      const client = await h.connect();
      const slot = 'GVL_HMI.fbAlarms.aAlarms[2]';
      target.plc.write(slot, {
        sKey: 'ADS_TEST_ALARM',
        Id: 'conveyor',
        ErrorCode: 4711,
        ErrorType: 'ERROR',
        IsActive: true,
        NeedsAck: true,
        IsAcked: false,
      });
      const first = await client.invokeRpcMethod('GVL_HMI.fbAlarms', 'AcknowledgeAlarm', {
        sKey: 'ADS_TEST_ALARM',
      });
      assert.equal(first.returnValue, true);
      assert.equal(target.plc.read(`${slot}.IsAcked`), true);
      const again = await client.invokeRpcMethod('GVL_HMI.fbAlarms', 'AcknowledgeAlarm', {
        sKey: 'ADS_TEST_ALARM',
      });
      assert.equal(again.returnValue, false, 'already acknowledged');
    });
  });
}
