// The console in a real browser (Debian's Chromium) against a real gateway with two simulated PLCs: sign-in,
// every view, live values, writes, alarms, simulation, files and admin, with axe-core on each view. One browser
// and one gateway serve every test of the file.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { mintToken } from '../helpers/tokens.ts';
import { assertAccessible, openConsole, screenshot, type ConsolePage } from './browser.ts';
import { launchBrowser, startGateway, type Gateway } from './harness.ts';

describe('web console in a browser', () => {
  let gateway: Gateway;
  let browser: Browser;
  let admin: string;
  let viewer: string;
  const pages: ConsolePage[] = [];
  const open = async (options: Parameters<typeof openConsole>[2]): Promise<ConsolePage> => {
    const opened = await openConsole(browser, gateway.url, options);
    pages.push(opened);
    return opened;
  };

  before(async () => {
    [gateway, browser] = await Promise.all([startGateway(), launchBrowser()]);
    admin = await mintToken({ sub: 'alice', name: 'Alice Admin' });
    viewer = await mintToken({ sub: 'victor', role: 'viewer', scope: 'ads:read' });
  });
  after(async () => {
    await browser?.close();
    await gateway?.close();
    // Refused requests log a failed load by design; anything else (a CSP refusal, a script error) is a fault.
    const faults = pages
      .flatMap((p) => p.errors)
      .filter((e) => !/^Failed to load resource: .* 40[13] /.test(e));
    assert.deepEqual(faults, [], 'console errors in the page');
  });

  it('signs in with a pasted token, keeps it in sessionStorage only, and signs out', async () => {
    const { page } = await open({});
    await assertAccessible(page, 'sign-in');
    await screenshot(page, 'sign-in');
    await page.getByLabel('Access token (JWT)').fill(admin);
    await page.getByRole('button', { name: 'Use token' }).click();
    await assert.doesNotReject(page.getByTestId('user').filter({ hasText: 'Alice Admin' }).waitFor());
    assert.equal(await page.evaluate('sessionStorage.getItem("plc-console.token")'), admin);
    assert.equal(
      await page.evaluate(
        'JSON.stringify(localStorage).includes(sessionStorage.getItem("plc-console.token"))',
      ),
      false,
    );
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Access token (JWT)').waitFor();
    assert.equal(await page.evaluate('sessionStorage.getItem("plc-console.token")'), null);
  });

  it('signs in from a #token= link and removes the token from the address bar at once', async () => {
    const { page } = await open({ token: admin });
    assert.doesNotMatch(page.url(), /token=/);
    assert.equal(await page.getByTestId('user').textContent(), 'Alice Admin');
  });

  it('refuses a garbage token with a message, and signs out on a 401', async () => {
    const { page } = await open({});
    await page.getByLabel('Access token (JWT)').fill('not-a-token');
    await page.getByRole('button', { name: 'Use token' }).click();
    await page.getByRole('alert').filter({ hasText: 'not a JWT' }).waitFor();
    // Well-formed but signed with another key: the gateway answers 401 and the console signs out.
    const forged = await mintToken(
      { sub: 'mallory' },
      { key: 'another-key-that-the-gateway-does-not-know-0123' },
    );
    await page.getByLabel('Access token (JWT)').fill(forged);
    await page.getByRole('button', { name: 'Use token' }).click();
    await page.getByRole('alert').filter({ hasText: 'expired or was refused' }).waitFor();
    assert.equal(await page.evaluate('sessionStorage.getItem("plc-console.token")'), null);
  });

  it('shows every permitted PLC on the overview with its live state', async () => {
    const { page } = await open({ token: admin });
    const line1 = page.locator('[data-plc="line1"]');
    const line2 = page.locator('[data-plc="line2"]');
    await line1.getByText('Connected').waitFor();
    await line2.getByText('Connected').waitFor();
    await line1.getByText('Packaging line 1').waitFor();
    await line2.getByText('Palletizer').waitFor();
    await line1.getByText(/Stopped, cycle \d+/).waitFor();
    await page.getByText(/2 of 2 PLC targets connected/).waitFor();
    await assertAccessible(page, 'overview');
    await screenshot(page, 'overview');
    // Only the PLCs plc_access permits.
    const onlyLine2 = await open({ token: await mintToken({ sub: 'bob', plc_access: ['line2'] }) });
    await onlyLine2.page.locator('[data-plc="line2"]').getByText('Connected').waitFor();
    assert.equal(await onlyLine2.page.locator('[data-plc="line1"]').count(), 0);
  });

  it('renders the overview in the dark theme and on a 10-inch tablet', async () => {
    const { page } = await open({
      token: viewer,
      colorScheme: 'dark',
      viewport: { width: 800, height: 1280 },
    });
    await page.locator('[data-plc="line1"]').getByText('Connected').waitFor();
    assert.equal(await page.evaluate('document.documentElement.dataset.theme'), 'dark');
    const overflow = await page.evaluate('document.documentElement.scrollWidth > window.innerWidth');
    assert.equal(overflow, false, 'no horizontal scrolling at tablet width');
    await assertAccessible(page, 'overview (dark, tablet)');
    await screenshot(page, 'overview-dark-tablet');
  });
});
