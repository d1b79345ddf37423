// sim/step through HTTP reaches every on-change subscriber with the state the step ended on: notification SSE, the
// notification hub (stock @microsoft/signalr client) and the alarm stream, on both drivers. The PLC clock stands
// still, as it nearly does while a step runs its scans back to back, so nothing but the step itself can notify.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { HttpTransportType, HubConnectionBuilder, LogLevel } from '@microsoft/signalr';
import type { FastifyInstance } from 'fastify';
import { createAdsTarget } from '../../../src/targets/ads/index.ts';
import { createSimulatedTarget, type SimulatedTarget } from '../../../src/targets/simulated/index.ts';
import type { PlcTarget } from '../../../src/targets/target.ts';
import { buildTestApp } from '../../helpers/app.ts';
import { testConfig } from '../../helpers/config.ts';
import { Signal } from '../../helpers/signal.ts';
import { bearer, mintToken } from '../../helpers/tokens.ts';
import { contractSettings } from '../../contract/fixture.ts';
import { RawSse, waitLimitMs, type SseEvent } from '../notifications/clients.ts';
import { realSettings, reach, startPlant, type Plant } from '../../targets/ads/harness.ts';
import { testDrivers, type TestDriver } from '../variables/fixture.ts';
import { scenarioDoc, writeScenario } from '../../simulator/scenario/helpers.ts';

// One axis moving every scan, and an alarm the script raises in the middle of a five-scan step.
const scenario = writeScenario(
  scenarioDoc({
    scanMs: 100,
    alarms: [{ key: 'JAM', equipment: 'cell', errorCode: 7, errorType: 'ERROR', needsAck: true }],
    script: [{ atCycle: 3, raise: 'JAM' }],
  }),
);
const position = 'GVL_HMI.aAxes[1].rPosition';
const frozen = (): number => Date.UTC(2026, 10, 28, 8, 0, 0);

interface Rig {
  app: FastifyInstance;
  base: string;
  token: string;
  /** The plcId sim/step drives: the PLC itself, or (Real driver) the in-process twin sim-ads serves. */
  simId: string;
  close(): Promise<void>;
}

/** `line1` watched by the gateway: the simulated target itself, or a Real target over ADS to sim-ads. */
async function startRig(driver: TestDriver): Promise<Rig> {
  const plantId = driver === 'real' ? 'plant' : 'line1';
  const plant: SimulatedTarget = await createSimulatedTarget(
    plantId,
    contractSettings({ InitialValues: {}, Scenario: scenario }),
    { config: testConfig(), clock: frozen },
  );
  await plant.start();
  let server: Plant | undefined;
  let targets: PlcTarget[] = [plant];
  if (driver === 'real') {
    server = await startPlant(plant.plc);
    const config = testConfig({ AmsRouter: { NetId: '127.0.0.1.1.20', LocalAdsPort: 32750 } });
    const line1 = createAdsTarget('line1', realSettings(server.port, { TimeoutMs: 3000 }), { config });
    await line1.start();
    await reach(line1, 'Connected', 10_000);
    targets = [line1, plant];
  }
  const app = await buildTestApp({
    targets,
    settings: {
      Features: { Alarms: true, Simulation: true, Notifications: true, Variables: true },
      PlcAlarms: { Targets: { line1: { SymbolPath: 'GVL_HMI.fbAlarms.aAlarms', CycleTimeMs: 100 } } },
      RateLimiting: { NotificationConnections: 1000 },
    },
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    app,
    base: `http://127.0.0.1:${port}`,
    token: await mintToken(),
    simId: plantId,
    close: async () => {
      await app.close();
      for (const t of targets) await t.close();
      await server?.stop();
    },
  };
}

for (const driver of testDrivers) {
  describe(`sim/step reaches stream subscribers with the step's end state (${driver} driver)`, () => {
    let rig: Rig;
    before(async () => {
      rig = await startRig(driver);
    });
    after(async () => {
      await rig.close();
    });

    const step = async (cycles: number): Promise<void> => {
      const res = await rig.app.inject({
        method: 'POST',
        url: `/api/plcs/${rig.simId}/sim/step?cycles=${cycles}`,
        headers: bearer(rig.token),
      });
      assert.equal(res.statusCode, 200, res.body);
    };
    const reset = async (): Promise<void> => {
      const res = await rig.app.inject({
        method: 'POST',
        url: `/api/plcs/${rig.simId}/sim/reset`,
        headers: bearer(rig.token),
      });
      assert.equal(res.statusCode, 200, res.body);
    };
    /** What `GET variables` says now: the value every stream must end on. */
    const current = async (): Promise<number> => {
      const res = await rig.app.inject({
        url: `/api/plcs/line1/variables/${encodeURIComponent(position)}`,
        headers: bearer(rig.token),
      });
      return res.json<{ data: { value: number } }>().data.value;
    };
    const changeTo = (value: number) => (e: SseEvent) =>
      e.event === 'change' && (e.data as { value: unknown }).value === value;

    test('SSE: after a 5-scan step the last change is the value GET variables answers', async () => {
      await reset();
      const url = `${rig.base}/api/plcs/line1/notifications/sse?symbols=${encodeURIComponent(position)}`;
      const sse = await new RawSse(url, bearer(rig.token)).opened();
      try {
        await sse.next(changeTo(await current()));
        await step(5);
        const end = await current();
        assert.ok(end > 0, `the axis moved (${end})`);
        await sse.next(changeTo(end));
        // A single-scan step right after it (no PLC time between them) is delivered too: N = 1 and N = 5.
        await step(1);
        const next = await current();
        assert.notEqual(next, end);
        await sse.next(changeTo(next));
      } finally {
        sse.close();
      }
    });

    test('hub: VariableChanged carries the end state of the step', async () => {
      await reset();
      const received: unknown[] = [];
      const signal = new Signal();
      const connection = new HubConnectionBuilder()
        .withUrl(`${rig.base}/api/plcs/line1/notifications/ws`, {
          accessTokenFactory: () => rig.token,
          transport: HttpTransportType.WebSockets,
        })
        .configureLogging(LogLevel.None)
        .build();
      connection.on('VariableChanged', (arg: { value: unknown }) => {
        received.push(arg.value);
        signal.notify();
      });
      const seen = (value: number) =>
        signal.until(
          () => received.includes(value),
          waitLimitMs,
          () => `VariableChanged ${value} after ${JSON.stringify(received)}`,
        );
      await connection.start();
      try {
        await connection.invoke('Subscribe', [position]);
        await seen(await current());
        await step(7);
        const end = await current();
        await seen(end);
        assert.equal(received.at(-1), end);
      } finally {
        await connection.stop();
      }
    });

    test('alarm stream: an alarm the script raises in scan 3 of a 5-scan step is raised on the stream', async () => {
      await reset();
      const sse = await new RawSse(`${rig.base}/api/plcs/line1/alarms/stream`, bearer(rig.token)).opened();
      try {
        await step(5);
        const raised = await sse.next(
          (e) =>
            e.event === 'alarm' &&
            (e.data as { kind: string; alarm: { code: string } }).kind === 'raised' &&
            (e.data as { alarm: { code: string } }).alarm.code === 'JAM',
        );
        assert.equal((raised.data as { alarm: { severityLabel: string } }).alarm.severityLabel, 'ERROR');
      } finally {
        sse.close();
      }
    });
  });
}
