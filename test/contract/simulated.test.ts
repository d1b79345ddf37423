// The PlcTarget contract on the in-process simulated target.
import { createSimulatedTarget } from '../../src/targets/simulated/index.ts';
import { plcTargetContract } from './contract-suite.ts';
import { contractConfig, contractSettings } from './fixture.ts';

plcTargetContract('simulated target in process', async () => {
  const target = await createSimulatedTarget('plc1', contractSettings(), { config: contractConfig() });
  await target.start();
  return { target, plc: target.plc, cleanup: () => target.close() };
});
