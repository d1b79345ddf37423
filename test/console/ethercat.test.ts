// The console's EtherCAT view in a real browser (Debian's Chromium) against a real gateway whose simulated PLC
// runs the two-master bus scenario: the topology in bus order, then each scripted fault driven by sim/step
// showing up live from the notification stream, without a reload.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import type { Browser } from 'playwright-core';
import { mintToken } from '../helpers/tokens.ts';
import { testSigningKey } from '../helpers/config.ts';
import { assertAccessible, openConsole, screenshot, type ConsolePage } from './browser.ts';
import { launchBrowser, startGateway, type Gateway } from './harness.ts';

const busScenario = resolve(import.meta.dirname, '..', 'features', 'ethercat', 'bus');
const junctionScenario = resolve(import.meta.dirname, 'ethercat-junction');

describe('EtherCAT view in a browser', () => {
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
          bus: {
            DisplayName: 'Cell with two masters',
            Mode: 'Simulated',
            Scenario: busScenario,
            EtherCat: { PollingIntervalMs: 50 },
          },
          junction: { Mode: 'Simulated', Scenario: junctionScenario },
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
    // An Unhealthy bus makes /health/ready answer 503 by design, which the browser logs as a failed load.
    const faults = pages
      .flatMap((p) => p.errors)
      .filter((e) => !/^Failed to load resource: .* 503 .*\/health\/ready\)$/.test(e));
    assert.deepEqual(faults, [], 'console errors in the page');
  });

  const step = async (cycles: number): Promise<void> => {
    const response = await fetch(`${gateway.url}/api/plcs/bus/sim/step?cycles=${cycles}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}` },
    });
    assert.equal(response.status, 200, await response.text());
  };

  it('draws the buses in bus order and shows each scripted fault live, without a reload', async () => {
    const opened = await openConsole(browser, gateway.url, { token: admin, route: '/ethercat/bus' });
    pages.push(opened);
    const { page } = opened;
    await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: 'EtherCAT' }).waitFor();
    const status = page.getByTestId('ethercat-status');
    await status.filter({ hasText: /^Live/ }).waitFor();
    const health = page.getByTestId('bus-health');
    await health.filter({ hasText: 'Healthy' }).waitFor();

    const master2 = page.locator('[data-master="2"]');
    const master3 = page.locator('[data-master="3"]');
    await master2.getByRole('heading', { name: 'EtherCAT Master device 2' }).waitFor();
    await master3.getByRole('heading', { name: 'EtherCAT Master 2 device 3' }).waitFor();
    const line = master2.getByRole('list', { name: 'Slaves of EtherCAT Master in bus order' });
    const order = await Promise.all(
      (await line.locator('[data-slave]').all()).map((slave) => slave.getAttribute('data-slave')),
    );
    assert.deepEqual(order, ['1001', '1002', '1003']);
    const node = (master: typeof master2, address: number) =>
      master.locator(`[data-slave="${address}"] > .ecat-node`);
    await node(master2, 1001).getByText('EK1100, in on port A').waitFor();
    await node(master2, 1002).getByText('EL1008, in on port A').waitFor();
    for (const address of [1001, 1002, 1003]) {
      const shown = node(master2, address);
      const flags = await Promise.all(
        ['data-state', 'data-error', 'data-link'].map((a) => shown.getAttribute(a)),
      );
      assert.deepEqual(flags, ['OP', 'false', 'ok'], `slave ${address}`);
    }
    assert.equal(await master2.locator('.ecat-master').getAttribute('data-state'), 'OP');
    await assertAccessible(page, 'EtherCAT view');

    // From here every change must arrive on this very page.
    await page.evaluate('window.sameDocument = true');

    await step(2); // slave 1003 to SAFEOP with its error flag
    await node(master2, 1003).and(page.locator('[data-state="SAFEOP"][data-error="true"]')).waitFor();
    await node(master2, 1003).getByText('ERR', { exact: true }).waitFor();
    await health.filter({ hasText: 'Degraded' }).waitFor();

    await step(1); // 150 CRC errors on port B of 1002
    await node(master2, 1002).locator('[data-port="B"]').filter({ hasText: 'B 150' }).waitFor();
    assert.equal(await node(master2, 1002).locator('.crc-bad').count(), 1);

    await step(1); // 1003 loses its link
    await node(master2, 1003).and(page.locator('[data-link="lost"]')).waitFor();
    await node(master2, 1003).getByText('link lost').waitFor();
    await health.filter({ hasText: 'Unhealthy' }).waitFor();

    await step(1); // master 2 leaves OP; 1001 on the other master to PREOP
    await node(master3, 1001).and(page.locator('[data-state="PREOP"]')).waitFor();
    await master2.locator('.ecat-master[data-state="PREOP"]').getByText('requested OP').waitFor();
    await status.filter({ hasText: /changes received/ }).waitFor();
    assert.equal(await page.evaluate('window.sameDocument'), true, 'the page was not reloaded');
    await assertAccessible(page, 'EtherCAT view with faults');
    await screenshot(page, 'ethercat');
  });

  it('draws a branch from a further port of a junction as a line of its own', async () => {
    const opened = await openConsole(browser, gateway.url, { token: admin, route: '/ethercat/junction' });
    pages.push(opened);
    const { page } = opened;
    const addresses = async (name: string): Promise<Array<string | null>> => {
      const line = page.getByRole('list', { name, exact: true });
      await line.waitFor();
      // Only the line's own slaves, not those of a branch nested in one of them.
      const own = await line.locator(':scope > [data-slave]').all();
      return Promise.all(own.map((slave) => slave.getAttribute('data-slave')));
    };
    assert.deepEqual(await addresses('Slaves of EtherCAT Master in bus order'), ['1001', '1002', '1003']);
    assert.deepEqual(await addresses('Branch from port D of 1002'), ['1004', '1005']);
    await page.locator('[data-slave="1004"] > .ecat-node').getByText('EK1100, in on port A').waitFor();
    await assertAccessible(page, 'EtherCAT view with a branch');
  });
});
