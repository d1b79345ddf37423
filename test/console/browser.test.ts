// The console in a real browser (Debian's Chromium) against a real gateway with two simulated PLCs: sign-in,
// every view, live values, writes, alarms with a dropped stream, simulation, files and admin, with axe-core on
// each view. One browser and one gateway serve every test of the file, in order.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import type { Browser, Page } from 'playwright-core';
import { mintToken } from '../helpers/tokens.ts';
import { assertAccessible, openConsole, screenshot, type ConsolePage } from './browser.ts';
import { gatewaySettings, launchBrowser, startGateway, type Gateway } from './harness.ts';
import { SimulatedTarget } from '../../src/targets/simulated/index.ts';
import { startOidcStub } from './oidc-stub.ts';

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
  const call = async <T = unknown>(method: string, path: string, body?: unknown): Promise<T> => {
    const response = await fetch(`${gateway.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${admin}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    assert.ok(response.ok, `${method} ${path}: ${response.status} ${text}`);
    return (JSON.parse(text) as { data: T }).data;
  };
  const step = (plcId: string, cycles: number): Promise<unknown> =>
    call('POST', `/api/plcs/${plcId}/sim/step?cycles=${cycles}`);
  const selectSymbol = async (page: Page, search: string, path: string): Promise<void> => {
    await page.getByLabel('Search symbols').fill(search);
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('link', { name: path, exact: true }).click();
    await page.getByRole('heading', { name: path, exact: true }).waitFor();
  };

  before(async () => {
    [gateway, browser] = await Promise.all([startGateway(), launchBrowser()]);
    admin = await mintToken({ sub: 'alice', name: 'Alice Admin' });
    viewer = await mintToken({ sub: 'victor', role: 'viewer', scope: 'ads:read' });
  });
  after(async () => {
    await browser?.close();
    await gateway?.close();
    // Refused requests log a failed load by design, and so does the alarm stream an admin terminates (the resume
    // test); anything else (a CSP refusal, a script error, another failed load) is a fault.
    const faults = pages
      .flatMap((p) => p.errors)
      .filter((e) => !/^Failed to load resource: .* 40[0-9] /.test(e))
      .filter(
        (e) =>
          !/^Failed to load resource: net::ERR_FAILED \(http:\/\/127\.0\.0\.1:\d+\/api\/alarms\/stream\b/.test(
            e,
          ),
      );
    assert.deepEqual(faults, [], 'console errors in the page');
  });

  it('signs in with a pasted token, keeps it in sessionStorage only, and signs out', async () => {
    const { page } = await open({});
    await assertAccessible(page, 'sign-in');
    await screenshot(page, 'sign-in');
    await page.getByLabel('Access token (JWT)').fill(admin);
    await page.getByRole('button', { name: 'Use token' }).click();
    await page.getByTestId('user').filter({ hasText: 'Alice Admin' }).waitFor();
    assert.equal(await page.evaluate('sessionStorage.getItem("plc-console.token")'), admin);
    assert.equal(await page.evaluate('JSON.stringify(localStorage).includes(".")'), false);
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

  it('searches and opens a symbol and shows it move within a second of a step', async () => {
    const { page } = await open({ token: admin, route: '/plc/line1' });
    await page.getByRole('list', { name: 'Symbols' }).waitFor();
    // Lazy tree: members appear when their parent is expanded.
    await page.getByRole('button', { name: 'Expand MAIN' }).click();
    await page.getByRole('link', { name: 'nSpeed' }).waitFor();
    await selectSymbol(page, 'aaxes[1].rpos', 'GVL_HMI.aAxes[1].rPosition');
    await page.getByText('LREAL').first().waitFor();
    const value = page.getByLabel('Value of GVL_HMI.aAxes[1].rPosition');
    await value.and(page.locator('[data-status="live"]')).waitFor();
    const before = (await value.textContent()) ?? '';
    await step('line1', 5);
    await value
      .filter({ hasNotText: new RegExp(`^${before.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`) })
      .waitFor({ timeout: 1000 });
    await assertAccessible(page, 'PLC view');
    await screenshot(page, 'plc');
  });

  it('writes a value after confirmation, and shows a refused write inline', async () => {
    const { page } = await open({ token: admin, route: '/plc/line1' });
    await selectSymbol(page, 'main.nspeed', 'MAIN.nSpeed');
    await page.getByLabel('Value of MAIN.nSpeed').filter({ hasText: '1500' }).waitFor();
    const input = page.getByLabel('New value (INT)');
    assert.equal(await input.getAttribute('max'), '32767');
    await input.fill('1600');
    await page.getByRole('button', { name: 'Write…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Write to the PLC?' });
    await dialog.getByText('MAIN.nSpeed').waitFor();
    await dialog.getByRole('button', { name: 'Write' }).click();
    await page.getByRole('status').filter({ hasText: 'reads back 1600' }).waitFor();
    await page.getByLabel('Value of MAIN.nSpeed').filter({ hasText: '1600' }).waitFor();
    assert.equal((await call<{ value: number }>('GET', '/api/plcs/line1/variables/MAIN.nSpeed')).value, 1600);
    // Out of the INT range: refused before anything is sent.
    await input.fill('40000');
    await page.getByRole('button', { name: 'Write…' }).click();
    await page.getByRole('alert').filter({ hasText: '-32768 to 32767' }).waitFor();
    // A DATE that is not midnight passes the input but the gateway refuses it.
    await selectSymbol(page, 'main.dstart', 'MAIN.dStart');
    await page.getByLabel('New value (DATE)').fill('2024-05-17T10:20:30.000Z');
    await page.getByRole('button', { name: 'Write…' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Write' }).click();
    await page.getByRole('alert').filter({ hasText: 'TYPE_MISMATCH' }).waitFor();
    // An enum gets a drop-down of its members, a BOOL a switch.
    await selectSymbol(page, 'aalarms[1].errortype', 'GVL_HMI.fbAlarms.aAlarms[1].ErrorType');
    const members = page.getByLabel('New value (E_ErrorType)').getByRole('option');
    await members.first().waitFor({ state: 'attached' });
    assert.deepEqual(await members.allTextContents(), ['NONE (0)', 'INFO (1)', 'WARNING (2)', 'ERROR (3)']);
    await selectSymbol(page, 'main.brunning', 'MAIN.bRunning');
    const toggle = page.getByRole('switch', { name: 'New value (BOOL)' });
    await toggle.and(page.locator('[aria-checked="true"]')).waitFor();
    await toggle.click();
    await page.getByRole('button', { name: 'Write…' }).click();
    await page.getByRole('dialog').getByText('false').waitFor();
    await page.getByRole('dialog').getByRole('button', { name: 'Write' }).click();
    await page.getByRole('status').filter({ hasText: 'reads back false' }).waitFor();
  });

  it('pins symbols to the watch list, trends them live, keeps them across a reload and exports CSV', async () => {
    const { page } = await open({ token: admin, route: '/plc/line1' });
    await selectSymbol(page, 'aaxes[2].rpos', 'GVL_HMI.aAxes[2].rPosition');
    await page.getByRole('button', { name: 'Pin to watch list' }).click();
    await selectSymbol(page, 'main.srecipe', 'MAIN.sRecipe');
    await page.getByRole('button', { name: 'Pin to watch list' }).click();
    await page.getByRole('link', { name: 'Watch' }).click();
    const row = page.locator('tr[data-symbol="GVL_HMI.aAxes[2].rPosition"]');
    await row.getByText('live').waitFor();
    await page.locator('tr[data-symbol="MAIN.sRecipe"]').getByText('Standard').waitFor();
    const before = (await row.locator('output').textContent()) ?? '';
    await step('line1', 5);
    await row.locator('output').filter({ hasNotText: before }).waitFor();
    await page
      .getByRole('img', { name: /Trend of line1: GVL_HMI.aAxes\[2\].rPosition/ })
      .locator('canvas')
      .waitFor();
    await assertAccessible(page, 'watch list');
    await screenshot(page, 'watch');
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export CSV' }).click(),
    ]);
    const csv = await readFile((await download.path()) ?? '', 'utf8');
    assert.match(csv.split('\n')[0] ?? '', /^"time","line1: GVL_HMI.aAxes\[2\].rPosition"$/);
    assert.ok(csv.split('\n').length >= 3, csv);
    await page.reload();
    await page.locator('tr[data-symbol="MAIN.sRecipe"]').getByText('Standard').waitFor();
    // Another user of the same browser has a list of their own.
    const other = await open({ token: await mintToken({ sub: 'carol' }), route: '/watch' });
    await other.page.getByText('Nothing pinned yet').waitFor();
  });

  it('marks a value stale while its PLC is disconnected, and live again after', async () => {
    const { page } = await open({ token: admin, route: '/plc/line2/GVL_HMI.stMachine.rSpeed' });
    const value = page.getByLabel('Value of GVL_HMI.stMachine.rSpeed');
    await value.and(page.locator('[data-status="live"]')).waitFor();
    const line2 = gateway.registry.get('line2');
    assert.ok(line2 instanceof SimulatedTarget);
    line2.disconnect();
    await value.and(page.locator('[data-status="plc-down"]')).waitFor();
    await page.getByText('PLC disconnected').waitFor();
    line2.reconnect();
    await value.and(page.locator('[data-status="live"]')).waitFor();
    // The hub connection itself ends (an admin terminates it): the value says so until the console is back.
    // Marked on the root element, so the wait is a locator's: a string predicate would be eval'd, which the CSP forbids.
    await page.evaluate(`new MutationObserver(() => {
        if (document.querySelector('[aria-label="Value of GVL_HMI.stMachine.rSpeed"]')?.dataset.status === 'lost')
          document.documentElement.dataset.sawLost = 'yes';
      }).observe(document.body, { subtree: true, attributes: true, attributeFilter: ['data-status'] });`);
    const hubs = await call<Array<{ id: string; kind: string; plcId: string; user: string }>>(
      'GET',
      '/api/admin/connections',
    );
    const mine = hubs.filter(
      (c) => c.kind === 'notifications.ws' && c.plcId === 'line2' && c.user === 'alice',
    );
    assert.ok(mine.length > 0);
    for (const c of mine) await call('DELETE', `/api/admin/connections/${c.id}`);
    await page.locator('html[data-saw-lost="yes"]').waitFor({ state: 'attached' });
    await value.and(page.locator('[data-status="live"]')).waitFor();
  });

  it('shows live alarms, acknowledges one and sees it end; a viewer gets no acknowledge', async () => {
    await call('POST', '/api/plcs/line1/sim/reset');
    const { page } = await open({ token: admin, route: '/alarms/line1' });
    // Running, the script raises CAPPER_JAM on scan 1 and clears it on scan 3, FILLER_OVERTEMP on 4 and 6:
    // both stay outstanding, awaiting acknowledgement.
    await call('POST', '/api/plcs/line1/sim/run');
    const capper = page.locator('tr[data-alarm="CAPPER_JAM"]');
    await page.locator('tr[data-alarm="FILLER_OVERTEMP"][data-status="passive"]').waitFor();
    await call('POST', '/api/plcs/line1/sim/pause');
    await capper.getByText('ERROR').waitFor();
    await capper.getByText('awaiting acknowledgement').waitFor();
    await assertAccessible(page, 'alarms');
    await screenshot(page, 'alarms');

    const viewing = await open({ token: viewer, route: '/alarms' });
    await viewing.page.locator('tr[data-alarm="CAPPER_JAM"]').waitFor();
    assert.equal(await viewing.page.getByRole('button', { name: /Acknowledge/ }).count(), 0);
    const nav = viewing.page.getByRole('navigation', { name: 'Views' });
    assert.deepEqual(await nav.getByRole('link').allTextContents(), ['Overview', 'Watch', 'Alarms', 'Files']);
    await viewing.page.evaluate('location.hash = "#/plc/line1/MAIN.nSpeed"');
    await viewing.page
      .getByLabel('Value of MAIN.nSpeed')
      .and(viewing.page.locator('[data-status="live"]'))
      .waitFor();
    assert.equal(await viewing.page.getByRole('button', { name: 'Write…' }).count(), 0);

    await capper.getByRole('button', { name: 'Acknowledge CAPPER_JAM on line1' }).click();
    // Acknowledged and no longer active, it ends: the row goes.
    await capper.waitFor({ state: 'detached' });
    const journal = page.getByRole('table', { name: 'Alarm journal of line1' });
    for (const kind of ['raised', 'cleared', 'acknowledged', 'ended']) {
      await journal.locator(`tr[data-kind="${kind}"]`).filter({ hasText: 'CAPPER_JAM' }).first().waitFor();
    }
  });

  it('resumes the alarm stream after an admin terminates it, losing and repeating no transition', async () => {
    const { page } = await open({ token: admin, route: '/alarms/line1' });
    const feed = page.getByTestId('alarm-feed');
    await feed.filter({ hasText: 'Live' }).waitFor();
    const filler = page.locator('tr[data-alarm="FILLER_OVERTEMP"]');
    await filler.waitFor();
    const applied = async (): Promise<number> => Number(await feed.getAttribute('data-applied'));
    const journal = async (): Promise<Array<{ kind: string; alarm: { code: string } }>> =>
      (
        await call<{ items: Array<{ kind: string; alarm: { code: string } }> }>(
          'GET',
          '/api/plcs/line1/alarms/history?limit=1000',
        )
      ).items;
    const journalLength = async (): Promise<number> => (await journal()).length;
    const appliedBefore = await applied();
    const journalBefore = await journalLength();
    // Hold the console's reconnection back until the missed transitions have surely happened; on the earlier alarm
    // page of this test file too, which would otherwise follow every termination with a fresh stream.
    const held = pages.filter((p) => !p.page.isClosed());
    for (const p of held) await p.page.route('**/api/alarms/stream', (route) => route.abort());
    const adminPage = await open({ token: admin, route: '/admin' });
    // The admin's calls answer slowly, as over a slow link: the view must neither show an earlier termination's
    // outcome as this one's nor offer again, from a list not yet refreshed, a stream it has just ended.
    await adminPage.page.route('**/api/admin/connections**', async (route) => {
      await new Promise((resolve) => setTimeout(resolve, 300));
      await route.continue();
    });
    const streams = adminPage.page.locator('tr[data-kind="alarms.fleet.sse"]').filter({ hasText: 'alice' });
    await streams.first().waitFor();
    await assertAccessible(adminPage.page, 'admin');
    await screenshot(adminPage.page, 'admin');
    // The earlier alarm page of this test file follows the stream too: end every one of alice's.
    while ((await streams.count()) > 0) {
      await streams
        .first()
        .getByRole('button', { name: /Terminate/ })
        .click();
      await adminPage.page.getByRole('dialog').getByRole('button', { name: 'Terminate' }).click();
      await adminPage.page.getByRole('status').filter({ hasText: 'Ended alarms.fleet.sse' }).waitFor();
      await adminPage.page.getByRole('dialog').waitFor({ state: 'detached' });
    }
    await feed.filter({ hasText: 'reconnecting' }).waitFor();
    // Acknowledged while the console is cut off: acknowledged, then ended.
    assert.deepEqual(await call('POST', '/api/plcs/line1/alarms/FILLER_OVERTEMP/acknowledge'), {
      acknowledged: true,
    });
    // The gateway journals the transitions as its monitor reads the PLC: wait for the last one.
    while (!(await journal()).some((i) => i.kind === 'ended' && i.alarm.code === 'FILLER_OVERTEMP')) {
      await new Promise((resolve) => setImmediate(resolve));
    }
    const missed = (await journalLength()) - journalBefore;
    assert.ok(missed >= 2, `${missed} transitions while cut off`);
    for (const p of held) await p.page.unroute('**/api/alarms/stream');
    await filler.waitFor({ state: 'detached' });
    await feed.filter({ hasText: 'Live' }).waitFor();
    assert.equal((await applied()) - appliedBefore, missed, 'every missed transition applied exactly once');
  });

  it('steps, runs and pauses a simulation with its axes drawn live, and stops a PLC after confirmation', async () => {
    const { page } = await open({ token: admin, route: '/sim/line2' });
    await page.getByTestId('sim-state').filter({ hasText: 'Stopped' }).waitFor();
    const position = page.locator('[data-axis="cell.x"] [data-role="position"]');
    await position.waitFor();
    const before = (await position.textContent()) ?? '';
    const cycles = Number(await page.getByTestId('sim-cycles').textContent());
    await page.getByLabel('Cycles').fill('10');
    await page.getByRole('button', { name: 'Step' }).click();
    await page
      .getByTestId('sim-cycles')
      .filter({ hasText: String(cycles + 10) })
      .waitFor();
    // The axis shows where the step ended (the whole text: 200 contains the 0 it may have started from).
    const end = await call<{ value: number }>(
      'GET',
      `/api/plcs/line2/variables/${encodeURIComponent('GVL_HMI.aAxes[1].rPosition')}`,
    );
    const shown = String(Number.isInteger(end.value) ? end.value : Number(end.value.toPrecision(7)));
    assert.notEqual(shown, before);
    await position.filter({ hasText: new RegExp(`^${shown.replace('.', '\\.')}$`) }).waitFor();
    await page.getByRole('button', { name: 'Run' }).click();
    await page.getByTestId('sim-state').filter({ hasText: 'Running' }).waitFor();
    await page.getByRole('button', { name: 'Pause' }).click();
    await page.getByTestId('sim-state').filter({ hasText: 'Paused' }).waitFor();
    await assertAccessible(page, 'simulation');
    await screenshot(page, 'simulation');
    await page.getByRole('button', { name: 'Stop PLC…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Stop PLC line2?' });
    await dialog.getByText('Palletizer').waitFor();
    await dialog.getByRole('button', { name: 'Stop line2' }).click();
    await page.getByRole('status').filter({ hasText: 'now in Stop' }).waitFor();
  });

  it('browses, downloads and uploads files', async () => {
    const { page } = await open({ token: admin, route: '/files/line1' });
    await page.getByRole('link', { name: 'recipes/' }).click();
    const row = page.locator('tr[data-file="r1.csv"]');
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      row.getByRole('button', { name: 'Download r1.csv' }).click(),
    ]);
    assert.equal(await readFile((await download.path()) ?? '', 'utf8'), 'speed;60\nlayers;6\n');
    await page.getByLabel('Upload to /recipes').setInputFiles({
      name: 'r2.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from('speed;75\n'),
    });
    await page.getByRole('button', { name: 'Upload', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Uploaded recipes/r2.csv (9 bytes)' }).waitFor();
    await page.locator('tr[data-file="r2.csv"]').waitFor();
    await assertAccessible(page, 'files');
    await screenshot(page, 'files');
    const audit = await open({ token: admin, route: '/admin' });
    const trail = audit.page.getByRole('table', { name: 'Audit trail, newest first' });
    await trail.locator('tr[data-action="file.write"]').filter({ hasText: 'recipes/r2.csv' }).waitFor();
    await trail
      .locator('tr[data-action="variable.write"]')
      .filter({ hasText: 'MAIN.nSpeed' })
      .first()
      .waitFor();
  });
});

describe('web console OIDC sign-in', () => {
  it('signs in through the issuer with PKCE and calls the gateway with its access token', async () => {
    const stub = await startOidcStub({
      sub: 'oidc-user',
      name: 'Olga Operator',
      role: 'operator',
      scope: 'ads:read ads:write',
      plc_access: ['line2'],
    });
    const settings = gatewaySettings({
      Auth: { Authority: stub.issuer, Audience: 'plc-gateway' },
      Console: { ClientId: 'plc-console', Scope: 'openid profile ads:read ads:write' },
    });
    const [gateway, browser] = await Promise.all([startGateway(settings), launchBrowser()]);
    try {
      const { page, errors } = await openConsole(browser, gateway.url);
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      await page.getByTestId('user').filter({ hasText: 'Olga Operator' }).waitFor();
      assert.equal(stub.verifiedExchanges, 1);
      assert.doesNotMatch(page.url(), /code=|state=/);
      await page.locator('[data-plc="line2"]').getByText('Connected').waitFor();
      assert.equal(await page.locator('[data-plc="line1"]').count(), 0);
      assert.equal(await page.evaluate('JSON.stringify(localStorage).includes("access_token")'), false);
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByRole('button', { name: 'Sign in', exact: true }).waitFor();
      assert.deepEqual(
        errors.filter((e) => !/^Failed to load resource: .* 40[0-9] /.test(e)),
        [],
      );
    } finally {
      await browser.close();
      await gateway.close();
      await stub.close();
    }
  });
});
