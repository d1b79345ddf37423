// Alarm streams as registered connections: NotificationConnections shared with the notification SSE (refusals
// never count), ConnectionLimits at the edge, the admin listing and termination, metrics, a slow client's bounded
// queue (drops counted, `gap` first on resume, others on time), 404 before 403 for unmonitored PLCs, flag off.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { manualClock } from '../../helpers/app.ts';
import { bearer, mintToken } from '../../helpers/tokens.ts';
import { RawSse } from '../notifications/clients.ts';
import { arrayPath, createPlant, entry, listen, startAlarmRig } from './fixture.ts';

const allFeatures = { Alarms: true, Notifications: true, Simulation: true, Variables: true, Rpc: true };

interface Row {
  id: string;
  kind: string;
  plcId: string | null;
  user: string;
  symbols: string[];
  sent: number;
  dropped: number;
}

describe('alarm streams as registered connections', () => {
  test('NotificationConnections: one budget with the notification SSE; the next stream is 429; refusals never count', async () => {
    const clock = manualClock();
    const rig = await startAlarmRig('simulated', {
      now: clock.now,
      settings: { Features: allFeatures, RateLimiting: { NotificationConnections: 3 } },
    });
    const open: RawSse[] = [];
    try {
      const base = await listen(rig);
      const h = bearer(await mintToken({ sub: 'budget' }));
      const sse = async (path: string, headers = h): Promise<RawSse> => {
        const s = await new RawSse(`${base}${path}`, headers).opened();
        open.push(s);
        return s;
      };
      assert.equal((await sse('/api/plcs/nope/alarms/stream')).status, 404);
      assert.equal((await sse('/api/plcs/line1/alarms/stream', bearer('bad'))).status, 401);
      const statuses = [
        (await sse('/api/plcs/line1/alarms/stream')).status,
        (await sse('/api/alarms/stream')).status,
        (await sse(`/api/plcs/line1/notifications/sse?symbols=${arrayPath}[1].sKey`)).status,
      ];
      assert.deepEqual(statuses, [200, 200, 200]);
      for (const path of ['/api/plcs/line1/alarms/stream', '/api/alarms/stream']) {
        const over = await sse(path);
        assert.equal(over.status, 429, path);
        assert.ok(Number(over.headers['retry-after']) > 0);
        assert.equal((await over.json()).error?.code, 'RATE_LIMITED');
      }
      // Per user: someone else still opens; and the window passes.
      assert.equal((await sse('/api/alarms/stream', bearer(await mintToken({ sub: 'other' })))).status, 200);
      clock.advance(60_000);
      assert.equal((await sse('/api/alarms/stream')).status, 200);
      // The alarm hub has no rate-limit policy: it opens past the budget.
      clock.advance(0);
      const negotiate = await rig.app.inject({
        method: 'POST',
        url: '/api/plcs/line1/alarms/ws/negotiate?negotiateVersion=1',
        headers: h,
      });
      assert.equal(negotiate.statusCode, 200);
    } finally {
      for (const s of open) s.close();
      await rig.close();
    }
  });

  test('ConnectionLimits MaxPerUser and MaxTotal at the edge: 429 CONNECTION_LIMIT; a terminated stream frees its place', async () => {
    const rig = await startAlarmRig('simulated', {
      settings: {
        ConnectionLimits: { MaxPerUser: 2, MaxTotal: 3 },
        RateLimiting: { NotificationConnections: 100 },
      },
    });
    const open: RawSse[] = [];
    try {
      const base = await listen(rig);
      const token = await mintToken();
      const sse = async (path: string, t = token): Promise<RawSse> => {
        const s = await new RawSse(`${base}${path}`, bearer(t)).opened();
        open.push(s);
        return s;
      };
      const a = await sse('/api/plcs/line1/alarms/stream');
      await sse('/api/alarms/stream');
      const third = await sse('/api/plcs/line1/alarms/stream');
      assert.equal(third.status, 429);
      assert.equal((await third.json()).error?.code, 'CONNECTION_LIMIT');
      assert.equal((await sse('/api/alarms/stream', await mintToken({ sub: 'u2' }))).status, 200);
      const total = await sse('/api/alarms/stream', await mintToken({ sub: 'u3' }));
      assert.equal(total.status, 429);
      assert.match(String((await total.json()).error?.message), /MaxTotal 3/);
      const rows = (await rig.call('GET', '/api/admin/connections')).json<{ data: Row[] }>().data;
      const row = rows.find((r) => r.kind === 'alarms.sse');
      assert.ok(row);
      const del = await rig.call('DELETE', `/api/admin/connections/${row.id}`);
      assert.equal(del.statusCode, 200, del.body);
      await a.closedByServer();
      assert.equal((await sse('/api/plcs/line1/alarms/stream')).status, 200);
    } finally {
      for (const s of open) s.close();
      await rig.close();
    }
  });

  test('the admin listing shows each alarm stream (kind, PLC, user, PLCs watched, sent) and /metrics counts them', async () => {
    const rig = await startAlarmRig('simulated', { targets: [await createPlant('other')] });
    const open: RawSse[] = [];
    try {
      const base = await listen(rig);
      const one = await new RawSse(
        `${base}/api/plcs/line1/alarms/stream`,
        bearer(await mintToken({ sub: 'ann' })),
      ).opened();
      const fleet = await new RawSse(
        `${base}/api/alarms/stream`,
        bearer(await mintToken({ sub: 'bob' })),
      ).opened();
      open.push(one, fleet);
      await rig.writeSlot(9, entry({ sKey: 'LISTED' }));
      await one.next((e) => e.event === 'alarm');
      await fleet.next((e) => e.event === 'alarm');
      const rows = (await rig.call('GET', '/api/admin/connections')).json<{ data: Row[] }>().data;
      const pick = ({ kind, plcId, user, symbols, sent, dropped }: Row) => ({
        kind,
        plcId,
        user,
        symbols,
        sent,
        dropped,
      });
      assert.deepEqual(
        rows.map(pick).sort((x, y) => x.kind.localeCompare(y.kind)),
        [
          { kind: 'alarms.fleet.sse', plcId: null, user: 'bob', symbols: ['line1'], sent: 1, dropped: 0 },
          { kind: 'alarms.sse', plcId: 'line1', user: 'ann', symbols: ['line1'], sent: 1, dropped: 0 },
        ],
      );
      const metrics = (await rig.app.inject({ method: 'GET', url: '/metrics' })).body;
      assert.match(metrics, /stream_connections\{kind="alarms.sse"\} 1/);
      assert.match(metrics, /stream_connections\{kind="alarms.fleet.sse"\} 1/);
      assert.match(metrics, /stream_events_sent_total\{kind="alarms.sse"\} 1/);
    } finally {
      for (const s of open) s.close();
      await rig.close();
    }
  });

  test('a client that stops reading: bounded queue, drops counted, gap first on resume, others on time', async () => {
    // Large descriptions make each frame ~40 KB, so a paused client's socket buffers fill within a few writes.
    const dir = await mkdtemp(join(tmpdir(), 'plc-gateway-alarm-texts-'));
    const keys = Array.from({ length: 16 }, (_, i) => `BIG_${i + 1}`);
    await writeFile(
      join(dir, 'texts.json'),
      JSON.stringify(Object.fromEntries(keys.map((k) => [k, k.padEnd(40_000, '.')]))),
    );
    const queueLength = 20;
    const rig = await startAlarmRig('simulated', {
      settings: {
        Notifications: { QueueLength: queueLength },
        PlcAlarms: { TextCatalog: join(dir, 'texts.json') },
      },
    });
    const open: RawSse[] = [];
    try {
      const base = await listen(rig);
      const h = bearer(await mintToken());
      const slow = await new RawSse(`${base}/api/plcs/line1/alarms/stream`, h, { paused: true }).opened();
      const fast = await new RawSse(`${base}/api/plcs/line1/alarms/stream`, h).opened();
      open.push(slow, fast);
      let on = false;
      let writes = 0;
      const churn = async (): Promise<void> => {
        on = !on;
        writes += 1;
        // Sixteen transitions in one snapshot: all raised, then all ended (nothing awaits acknowledgement).
        await rig.target.write(
          arrayPath,
          keys.map((sKey) => entry({ sKey, IsActive: on, NeedsAck: false })),
        );
        const alarms = (): number => fast.events.filter((e) => e.event === 'alarm').length;
        await fast.next(() => alarms() >= writes * keys.length);
      };
      const rows = async () => (await rig.call('GET', '/api/admin/connections')).json<{ data: Row[] }>().data;
      while (!(await rows()).some((r) => r.dropped > 0)) {
        assert.ok(writes < 500, 'the paused client never dropped anything');
        await churn();
      }
      for (let i = 0; i < 4; i++) await churn();
      const listed = await rows();
      assert.equal(listed.filter((r) => r.dropped > 0).length, 1, 'only the slow client drops');
      const dropped = listed.find((r) => r.dropped > 0)?.dropped ?? 0;
      assert.equal(fast.events.filter((e) => e.event === 'gap').length, 0);
      assert.equal(fast.events.filter((e) => e.event === 'alarm').length, writes * 16);
      slow.resume();
      const gap = await slow.next((e) => e.event === 'gap');
      assert.deepEqual(gap.data, { dropped });
      assert.equal(gap.id, undefined);
      const lastId = fast.events.at(-1)?.id;
      const last = await slow.next((e) => e.id === lastId);
      assert.ok(slow.events.indexOf(last) - slow.events.indexOf(gap) <= queueLength);
      assert.match(
        (await rig.app.inject({ method: 'GET', url: '/metrics' })).body,
        new RegExp(`stream_events_dropped_total\\{kind="alarms.sse"\\} ${dropped}`),
      );
    } finally {
      for (const s of open) s.close();
      await rig.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('a PLC without alarm configuration is 404 PLC_NOT_FOUND on every alarm route, whatever plc_access says', async () => {
    const rig = await startAlarmRig('simulated', {
      targets: [await createPlant('other')],
      settings: { RateLimiting: { NotificationConnections: 100 } },
    });
    try {
      const base = await listen(rig);
      const onlyLine1 = await mintToken({ plc_access: ['line1'] });
      const onlyOther = await mintToken({ plc_access: ['other'] });
      const routes = [
        ['GET', '/api/plcs/other/alarms'],
        ['GET', '/api/plcs/other/alarms/history'],
        ['POST', '/api/plcs/other/alarms/KEY/acknowledge'],
        ['POST', '/api/plcs/other/alarms/ws/negotiate'],
      ] as const;
      for (const t of [onlyLine1, onlyOther]) {
        for (const [method, url] of routes) {
          const res = await rig.app.inject({ method, url, headers: bearer(t) });
          assert.equal(res.statusCode, 404, `${method} ${url}`);
          assert.equal(res.json<{ error: { code: string } }>().error.code, 'PLC_NOT_FOUND');
        }
        const s = await new RawSse(`${base}/api/plcs/other/alarms/stream`, bearer(t)).opened();
        assert.equal(s.status, 404);
        assert.equal((await s.json()).error?.code, 'PLC_NOT_FOUND');
      }
      // A monitored PLC outside the claim stays 403, as every per-PLC route answers.
      const denied = await new RawSse(`${base}/api/plcs/line1/alarms/stream`, bearer(onlyOther)).opened();
      assert.equal(denied.status, 403);
      assert.equal((await denied.json()).error?.code, 'PLC_ACCESS_DENIED');
    } finally {
      await rig.close();
    }
  });

  test('flag Alarms off: 501 FEATURE_DISABLED on both stream routes', async () => {
    const rig = await startAlarmRig('simulated', { settings: { Features: { Alarms: false } } });
    try {
      for (const url of ['/api/plcs/line1/alarms/stream', '/api/alarms/stream']) {
        const res = await rig.call('GET', url);
        assert.equal(res.statusCode, 501, url);
        assert.equal(res.json<{ error: { code: string } }>().error.code, 'FEATURE_DISABLED');
      }
    } finally {
      await rig.close();
    }
  });
});
