// The admin view's MQTT panel in a real browser: the gateway publishing to a real mosquitto shows its session
// Connected and the PLC's device online; when the broker stops, the session shows Disconnected;
// when the broker is back, Connected again.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join, resolve } from 'node:path';
import type { Browser } from 'playwright-core';
import { Mosquitto } from '../../bench/servers/mosquitto.ts';
import { testSigningKey } from '../helpers/config.ts';
import { mintToken } from '../helpers/tokens.ts';
import { openConsole, type ConsolePage } from './browser.ts';
import { launchBrowser, startGateway, type Gateway } from './harness.ts';

const repo = resolve(import.meta.dirname, '..', '..');

describe('console: the MQTT panel of the admin view', () => {
  let broker: Mosquitto;
  let gateway: Gateway;
  let browser: Browser;
  let admin: string;
  const pages: ConsolePage[] = [];

  before(async () => {
    broker = await Mosquitto.start();
    [gateway, browser] = await Promise.all([
      startGateway({
        Logging: { Level: 'silent' },
        Auth: { SigningKey: testSigningKey },
        PlcTargets: {
          line1: { Mode: 'Simulated', Scenario: join(repo, 'examples', 'scenarios', 'small') },
        },
        Mqtt: {
          Enabled: true,
          Url: broker.url,
          ClientId: 'console-gw',
          ReconnectMs: 100,
          StateFile: join(broker.dir, 'mqtt-state.json'),
          Targets: { line1: { Symbols: [{ Path: 'GVL_HMI.stMachine' }] } },
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
    await broker?.close();
    // The route answers throughout: a stopped broker is a state to show, not a failed request.
    assert.deepEqual(
      pages.flatMap((p) => p.errors),
      [],
      'console errors in the page',
    );
  });

  it('shows the session Connected, Disconnected while the broker is stopped, and Connected again', async () => {
    const opened = await openConsole(browser, gateway.url, { token: admin, route: '/admin' });
    pages.push(opened);
    const panel = opened.page.getByRole('region', { name: 'MQTT' });
    const session = panel
      .getByRole('table', { name: 'MQTT sessions' })
      .getByRole('row', { name: /console-gw/ });
    const device = panel.getByRole('table', { name: 'MQTT devices' }).getByRole('row', { name: /line1/ });

    await session.filter({ hasText: 'Connected' }).waitFor();
    assert.equal(await session.getAttribute('data-state'), 'Connected');
    await device.filter({ hasText: 'online' }).waitFor();
    assert.match(
      await panel.innerText(),
      /SparkplugB as edge node gateway to mqtt:\/\/127\.0\.0\.1:\d+\/?: \d+ messages/,
    );

    await broker.stop();
    await panel.locator('tr[data-state="Disconnected"]', { hasText: 'console-gw' }).waitFor();
    assert.match(await session.innerText(), /console-gw\s+Disconnected/);

    await broker.restart();
    await panel.locator('tr[data-state="Connected"]', { hasText: 'console-gw' }).waitFor();
    assert.match(await session.innerText(), /console-gw\s+Connected/);
  });
});
