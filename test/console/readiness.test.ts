// The overview in a real browser says which checks make readiness Degraded and why, from /health/ready: an
// EtherCAT bus with a slave out of OP (driven by sim/step), then a PLC that lost its connection, named with its state.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import type { Browser } from 'playwright-core';
import { SimulatedTarget } from '../../src/targets/simulated/simulated-target.ts';
import { testSigningKey } from '../helpers/config.ts';
import { mintToken } from '../helpers/tokens.ts';
import { openConsole, type ConsolePage } from './browser.ts';
import { launchBrowser, startGateway, type Gateway } from './harness.ts';

const busScenario = resolve(import.meta.dirname, '..', 'features', 'ethercat', 'bus');

describe('readiness on the overview', () => {
  let gateway: Gateway;
  let browser: Browser;
  let admin: string;
  const pages: ConsolePage[] = [];

  before(async () => {
    [gateway, browser] = await Promise.all([
      startGateway({
        Logging: { Level: 'silent' },
        Auth: { SigningKey: testSigningKey },
        Features: { Simulation: true, EtherCatDiagnostics: true },
        PlcTargets: {
          cell3: {
            DisplayName: 'Cell 3',
            Mode: 'Simulated',
            Scenario: busScenario,
            EtherCat: { PollingIntervalMs: 50 },
          },
          line1: { Mode: 'Simulated', Scenario: resolve(import.meta.dirname, 'scenario') },
        },
      }),
      launchBrowser(),
    ]);
    admin = await mintToken({ sub: 'alice', name: 'Alice Admin' });
  });
  after(async () => {
    await Promise.all(pages.map((p) => p.close()));
    await browser?.close();
    await gateway?.close();
    assert.deepEqual(
      pages.flatMap((p) => p.errors),
      [],
      'console errors in the page',
    );
  });

  it('names the check and the PLC that make readiness Degraded', async () => {
    const opened = await openConsole(browser, gateway.url, { token: admin });
    pages.push(opened);
    const readiness = opened.page.getByTestId('readiness');
    await readiness.filter({ hasText: 'Healthy' }).waitFor();
    assert.match(await readiness.innerText(), /Healthy 2 of 2 PLC targets connected\./);

    const step = await fetch(`${gateway.url}/api/plcs/cell3/sim/step?cycles=2`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}` },
    });
    assert.equal(step.status, 200, await step.text()); // slave 1003 to SAFEOP with its error flag
    await readiness.filter({ hasText: 'Degraded' }).waitFor();
    assert.match(await readiness.innerText(), /Degraded EtherCAT bus: cell3: slave 1003 SAFEOP\+ERR$/);

    const line1 = gateway.registry.get('line1');
    assert.ok(line1 instanceof SimulatedTarget);
    line1.disconnect();
    await readiness.filter({ hasText: 'PLC connectivity' }).waitFor();
    assert.match(
      await readiness.innerText(),
      /^Readiness: Degraded PLC connectivity: 1 of 2 PLC targets connected\. Not connected: line1 Disconnected.* · EtherCAT bus: cell3: slave 1003 SAFEOP\+ERR$/,
    );
  });
});
