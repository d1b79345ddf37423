// Failures of a Real target are visible: connection failures in the status and readiness routes with their
// cause, and failures nobody awaits logged once per distinct cause on a logger bound to the plcId.
import assert from 'node:assert/strict';
import { createServer, type AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { pino } from 'pino';
import { createAdsTarget } from '../../../src/targets/ads/index.ts';
import type { TargetLog } from '../../../src/targets/target.ts';
import { buildTestApp } from '../../helpers/app.ts';
import { testConfig } from '../../helpers/config.ts';
import { bearer, mintToken } from '../../helpers/tokens.ts';
import { EventLog } from '../../contract/events.ts';
import { AdsCommand, IndexGroup } from '../../../src/plc/ads/constants.ts';
import { FaultProxy, eventually, fastTuning, realSettings, startConnected, startPlant } from './harness.ts';

/** A pino logger writing parsed JSON lines into `lines`. */
function capturedLogger(): { logger: TargetLog; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const logger = pino(
    { level: 'debug' },
    { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) },
  );
  return { logger, lines };
}

/** A port nothing listens on (bound once, then released). */
async function refusedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const config = testConfig({ AmsRouter: { NetId: '127.0.0.1.1.20', LocalAdsPort: 32750 } });

describe('ADS target: failures are visible', () => {
  it('a refused router port shows as lastError in status and readiness, logged once for many attempts', async () => {
    const port = await refusedPort();
    const { logger, lines } = capturedLogger();
    const target = createAdsTarget('press', realSettings(port), { config, log: logger }, fastTuning);
    const app = await buildTestApp({ targets: [target] });
    const headers = bearer(await mintToken());
    try {
      await target.start();
      const status = await eventually(async () => {
        const res = await app.inject({ url: '/api/plcs/press/status', headers });
        const body = res.json<{ data: { lastError?: { code: string; message: string; since: string } } }>();
        return body.data.lastError ? body.data : undefined;
      });
      assert.equal(status.lastError?.code, 'PLC_UNAVAILABLE');
      assert.match(status.lastError?.message ?? '', new RegExp(`127\\.0\\.0\\.1:${port}.*ECONNREFUSED`));
      assert.ok(!Number.isNaN(Date.parse(status.lastError?.since ?? '')));
      const ready = await app.inject({ url: '/health/ready', headers });
      const check = ready.json<{ checks: Array<{ data: Record<string, string> }> }>().checks[0];
      assert.equal(check?.data.press, target.connectionState());
      assert.equal(check?.data['press.lastError'], `PLC_UNAVAILABLE: ${status.lastError?.message}`);
      // Several more attempts fail the same way: still one line, bound to the plcId.
      const before = target.diagnostics.connectAttempts;
      await eventually(
        () => (target.diagnostics.connectAttempts >= before + 3 ? true : undefined),
        5000,
        'three more attempts',
      );
      const connectLines = lines.filter((l) => l.msg === 'Connecting failed');
      assert.equal(connectLines.length, 1, JSON.stringify(lines));
      assert.equal(connectLines[0]?.plcId, 'press');
      assert.equal(connectLines[0]?.code, 'PLC_UNAVAILABLE');
      const since = status.lastError?.since;
      const later = await app.inject({ url: '/api/plcs/press/status', headers });
      assert.equal(later.json<{ data: { lastError: { since: string } } }>().data.lastError.since, since);
    } finally {
      await app.close();
      await target.close();
    }
  });

  it('a wrong AmsNetId is named by its ADS code; lastError clears once connected', async () => {
    const plant = await startPlant();
    const wrong = createAdsTarget(
      'press',
      realSettings(plant.port, { AmsNetId: '10.9.8.7.1.1', Address: '127.0.0.1' }),
      { config },
      fastTuning,
    );
    const right = createAdsTarget('press2', realSettings(plant.port), { config }, fastTuning);
    const app = await buildTestApp({ targets: [wrong, right] });
    const headers = bearer(await mintToken());
    try {
      await wrong.start();
      await right.start();
      const failure = await eventually(() => wrong.lastError());
      assert.equal(failure.code, 'ADS_ERROR');
      assert.match(failure.message, /ADS error 7 \(target machine not found\)/);
      assert.match(failure.message, /10\.9\.8\.7\.1\.1/);
      await eventually(() => (right.connectionState() === 'Connected' ? true : undefined));
      const res = await app.inject({ url: '/api/plcs/press2/status', headers });
      assert.equal(res.json<{ data: { lastError?: unknown } }>().data.lastError, undefined);
      const ready = await app.inject({ url: '/health/ready', headers });
      const data = ready.json<{ checks: Array<{ data: Record<string, string> }> }>().checks[0]?.data;
      assert.equal(data?.press2, 'Connected');
      assert.equal(data?.['press2.lastError'], undefined);
      assert.match(data?.['press.lastError'] ?? '', /^ADS_ERROR: .*ADS error 7/);
    } finally {
      await app.close();
      await wrong.close();
      await right.close();
      await plant.stop();
    }
  });

  it('a poll that keeps failing is logged once per distinct cause, not once per period', async () => {
    const plant = await startPlant();
    const proxy = new FaultProxy(plant.port);
    const { logger, lines } = capturedLogger();
    const target = createAdsTarget(
      'press',
      realSettings(await proxy.listen(), { NotificationBudget: 1 }),
      { config, log: logger },
      fastTuning,
    );
    try {
      await target.start();
      const logs = [new EventLog(), new EventLog()];
      await target.subscribe('MAIN.nA', { cycleTimeMs: 10, onChange: logs[0]!.onChange });
      await target.subscribe('MAIN.nB', { cycleTimeMs: 10, onChange: logs[1]!.onChange });
      assert.equal(target.diagnostics.polled, 1);
      await logs[1]!.next(() => true);
      let sumReads = 0;
      proxy.fault = ({ command, indexGroup }) => {
        if (command !== AdsCommand.ReadWrite || indexGroup !== IndexGroup.SumRead) return undefined;
        sumReads++;
        return 1793;
      };
      await eventually(() => (sumReads >= 5 ? true : undefined), 5000, 'five failed polls');
      const pollLines = lines.filter((l) => l.msg === 'Polling subscriptions failed');
      assert.equal(pollLines.length, 1, JSON.stringify(pollLines));
      assert.equal(pollLines[0]?.plcId, 'press');
      assert.match(String(pollLines[0]?.error), /ADS error 1793/);
      proxy.fault = ({ command, indexGroup }) =>
        command === AdsCommand.ReadWrite && indexGroup === IndexGroup.SumRead ? 1794 : undefined;
      await eventually(
        () => (lines.filter((l) => l.msg === 'Polling subscriptions failed').length === 2 ? true : undefined),
        5000,
        'the second cause logged',
      );
    } finally {
      await target.close();
      await proxy.close();
      await plant.stop();
    }
  });

  it('a 5xx of a Real target logs the ADS error text once, under its own key', async () => {
    const plant = await startPlant();
    const proxy = new FaultProxy(plant.port);
    const target = createAdsTarget('press', realSettings(await proxy.listen()), { config }, fastTuning);
    const lines: string[] = [];
    const app = await buildTestApp({
      targets: [target],
      logger: { stream: { write: (line: string) => void lines.push(line) } },
    });
    try {
      await startConnected(target);
      await target.symbols();
      proxy.fault = ({ command, indexGroup }) =>
        command === AdsCommand.Read && indexGroup === IndexGroup.PlcMemory ? 1796 : undefined;
      const res = await app.inject({
        url: '/api/plcs/press/variables/MAIN.nA',
        headers: bearer(await mintToken()),
      });
      assert.equal(res.statusCode, 502, res.body);
      const text = 'Reading MAIN.nA: ADS error 1796 (reading/writing not permitted).';
      assert.equal(res.json<{ error: { message: string } }>().error.message, text);
      const failed = lines.filter((l) => l.includes('"request failed"'));
      assert.equal(failed.length, 1, lines.join(''));
      const line = failed[0] ?? '';
      assert.equal(line.split('"msg":').length - 1, 1, line);
      assert.equal(line.split(text).length - 1, 1, line);
      const parsed = JSON.parse(line) as Record<string, unknown>;
      assert.deepEqual([parsed.msg, parsed.code, parsed.error], ['request failed', 'ADS_ERROR', text]);
    } finally {
      await app.close();
      await target.close();
      await proxy.close();
      await plant.stop();
    }
  });
});
