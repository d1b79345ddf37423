// The console over a gateway that records history (SQLite), in a real browser: the trend of a pinned symbol shows
// its recorded past after a reload and fetches finer buckets when zoomed; the alarm view pages through the alarm
// history of a date window.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { mintToken } from '../helpers/tokens.ts';
import { SimulatedTarget } from '../../src/targets/simulated/index.ts';
import { assertAccessible, openConsole, screenshot, type ConsolePage } from './browser.ts';
import { gatewaySettings, launchBrowser, startGateway, type Gateway } from './harness.ts';

describe('console with history', () => {
  let gateway: Gateway;
  let browser: Browser;
  let admin: string;
  let dir: string;
  const pages: ConsolePage[] = [];
  const open = async (options: Parameters<typeof openConsole>[2]): Promise<ConsolePage> => {
    const opened = await openConsole(browser, gateway.url, options);
    pages.push(opened);
    return opened;
  };
  const get = async <T>(path: string): Promise<T> => {
    const response = await fetch(`${gateway.url}${path}`, { headers: { authorization: `Bearer ${admin}` } });
    const text = await response.text();
    assert.ok(response.ok, `GET ${path}: ${response.status} ${text}`);
    return (JSON.parse(text) as { data: T }).data;
  };
  const post = async (path: string): Promise<void> => {
    const response = await fetch(`${gateway.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}` },
    });
    assert.ok(response.ok, `POST ${path}: ${response.status} ${await response.text()}`);
  };
  /** Polls the gateway until `probe` holds (each poll an HTTP round trip: no timer guesses). */
  const until = async (probe: () => Promise<boolean>): Promise<void> => {
    while (!(await probe())) await new Promise((resolve) => setImmediate(resolve));
  };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'console-history-'));
    const base = gatewaySettings();
    [gateway, browser] = await Promise.all([
      startGateway({
        ...base,
        Features: { ...(base.Features as object), History: true },
        History: {
          Path: join(dir, 'history.db'),
          FlushIntervalMs: 20,
          Targets: { line1: { Symbols: [{ Path: 'MAIN.nSpeed' }] } },
        },
        RateLimiting: {
          NotificationConnections: 100,
          HistoryQueries: 1000,
          GlobalPerUser: 1_000_000,
          AlarmReads: 1_000_000,
        },
      }),
      launchBrowser(),
    ]);
    admin = await mintToken({ sub: 'alice', name: 'Alice Admin' });
  });
  after(async () => {
    await browser?.close();
    await gateway?.close();
    rmSync(dir, { recursive: true, force: true });
    // A pinned symbol that is not recorded answers 404 by design; anything else is a fault.
    const faults = pages
      .flatMap((p) => p.errors)
      .filter((e) => !/^Failed to load resource: .* 40[0-9] /.test(e));
    assert.deepEqual(faults, [], 'console errors in the page');
  });

  it('shows the recorded past of a pinned symbol after a reload, then zooms into finer buckets', async () => {
    const line1 = gateway.registry.get('line1');
    assert.ok(line1 instanceof SimulatedTarget);
    // Recorded: the value at start (1500), then three changes, each awaited in the store before the next (changes
    // closer than a notification cycle would be one); the spike 4242 is gone from the live value.
    const recorded = async (): Promise<unknown[]> => {
      const now = Date.now();
      const window = `from=${new Date(now - 3_600_000).toISOString()}&to=${new Date(now + 1000).toISOString()}`;
      const answer = await get<{ series: Array<{ samples: Array<{ value: unknown }> }> }>(
        `/api/plcs/line1/history?symbols=MAIN.nSpeed&aggregate=raw&${window}`,
      );
      return (answer.series[0]?.samples ?? []).map((x) => x.value);
    };
    for (const value of [111, 4242, 333]) {
      await line1.writeMany([{ symbol: 'MAIN.nSpeed', value }]);
      await until(async () => (await recorded()).at(-1) === value);
    }
    // The PLC away and back: a gap, and the value recorded again after it.
    const gaps = async (): Promise<Array<{ to: string | null }>> => {
      const now = Date.now();
      const window = `from=${new Date(now - 3_600_000).toISOString()}&to=${new Date(now + 1000).toISOString()}`;
      const answer = await get<{ series: Array<{ gaps: Array<{ to: string | null }> }> }>(
        `/api/plcs/line1/history?symbols=MAIN.nSpeed&${window}`,
      );
      return answer.series[0]?.gaps ?? [];
    };
    const before = (await recorded()).length;
    line1.disconnect();
    await until(async () => (await gaps()).length === 1);
    line1.reconnect();
    await until(async () => (await gaps())[0]?.to !== null && (await recorded()).length > before);

    const { page } = await open({ token: admin, route: '/plc/line1/MAIN.nSpeed' });
    await page.getByRole('heading', { name: 'MAIN.nSpeed', exact: true }).waitFor();
    await page.getByRole('button', { name: 'Pin to watch list' }).click();
    await page.getByRole('link', { name: 'Watch' }).click();
    await page.getByLabel('Window').selectOption({ label: '1 h' });
    const summary = page.getByTestId('trend-history');
    await summary
      .filter({ hasText: /line1: MAIN.nSpeed: \d+ recorded points? \(111 to 4242\), 1 break/ })
      .waitFor();

    // After a reload the browser has seen only the current value live: the past comes from the history, in the
    // window chosen before the reload.
    await page.reload();
    await page.locator('tr[data-symbol="MAIN.nSpeed"]').getByText('333').waitFor();
    assert.equal(await page.getByLabel('Window').inputValue(), '3600000');
    await summary
      .filter({ hasText: /line1: MAIN.nSpeed: \d+ recorded points? \(111 to 4242\), 1 break/ })
      .waitFor();
    const chart = page.getByRole('img', { name: 'Trend of line1: MAIN.nSpeed' });
    await chart.locator('canvas').waitFor();
    await assertAccessible(page, 'watch list with history');
    await screenshot(page, 'watch-history');

    // Dragging across the chart asks for the dragged span only, in buckets of its own.
    const over = chart.locator('.u-over');
    const box = await over.boundingBox();
    assert.ok(box);
    const zoomed = page.waitForRequest((r) => {
      const url = new URL(r.url());
      if (!url.pathname.endsWith('/history')) return false;
      const span =
        Date.parse(url.searchParams.get('to') ?? '') - Date.parse(url.searchParams.get('from') ?? '');
      return span > 0 && span < 3_000_000;
    });
    await page.mouse.move(box.x + box.width * 0.9, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width * 0.999, box.y + box.height / 2, { steps: 5 });
    await page.mouse.up();
    await zoomed;
    assert.equal(await page.getByRole('button', { name: 'Reset zoom' }).isEnabled(), true);
    // Reset asks for the whole window again.
    const whole = page.waitForRequest((r) => {
      const url = new URL(r.url());
      if (!url.pathname.endsWith('/history')) return false;
      const span =
        Date.parse(url.searchParams.get('to') ?? '') - Date.parse(url.searchParams.get('from') ?? '');
      return span === 3_600_000;
    });
    await page.getByRole('button', { name: 'Reset zoom' }).click();
    await whole;
  });

  it('pages through the alarm history of a date window', async () => {
    // The script raises CAPPER_JAM on scan 1 and clears it on 3, FILLER_OVERTEMP on 4 and 6; each step is followed
    // by a wait until the alarm monitor shows its outcome, so no transition is skipped. Both are acknowledged
    // (and end) before the next run: two runs make sixteen transitions.
    const outstanding = async (): Promise<string> =>
      (await get<{ items: Array<{ code: string; status: string }> }>('/api/plcs/line1/alarms')).items
        .map((a) => `${a.code}:${a.status}`)
        .sort()
        .join(',');
    const stepTo = async (cycles: number, state: string): Promise<void> => {
      await post(`/api/plcs/line1/sim/step?cycles=${cycles}`);
      await until(async () => (await outstanding()) === state);
    };
    for (let run = 0; run < 2; run++) {
      await post('/api/plcs/line1/sim/reset');
      await stepTo(1, 'CAPPER_JAM:active');
      await stepTo(2, 'CAPPER_JAM:passive');
      await stepTo(1, 'CAPPER_JAM:passive,FILLER_OVERTEMP:active');
      await stepTo(2, 'CAPPER_JAM:passive,FILLER_OVERTEMP:passive');
      await post('/api/plcs/line1/alarms/CAPPER_JAM/acknowledge');
      await post('/api/plcs/line1/alarms/FILLER_OVERTEMP/acknowledge');
      await until(async () => (await outstanding()) === '');
    }
    const journal = (await get<{ items: unknown[] }>('/api/plcs/line1/alarms/history?limit=1000')).items;
    assert.equal(journal.length, 16);
    const from = new Date(Date.now() - 86_400_000).toISOString();
    const to = new Date(Date.now() + 3_600_000).toISOString();
    let all: Array<{ seq: number }> = [];
    // Written to the history store by the next flush.
    await until(async () => {
      all = (
        await get<{ items: Array<{ seq: number }> }>(
          `/api/plcs/line1/alarms/history?from=${from}&to=${to}&limit=1000`,
        )
      ).items;
      return all.length === 16;
    });
    const seqs = all.map((i) => i.seq);

    const { page } = await open({ token: admin, route: '/alarms/line1' });
    const form = page.getByRole('form', { name: 'Alarm history window' });
    await form.getByLabel('Per page').selectOption('10');
    await form.getByRole('button', { name: 'Show' }).click();
    const table = page.getByRole('table', { name: 'Alarm history of line1' });
    const shown = async (): Promise<number[]> =>
      (
        await Promise.all((await table.locator('tr[data-seq]').all()).map((r) => r.getAttribute('data-seq')))
      ).map(Number);
    const status = page.getByTestId('alarm-history-page');
    await status.filter({ hasText: 'Page 1: 10 transitions' }).waitFor();
    assert.deepEqual(await shown(), seqs.slice(0, 10));
    await assertAccessible(page, 'alarm history');
    await screenshot(page, 'alarm-history');

    await page.getByRole('button', { name: 'Next page' }).click();
    await status.filter({ hasText: 'Page 2:' }).waitFor();
    assert.deepEqual(await shown(), seqs.slice(10, 20));
    await page.getByRole('button', { name: 'Previous page' }).click();
    await status.filter({ hasText: 'Page 1: 10 transitions' }).waitFor();
    assert.deepEqual(await shown(), seqs.slice(0, 10));
    assert.equal(await page.getByRole('button', { name: 'Previous page' }).isDisabled(), true);

    // A window in the future holds nothing; one whose from is after its to is refused by the gateway.
    const later = new Date(Date.now() + 2 * 86_400_000);
    const local = (d: Date): string =>
      `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}T10:00`;
    await form.getByLabel('From').fill(local(later));
    await form.getByLabel('To').fill(`${local(later).slice(0, 11)}11:00`);
    await form.getByRole('button', { name: 'Show' }).click();
    await page.getByText('No alarm transition in this window.').waitFor();
    await form.getByLabel('To').fill(`${local(later).slice(0, 11)}09:00`);
    await form.getByRole('button', { name: 'Show' }).click();
    await page.getByRole('alert').filter({ hasText: 'VALIDATION_ERROR' }).waitFor();
  });
});
