// A scenario PLC whose scan is driven by a manual timer, behind a target of either driver (the Real one through
// a fault-injecting proxy to the simulator's ADS server), for the lifecycle and audit tests.
import type { ScenarioSimulation } from '../../../src/simulator/scenario/index.ts';
import type { SimulatedPlc } from '../../../src/simulator/engine/index.ts';
import { createAdsTarget } from '../../../src/targets/ads/index.ts';
import { SimulatedTarget } from '../../../src/targets/simulated/index.ts';
import type { PlcTarget } from '../../../src/targets/target.ts';
import { testConfig } from '../../helpers/config.ts';
import { ManualTimer, scenarioDoc, scenarioPlc } from '../../simulator/scenario/helpers.ts';
import { FaultProxy, fastTuning, reach, realSettings, startPlant } from '../../targets/ads/harness.ts';
import type { TestDriver } from '../variables/fixture.ts';

export interface Line {
  target: PlcTarget;
  plc: SimulatedPlc;
  simulation: ScenarioSimulation;
  timer: ManualTimer;
  /** The proxy in front of the ADS server (Real driver only). */
  proxy: FaultProxy | undefined;
  close(): Promise<void>;
}

export async function startLine(id: string, driver: TestDriver): Promise<Line> {
  const timer = new ManualTimer();
  const attached = scenarioPlc(scenarioDoc(), { timer });
  const { plc, simulation } = attached;
  if (driver === 'simulated') {
    const target = new SimulatedTarget(id, id, plc);
    target.simulation = simulation;
    await target.start();
    return {
      target,
      plc,
      simulation,
      timer,
      proxy: undefined,
      close: async () => {
        await target.close();
        attached.close();
      },
    };
  }
  const plant = await startPlant(plc);
  const proxy = new FaultProxy(plant.port);
  const config = testConfig({ AmsRouter: { NetId: '127.0.0.1.1.20', LocalAdsPort: 32750 } });
  const target = createAdsTarget(
    id,
    realSettings(await proxy.listen(), { TimeoutMs: 3000 }),
    { config },
    fastTuning,
  );
  await target.start();
  await reach(target, 'Connected');
  return {
    target,
    plc,
    simulation,
    timer,
    proxy,
    close: async () => {
      await target.close();
      await proxy.close();
      await plant.stop();
      attached.close();
    },
  };
}
