// The PlcTarget contract on the in-process simulated target.
import { createSimulatedTarget } from '../../src/targets/simulated/index.ts';
import { plcTargetContract } from './contract-suite.ts';
import { contractConfig, contractSettings, WarningLog } from './fixture.ts';

plcTargetContract('simulated target in process', async () => {
  const warnings = new WarningLog();
  const target = await createSimulatedTarget('plc1', contractSettings(), {
    config: contractConfig(),
    log: warnings,
  });
  await target.start();
  return { target, plc: target.plc, warnings, cleanup: () => target.close() };
});
