// The admin listing shows the subscription options a notification stream holds (SSE and hub), as `subscribed`
// echoes them: only for symbols subscribed by a request that named options; a stream in the spec's form has none.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { HttpTransportType, HubConnectionBuilder, LogLevel } from '@microsoft/signalr';
import { authHeaders, connections, RawSse, sseUrl, startStreamApp } from '../notifications/clients.ts';

describe('admin connections: subscription options', () => {
  test('SSE and hub streams list the options they named; a stream without options lists none', async () => {
    const s = await startStreamApp('simulated', {
      settings: { Notifications: { MinResendIntervalMs: 100 } },
    });
    const h = authHeaders(s.token);
    const streams: RawSse[] = [];
    const hub = new HubConnectionBuilder()
      .withUrl(`${s.base}/api/plcs/plc1/notifications/ws`, {
        accessTokenFactory: () => s.token,
        transport: HttpTransportType.WebSockets,
      })
      .configureLogging(LogLevel.None)
      .build();
    try {
      // cycleMs=75 is revised to 50: the listing shows the effective options.
      const named = await new RawSse(
        `${sseUrl(s.base, ['MAIN.nA'])}&cycleMs=75&mode=on-change&deadband=2&maxIntervalMs=500`,
        h,
      ).opened();
      streams.push(named);
      await named.next((e) => e.event === 'subscribed');
      const plain = await new RawSse(sseUrl(s.base, ['MAIN.nB']), h).opened();
      streams.push(plain);
      await plain.next((e) => e.event === 'subscribed');

      await hub.start();
      await hub.invoke('Subscribe', ['MAIN.nA', 'MAIN.nB'], { cycleMs: 200, mode: 'cyclic' });
      // Held without options: listed among the symbols, not under the options.
      await hub.invoke('Subscribe', ['MAIN.fSpeed']);

      const rows = await connections(s);
      const row = (kind: string, symbol: string) =>
        rows.find((r) => r.kind === kind && (r.symbols as string[]).includes(symbol));
      assert.deepEqual(row('notifications.sse', 'MAIN.nA')?.details, {
        options: [{ symbols: ['MAIN.nA'], cycleMs: 50, mode: 'on-change', deadband: 2, maxIntervalMs: 500 }],
      });
      const plainRow = row('notifications.sse', 'MAIN.nB');
      assert.ok(plainRow !== undefined);
      assert.equal('details' in plainRow, false, 'no options named: no details');
      const hubRow = row('notifications.ws', 'MAIN.fSpeed');
      assert.deepEqual([...(hubRow?.symbols as string[])].sort(), ['MAIN.fSpeed', 'MAIN.nA', 'MAIN.nB']);
      assert.deepEqual(hubRow?.details, {
        options: [
          { symbols: ['MAIN.nA', 'MAIN.nB'], cycleMs: 200, mode: 'cyclic', deadband: 0, maxIntervalMs: 0 },
        ],
      });

      // Moved back to the defaults without naming options: the hub connection holds no named options any more.
      await hub.invoke('Subscribe', ['MAIN.nA', 'MAIN.nB']);
      const after = (await connections(s)).find((r) => r.kind === 'notifications.ws');
      assert.ok(after !== undefined);
      assert.equal('details' in after, false);
    } finally {
      await hub.stop();
      for (const c of streams) c.close();
      await s.close();
    }
  });
});
