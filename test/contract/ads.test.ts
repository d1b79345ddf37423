// The PlcTarget contract on the ADS target (Mode: Real) connected over loopback TCP to the simulator's
// ADS server serving the same program.
import { createAdsServer } from '../../src/simulator/ads-server/server.ts';
import { createAdsTarget } from '../../src/targets/ads/index.ts';
import { createSimulatedTarget } from '../../src/targets/simulated/index.ts';
import { startConnected } from '../targets/ads/harness.ts';
import { plcTargetContract } from './contract-suite.ts';
import { contractConfig, contractSettings, WarningLog } from './fixture.ts';

plcTargetContract('ADS target over TCP to the simulator', async () => {
  const config = contractConfig();
  const simulated = await createSimulatedTarget('plc1-sim', contractSettings(), { config });
  const server = createAdsServer({ plc: simulated.plc, host: '127.0.0.1', port: 0, tickMs: 5 });
  const address = await server.listen();
  const warnings = new WarningLog();
  const target = createAdsTarget(
    'plc1',
    contractSettings({ Mode: 'Real', AmsNetId: address.netId, Address: '127.0.0.1', TcpPort: address.port }),
    { config, log: warnings },
  );
  // start() gives up waiting after its first attempt; on a busy machine the link may come up only after that.
  await startConnected(target);
  return {
    target,
    plc: simulated.plc,
    warnings,
    cleanup: async () => {
      await target.close();
      await server.close();
      await simulated.close();
    },
  };
});
