// The EtherCAT test rig: the gateway on a real socket over one PLC `bus` running the two-master scenario in
// ./bus, either the in-process simulated target or a Real target talking ADS to sim-ads serving it.
// The scenario advances only by steps; readings and events are waited for, never slept on.
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../../../src/config/schema.ts';
import { createAdsServer, type AdsServer } from '../../../src/simulator/ads-server/server.ts';
import { createAdsTarget } from '../../../src/targets/ads/index.ts';
import { createSimulatedTarget, type SimulatedTarget } from '../../../src/targets/simulated/index.ts';
import type { PlcTarget } from '../../../src/targets/target.ts';
import { buildTestApp } from '../../helpers/app.ts';
import { testConfig } from '../../helpers/config.ts';
import { bearer, mintToken } from '../../helpers/tokens.ts';

export type Driver = 'simulated' | 'real';
export const drivers: readonly Driver[] = ['simulated', 'real'];

/** A JSON answer; `data` is whatever the route answers (tests assert its shape). */
export interface Reply {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- assertions read the payload freely
  body: { data: any; error: { code: string; message: string } | null };
}

export interface BusRig {
  driver: Driver;
  app: FastifyInstance;
  base: string;
  target: PlcTarget;
  /** The simulated PLC behind the target (the same one sim-ads serves for a Real target). */
  simulated: SimulatedTarget;
  /** A token with every role and scope the routes need. */
  token: string;
  /** Runs scans of the scenario. */
  step(cycles: number): void;
  get(path: string): Promise<Reply>;
  post(path: string): Promise<Reply>;
  close(): Promise<void>;
}

export interface RigOptions {
  features?: Record<string, boolean>;
  etherCat?: Record<string, unknown>;
}

const simulatedSettings = {
  Mode: 'Simulated',
  Scenario: 'test/features/ethercat/bus',
  ScenarioAutoStart: false,
};

export async function startBus(driver: Driver, options: RigOptions = {}): Promise<BusRig> {
  const features = { EtherCatDiagnostics: true, Notifications: true, ...options.features };
  const etherCat = { PollingIntervalMs: 20, CrcErrorThreshold: 100, ...options.etherCat };
  const scenarioConfig = testConfig({ PlcTargets: { bus: { ...simulatedSettings, EtherCat: etherCat } } });
  const scenarioSettings = scenarioConfig.settings.PlcTargets.bus;
  assert.ok(scenarioSettings);
  const simulated = await createSimulatedTarget('bus', scenarioSettings, { config: scenarioConfig });
  await simulated.start();
  let server: AdsServer | undefined;
  let target: PlcTarget = simulated;
  let config: Config = testConfig({
    Features: features,
    PlcTargets: { bus: { ...simulatedSettings, EtherCat: etherCat } },
  });
  if (driver === 'real') {
    server = createAdsServer({ plc: simulated.plc, host: '127.0.0.1', port: 0, tickMs: 5 });
    const address = await server.listen();
    config = testConfig({
      Features: features,
      AmsRouter: { NetId: '127.0.0.1.1.20', LocalAdsPort: 32750 },
      PlcTargets: {
        bus: {
          Mode: 'Real',
          AmsNetId: address.netId,
          Address: '127.0.0.1',
          TcpPort: address.port,
          TimeoutMs: 3000,
          EtherCat: etherCat,
        },
      },
    });
    const settings = config.settings.PlcTargets.bus;
    assert.ok(settings);
    target = createAdsTarget('bus', settings, { config }, { backoff: { baseMs: 10, capMs: 100 } });
    await target.start();
    await new Promise<void>((resolve) => {
      if (target.connectionState() === 'Connected') return resolve();
      const off = target.onConnectionState((s) => {
        if (s === 'Connected') {
          off();
          resolve();
        }
      });
    });
  }
  const app = await buildTestApp({ config, targets: [target] });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  const base = `http://127.0.0.1:${port}`;
  const token = await mintToken({ role: 'admin', scope: 'ads:read ads:write ads:lifecycle' });
  const call = async (method: string, path: string) => {
    const res = await fetch(`${base}${path}`, { method, headers: bearer(token) });
    return { status: res.status, body: (await res.json()) as Reply['body'] };
  };
  return {
    driver,
    app,
    base,
    target,
    simulated,
    token,
    step: (cycles) => void simulated.simulation?.step(cycles),
    get: (path) => call('GET', path),
    post: (path) => call('POST', path),
    close: async () => {
      await app.close();
      if (target !== simulated) await target.close();
      await server?.close();
      await simulated.close();
    },
  };
}
