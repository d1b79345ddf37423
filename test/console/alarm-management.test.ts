// Alarm management in the console, in a real browser (Debian's Chromium) against a real gateway over simulated
// PLCs: an operator shelves an alarm with a duration and a reason, sees it leave the list and appear in the
// shelved group, unshelves it, and reads the KPI panel with its benchmarks; a viewer is offered no shelving.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { mintToken } from '../helpers/tokens.ts';
import { assertAccessible, openConsole, screenshot, type ConsolePage } from './browser.ts';
import { launchBrowser, startGateway, type Gateway } from './harness.ts';

describe('alarm management in the console', () => {
  let gateway: Gateway;
  let browser: Browser;
  let operator: string;
  let admin: string;
  const pages: ConsolePage[] = [];
  const open = async (options: Parameters<typeof openConsole>[2]): Promise<ConsolePage> => {
    const opened = await openConsole(browser, gateway.url, options);
    pages.push(opened);
    return opened;
  };
  const call = async <T = unknown>(method: string, path: string): Promise<T> => {
    const response = await fetch(`${gateway.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${admin}` },
    });
    const text = await response.text();
    assert.ok(response.ok, `${method} ${path}: ${response.status} ${text}`);
    return (JSON.parse(text) as { data: T }).data;
  };

  before(async () => {
    [gateway, browser] = await Promise.all([startGateway(), launchBrowser()]);
    operator = await mintToken({ sub: 'olga', name: 'Olga Operator', role: 'operator' });
    admin = await mintToken({ sub: 'alice', name: 'Alice Admin' });
    // Scan 1 raises CAPPER_JAM (ERROR, awaiting acknowledgement).
    await call('POST', '/api/plcs/line1/sim/step?cycles=1');
  });
  after(async () => {
    await browser?.close();
    await gateway?.close();
    const faults = pages
      .flatMap((p) => p.errors)
      .filter((e) => !/^Failed to load resource: .* 40[0-9] /.test(e));
    assert.deepEqual(faults, [], 'console errors in the page');
  });

  it('shelves an alarm: it leaves the list and shows in the shelved group; unshelved, it comes back', async () => {
    const { page } = await open({ token: operator, route: '/alarms/line1' });
    const listed = page
      .getByRole('table', { name: 'Outstanding alarms' })
      .locator('tr[data-alarm="CAPPER_JAM"]');
    const shelved = page.locator('section[data-group="shelved"] tr[data-alarm="CAPPER_JAM"]');
    await listed.waitFor();
    await page.locator('section[data-group="shelved"]').getByText('None.').waitFor();

    await listed.getByRole('button', { name: 'Shelve CAPPER_JAM on line1' }).click();
    const dialog = page.getByRole('dialog', { name: 'Shelve CAPPER_JAM on line1' });
    await dialog.getByLabel('Duration').selectOption({ label: '8 hours (a shift)' });
    const submit = dialog.getByRole('button', { name: 'Shelve', exact: true });
    assert.equal(await submit.isDisabled(), true, 'a reason is required');
    await dialog.getByLabel('Reason').fill('sensor swap on the capper');
    await assertAccessible(page, 'shelve dialog');
    await submit.click();
    await dialog.waitFor({ state: 'detached' });

    await listed.waitFor({ state: 'detached' });
    await shelved.waitFor();
    await shelved.getByText(/by olga until .*: sensor swap on the capper/).waitFor();
    await page.locator('section[data-group="shelved"] h3').getByText('Shelved (1)').waitFor();
    const book = await call<{ items: Array<{ action: string; code: string; by?: string; reason?: string }> }>(
      'GET',
      '/api/plcs/line1/alarms/shelving',
    );
    assert.deepEqual(
      book.items.map((e) => [e.action, e.code, e.by, e.reason]),
      [['shelved', 'CAPPER_JAM', 'olga', 'sensor swap on the capper']],
    );
    await assertAccessible(page, 'alarms with a shelved alarm');
    await screenshot(page, 'alarms-shelved');

    // The KPI panel: the figures beside their benchmarks, and the shelved alarm counted now.
    const kpis = page.getByTestId('alarm-kpis');
    await kpis.getByRole('button', { name: 'Refresh' }).click();
    await kpis
      .getByTestId('kpi-now')
      .getByText('1 outstanding, 1 shelved, 0 out of service, 0 suppressed')
      .waitFor();
    const rate = kpis.getByRole('table', { name: 'Alarm KPIs' }).locator('tr[data-kpi="rate"]');
    await rate.getByText('Alarms raised per 10 minutes (average)').waitFor();
    await rate.getByText(/about 1 very likely acceptable, about 2 manageable/).waitFor();
    await kpis
      .locator('tr[data-kpi="flood"]')
      .getByText('Time in flood (more than 10 in 10 minutes)')
      .waitFor();
    await kpis
      .getByTestId('kpi-covered')
      .getByText(/what the journal holds/)
      .waitFor();
    await kpis.scrollIntoViewIfNeeded();
    await screenshot(page, 'alarm-kpis');

    await shelved.getByRole('button', { name: 'Unshelve CAPPER_JAM on line1' }).click();
    await listed.waitFor();
    await shelved.waitFor({ state: 'detached' });
  });

  it('refuses a shelve without the gateway’s bounds in the dialog, and offers a viewer no shelving', async () => {
    const viewer = await mintToken({ sub: 'victor', role: 'viewer', scope: 'ads:read' });
    const viewing = await open({ token: viewer, route: '/alarms/line1' });
    await viewing.page
      .getByRole('table', { name: 'Outstanding alarms' })
      .locator('tr[data-alarm="CAPPER_JAM"]')
      .waitFor();
    assert.equal(await viewing.page.getByRole('button', { name: /Shelve/ }).count(), 0);
    await viewing.page.getByTestId('alarm-kpis').getByRole('table', { name: 'Alarm KPIs' }).waitFor();
  });
});
