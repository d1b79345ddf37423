// A `#token=` link in a tab where someone is signed in, in a real browser: another user (another `sub`) is only
// switched to after a confirmation naming both, Cancel keeps the session; the same user's token just replaces it.
// Both ways a link reaches an open console are covered: a fragment change (no reload) and a full page load.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { mintToken } from '../helpers/tokens.ts';
import { assertAccessible, openConsole, type ConsolePage } from './browser.ts';
import { gatewaySettings, launchBrowser, startGateway, type Gateway } from './harness.ts';

describe('web console: a #token= link for another user', () => {
  let gateway: Gateway;
  let browser: Browser;
  let alice: string;
  let bob: string;
  const pages: ConsolePage[] = [];

  before(async () => {
    [gateway, browser] = await Promise.all([startGateway(gatewaySettings()), launchBrowser()]);
    alice = await mintToken({ sub: 'alice', name: 'Alice Admin' });
    bob = await mintToken({ sub: 'bob' });
  });
  after(async () => {
    for (const p of pages) await p.close();
    await browser?.close();
    await gateway?.close();
    // The overview asks line2 (no alarm configuration) for alarms and is refused by design; nothing else may fail.
    const faults = pages
      .flatMap((p) => p.errors)
      .filter((e) => !/^Failed to load resource: .* 40[0-9] /.test(e));
    assert.deepEqual(faults, [], 'console errors in the page');
  });

  const signedInAsAlice = async (): Promise<ConsolePage> => {
    const opened = await openConsole(browser, gateway.url, { token: alice });
    pages.push(opened);
    assert.equal(await opened.page.getByTestId('user').textContent(), 'Alice Admin');
    return opened;
  };
  const stored = (p: ConsolePage): Promise<unknown> =>
    p.page.evaluate('sessionStorage.getItem("plc-console.token")');

  it('a link opened in the tab asks first, naming both users; Cancel keeps the session', async () => {
    const opened = await signedInAsAlice();
    const { page } = opened;
    await page.evaluate(`location.hash = ${JSON.stringify(`#token=${bob}`)}`);
    const dialog = page.getByRole('dialog', { name: 'Switch user?' });
    await dialog.waitFor();
    assert.equal(await dialog.getByTestId('switch-current').textContent(), 'Alice Admin (alice)');
    assert.equal(await dialog.getByTestId('switch-next').textContent(), 'bob');
    // The token left the address bar while the question is open.
    assert.doesNotMatch(page.url(), /token=/);
    await assertAccessible(page, 'switch user dialog');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    assert.equal(await page.getByTestId('user').textContent(), 'Alice Admin');
    assert.equal(await stored(opened), alice);
    // The overview works as Alice still: the session was never touched.
    await page.locator('[data-plc="line1"]').getByText('Connected').waitFor();
  });

  it('confirming signs in as the link’s user', async () => {
    const opened = await signedInAsAlice();
    const { page } = opened;
    await page.evaluate(`location.hash = ${JSON.stringify(`#token=${bob}`)}`);
    await page
      .getByRole('dialog', { name: 'Switch user?' })
      .getByRole('button', { name: 'Sign in as bob' })
      .click();
    await page.getByTestId('user').filter({ hasText: /^bob$/ }).waitFor();
    assert.equal(await stored(opened), bob);
  });

  it('a page load with a link for another user asks too (the tab had a session)', async () => {
    const opened = await signedInAsAlice();
    const { page } = opened;
    // Another query string: a real page load, with this tab's sessionStorage.
    await page.goto(`${gateway.url}/console/?again=1#token=${bob}`);
    const dialog = page.getByRole('dialog', { name: 'Switch user?' });
    await dialog.waitFor();
    assert.equal(await page.getByTestId('user').textContent(), 'Alice Admin');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    assert.equal(await page.getByTestId('user').textContent(), 'Alice Admin');
    assert.equal(await stored(opened), alice);
  });

  it('the same user’s new token replaces the session without asking', async () => {
    const opened = await signedInAsAlice();
    const { page } = opened;
    const again = await mintToken({ sub: 'alice', name: 'Alice Viewer', role: 'viewer', scope: 'ads:read' });
    await page.evaluate(`location.hash = ${JSON.stringify(`#token=${again}`)}`);
    await page.getByTestId('user').filter({ hasText: 'Alice Viewer' }).waitFor();
    assert.equal(await page.getByRole('dialog').count(), 0);
    assert.equal(await stored(opened), again);
    assert.doesNotMatch(page.url(), /token=/);
  });
});
