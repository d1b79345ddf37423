// GET /api/admin/plcs/{plcId}/subscriptions and the notification figures in /metrics, over real sockets: SSE
// clients of two Real PLCs (sim-ads on loopback), one past its NotificationBudget, one whose PLC refuses
// notifications below it. The clients keep getting values while their symbols are polled, and the listing
// follows them back to notifications; Admin role and plc_access are both required.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { SimulatedPlc } from '../../../src/simulator/engine/index.ts';
import { createAdsTarget, type AdsTarget } from '../../../src/targets/ads/index.ts';
import { buildTestApp } from '../../helpers/app.ts';
import { testConfig } from '../../helpers/config.ts';
import { bearer, mintToken } from '../../helpers/tokens.ts';
import {
  eventually,
  fastTuning,
  program,
  realSettings,
  startConnected,
  startPlant,
  type Plant,
} from '../../targets/ads/harness.ts';
import { RawSse, sseUrl, type SseEvent } from '../notifications/clients.ts';

const tuning = { ...fastTuning, alignAfterMs: 600_000, alignEveryMs: 600_000 };

interface Watched {
  symbol: string;
  cycleMs: number;
  mode: string;
  clients: number;
  since: string;
  reason?: string;
}

interface Listing {
  plcId: string;
  mode: string;
  connectionState: string;
  notificationBudget: number | null;
  plcCapacity: number | null;
  refusals: number;
  nextRetryAt: string | null;
  pollPeriodMs: number | null;
  notifications: Watched[];
  polled: Watched[];
  waiting: Watched[];
}

const changeOf = (symbol: string, value: number) => (e: SseEvent) =>
  e.event === 'change' &&
  (e.data as { symbol: string }).symbol === symbol &&
  (e.data as { value: unknown }).value === value;

async function realTarget(
  id: string,
  plant: Plant,
  settings: Parameters<typeof realSettings>[1],
): Promise<AdsTarget> {
  const config = testConfig({ AmsRouter: { NetId: '127.0.0.1.1.20', LocalAdsPort: 32750 } });
  const target = createAdsTarget(id, realSettings(plant.port, settings), { config }, tuning);
  await startConnected(target);
  await eventually(() => (target.diagnostics.restores > 0 ? true : undefined), 5000, 'restored');
  return target;
}

describe('admin: a PLC’s notifications and polled symbols', () => {
  let press: Plant;
  let mill: Plant;
  let pressTarget: AdsTarget;
  let millTarget: AdsTarget;
  let app: FastifyInstance;
  let base: string;
  let admin: Record<string, string>;

  before(async () => {
    press = await startPlant();
    // The mill's PLC holds at most 4 notifications per connection, system ones included.
    mill = await startPlant(new SimulatedPlc(program()), 0, { maxNotificationsPerClient: 4 });
    pressTarget = await realTarget('press', press, { NotificationBudget: 2 });
    millTarget = await realTarget('mill', mill, { NotificationBudget: 500, NotificationRetryMs: 600_000 });
    // More streams than RateLimiting.NotificationConnections lets one user open a minute.
    app = await buildTestApp({
      targets: [pressTarget, millTarget],
      settings: { RateLimiting: { Enabled: false } },
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    base = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
    admin = bearer(await mintToken());
  });

  after(async () => {
    await app.close();
    await pressTarget.close();
    await millTarget.close();
    await press.stop();
    await mill.stop();
  });

  const listing = async (plcId: string, headers = admin): Promise<Listing> => {
    const res = await app.inject({ url: `/api/admin/plcs/${plcId}/subscriptions`, headers });
    assert.equal(res.statusCode, 200, res.body);
    return res.json<{ data: Listing }>().data;
  };

  const metric = async (name: string, plcId: string): Promise<number> => {
    const res = await app.inject({ url: '/metrics' });
    const hit = new RegExp(`^${name}\\{plcId="${plcId}"\\} (\\d+)$`, 'm').exec(res.body);
    assert.ok(hit, `${name} of ${plcId} in /metrics`);
    return Number(hit[1]);
  };

  test('past the budget: polled, still delivering, listed and counted; back when a client leaves', async () => {
    const first = await new RawSse(sseUrl(base, ['MAIN.aValues0', 'MAIN.aValues1'], 'press'), admin).opened();
    const second = await new RawSse(
      sseUrl(base, ['MAIN.aValues1', 'MAIN.aValues2'], 'press'),
      admin,
    ).opened();
    try {
      assert.equal(second.status, 200);
      await second.next(changeOf('MAIN.aValues2', 2));
      let data = await listing('press');
      assert.deepEqual(
        [
          data.plcId,
          data.mode,
          data.connectionState,
          data.notificationBudget,
          data.plcCapacity,
          data.refusals,
        ],
        ['press', 'Real', 'Connected', 2, null, 0],
      );
      assert.deepEqual(
        data.notifications.map((n) => [n.symbol, n.clients, n.mode, n.cycleMs]),
        [
          ['MAIN.aValues0', 1, 'on-change', 100],
          ['MAIN.aValues1', 2, 'on-change', 100],
        ],
      );
      assert.deepEqual(
        data.polled.map((p) => [p.symbol, p.clients, p.reason]),
        [['MAIN.aValues2', 1, 'budget']],
      );
      assert.ok(!Number.isNaN(Date.parse(data.polled[0]?.since ?? '')));
      assert.equal(data.pollPeriodMs, 100);
      assert.deepEqual(
        [await metric('plc_ads_notifications', 'press'), await metric('plc_ads_polled_symbols', 'press')],
        [2, 1],
      );

      press.plc.write('MAIN.aValues2', 42);
      await second.next(changeOf('MAIN.aValues2', 42));

      first.close();
      await eventually(
        async () => ((await listing('press')).polled.length === 0 ? true : undefined),
        5000,
        'back to notifications',
      );
      data = await listing('press');
      assert.deepEqual(
        data.notifications.map((n) => [n.symbol, n.clients]),
        [
          ['MAIN.aValues1', 1],
          ['MAIN.aValues2', 1],
        ],
      );
      assert.deepEqual(
        [await metric('plc_ads_notifications', 'press'), await metric('plc_ads_polled_symbols', 'press')],
        [2, 0],
      );
      const seen = second.events.length;
      press.plc.write('MAIN.aValues2', 43);
      await second.next(changeOf('MAIN.aValues2', 43), seen);
      const values = second.events
        .filter((e) => e.event === 'change' && (e.data as { symbol: string }).symbol === 'MAIN.aValues2')
        .map((e) => (e.data as { value: unknown }).value);
      assert.deepEqual(values, [2, 42, 43], 'the client noticed nothing');
    } finally {
      first.close();
      second.close();
    }
  });

  test('refused by the PLC below the budget: polled with reason refused, counted as a refusal', async () => {
    const system = mill.server.stats().clients[0]?.notifications.active ?? 0;
    const slots = 4 - system;
    const symbols = Array.from({ length: slots + 1 }, (_, i) => `MAIN.aValues${i}`);
    const sse = await new RawSse(sseUrl(base, symbols, 'mill'), admin).opened();
    try {
      assert.equal(sse.status, 200);
      for (const [i, s] of symbols.entries()) await sse.next(changeOf(s, i));
      const data = await listing('mill');
      assert.equal(data.notifications.length, slots);
      assert.deepEqual(
        data.polled.map((p) => [p.symbol, p.reason]),
        [[symbols[slots], 'refused']],
      );
      assert.deepEqual([data.refusals, data.plcCapacity], [1, slots]);
      assert.ok(data.nextRetryAt !== null);
      assert.equal(await metric('plc_ads_notification_refusals_total', 'mill'), 1);
      assert.equal(await metric('plc_ads_polled_symbols', 'mill'), 1);
      assert.equal(await metric('plc_ads_notification_refusals_total', 'press'), 0);
      mill.plc.write(symbols[slots] ?? '', 77);
      await sse.next(changeOf(symbols[slots] ?? '', 77));
    } finally {
      sse.close();
    }
  });

  test('one entry per (symbol, cycle, mode), each with its own clients', async () => {
    const url = sseUrl(base, ['MAIN.aValues5'], 'press');
    const fast = [await new RawSse(url, admin).opened(), await new RawSse(url, admin).opened()];
    const slow = await new RawSse(`${url}&cycleMs=200`, admin).opened();
    try {
      for (const c of [...fast, slow]) await c.next(changeOf('MAIN.aValues5', 5));
      const data = await listing('press');
      assert.deepEqual(
        data.notifications.map((n) => [n.symbol, n.cycleMs, n.mode, n.clients]),
        [
          ['MAIN.aValues5', 100, 'on-change', 2],
          ['MAIN.aValues5', 200, 'on-change', 1],
        ],
      );
    } finally {
      for (const c of [...fast, slow]) c.close();
    }
  });

  test('Admin and plc_access are both required', async () => {
    const get = (plcId: string, headers: Record<string, string>) =>
      app.inject({ url: `/api/admin/plcs/${plcId}/subscriptions`, headers });
    const millAdmin = bearer(await mintToken({ sub: 'mill-admin', plc_access: ['mill'] }));
    assert.equal((await get('mill', millAdmin)).statusCode, 200);
    const denied = await get('press', millAdmin);
    assert.equal(denied.statusCode, 403);
    assert.deepEqual(denied.json(), {
      data: null,
      error: { code: 'PLC_ACCESS_DENIED', message: "The token's plc_access claim does not include press." },
    });
    const viewer = bearer(
      await mintToken({ sub: 'v', role: 'viewer', scope: 'ads:read', plc_access: ['*'] }),
    );
    const forbidden = await get('press', viewer);
    assert.equal(forbidden.statusCode, 403);
    assert.equal(forbidden.json<{ error: { code: string } }>().error.code, 'FORBIDDEN');
    const unknown = await get('nowhere', admin);
    assert.equal(unknown.statusCode, 404);
    assert.equal(unknown.json<{ error: { code: string } }>().error.code, 'PLC_NOT_FOUND');
    assert.equal((await get('press', {})).statusCode, 401);
  });
});
