// The alarm hub through real sockets on both drivers: the stock @microsoft/signalr client receives
// AlarmTransition({ kind, alarm }) from connect on, with nothing to call; refusals (unmonitored PLC, plc_access,
// flag off) come as JSON before the upgrade; the hub is a registered connection the admin route can end.
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { after, before, describe, test } from 'node:test';
import {
  HttpTransportType,
  HubConnectionBuilder,
  HubConnectionState,
  LogLevel,
  type HubConnection,
} from '@microsoft/signalr';
import { WebSocket } from 'ws';
import { Signal } from '../../helpers/signal.ts';
import { bearer, mintToken } from '../../helpers/tokens.ts';
import { waitLimitMs } from '../notifications/clients.ts';
import { createPlant, listen, startAlarmRig, testDrivers, type AlarmRig } from './fixture.ts';

interface Frame {
  kind: string;
  alarm: { code: string; scope: string; status: string };
}

function alarmClient(url: string, token: string, skipNegotiation = false) {
  const received: Frame[] = [];
  const signal = new Signal();
  let closedWith: Error | undefined | null = null;
  const connection: HubConnection = new HubConnectionBuilder()
    .withUrl(url, {
      accessTokenFactory: () => token,
      transport: HttpTransportType.WebSockets,
      skipNegotiation,
    })
    .configureLogging(LogLevel.None)
    .build();
  connection.on('AlarmTransition', (arg: Frame) => {
    received.push(arg);
    signal.notify();
  });
  connection.onclose((err) => {
    closedWith = err;
    signal.notify();
  });
  return {
    connection,
    received,
    frames: () => received.map((f) => `${f.kind} ${f.alarm.code}`),
    count: (n: number) =>
      signal.until(
        () => received.length >= n,
        waitLimitMs,
        () => `${n} transitions (have ${JSON.stringify(received)})`,
      ),
    closed: () =>
      signal.until(
        () => (closedWith === null ? undefined : { error: closedWith }),
        waitLimitMs,
        () => 'close',
      ),
  };
}

/** Tries a WebSocket upgrade; answers the HTTP refusal (status and envelope) or 101. */
function upgrade(url: string, headers: Record<string, string>): Promise<{ status: number; code?: string }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    ws.on('open', () => {
      ws.terminate();
      resolve({ status: 101 });
    });
    ws.on('unexpected-response', (_req, res: IncomingMessage) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => {
        const code = (JSON.parse(body) as { error?: { code?: string } }).error?.code;
        resolve({ status: res.statusCode ?? 0, ...(code === undefined ? {} : { code }) });
      });
    });
    ws.on('error', (err) => reject(err));
  });
}

for (const driver of testDrivers) {
  describe(`alarm hub with @microsoft/signalr (${driver})`, () => {
    let rig: AlarmRig;
    let base: string;
    let token: string;
    before(async () => {
      rig = await startAlarmRig(driver, { targets: [await createPlant('other')] });
      base = await listen(rig);
      token = await mintToken();
    });
    after(() => rig.close());

    for (const skipNegotiation of [false, true]) {
      test(`pushes AlarmTransition({ kind, alarm }) from connect on (skipNegotiation ${String(skipNegotiation)})`, async () => {
        await rig.reset();
        const c = alarmClient(`${base}/api/plcs/line1/alarms/ws`, token, skipNegotiation);
        await c.connection.start();
        try {
          await rig.step(2);
          await c.count(2);
          assert.deepEqual(c.frames(), ['raised FILLER_OVERTEMP', 'raised CAPPER_JAM']);
          assert.equal(c.received[0]?.alarm.status, 'active');
          assert.equal(c.received[0]?.alarm.scope, 'line1');
          await rig.step(4); // cycles 3-6: PALLET_FULL raised, FILLER_OVERTEMP cleared, PALLET_FULL ended
          await c.count(5);
          assert.deepEqual(c.frames().slice(2), [
            'raised PALLET_FULL',
            'cleared FILLER_OVERTEMP',
            'ended PALLET_FULL',
          ]);
        } finally {
          await c.connection.stop();
        }
      });
    }

    test('the token in the query (browsers) is accepted; a bad token is refused before the upgrade', async () => {
      const url = `${base.replace('http', 'ws')}/api/plcs/line1/alarms/ws`;
      assert.deepEqual(await upgrade(`${url}?access_token=${token}`, {}), { status: 101 });
      assert.deepEqual(await upgrade(`${url}?access_token=nope`, {}), { status: 401, code: 'UNAUTHORIZED' });
    });

    test('a PLC without alarm configuration: 404 PLC_NOT_FOUND on negotiate and before the upgrade', async () => {
      const negotiate = await rig.call('POST', '/api/plcs/other/alarms/ws/negotiate?negotiateVersion=1');
      assert.equal(negotiate.statusCode, 404);
      assert.equal(negotiate.json<{ error: { code: string } }>().error.code, 'PLC_NOT_FOUND');
      const ws = `${base.replace('http', 'ws')}/api/plcs`;
      assert.deepEqual(await upgrade(`${ws}/other/alarms/ws`, bearer(token)), {
        status: 404,
        code: 'PLC_NOT_FOUND',
      });
      assert.deepEqual(await upgrade(`${ws}/nope/alarms/ws`, bearer(token)), {
        status: 404,
        code: 'PLC_NOT_FOUND',
      });
      const elsewhere = await mintToken({ plc_access: ['other'] });
      assert.deepEqual(await upgrade(`${ws}/line1/alarms/ws`, bearer(elsewhere)), {
        status: 403,
        code: 'PLC_ACCESS_DENIED',
      });
    });

    test('a registered connection: listed as alarms.ws, ended by the admin route with a Close', async () => {
      const c = alarmClient(`${base}/api/plcs/line1/alarms/ws`, token);
      await c.connection.start();
      const rows = (await rig.call('GET', '/api/admin/connections')).json<{
        data: Array<{ id: string; kind: string; plcId: string | null; user: string }>;
      }>().data;
      const row = rows.find((r) => r.kind === 'alarms.ws');
      assert.equal(row?.plcId, 'line1');
      const del = await rig.app.inject({
        method: 'DELETE',
        url: `/api/admin/connections/${row?.id}`,
        headers: bearer(token),
      });
      assert.equal(del.statusCode, 200, del.body);
      const { error } = await c.closed();
      assert.match(String(error?.message), /terminated by an administrator/);
      assert.equal(c.connection.state, HubConnectionState.Disconnected);
    });
  });
}

describe('alarm hub, flag off', () => {
  test('501 FEATURE_DISABLED on negotiate and before the upgrade', async () => {
    const rig = await startAlarmRig('simulated', { settings: { Features: { Alarms: false } } });
    try {
      const base = await listen(rig);
      const negotiate = await rig.call('POST', '/api/plcs/line1/alarms/ws/negotiate?negotiateVersion=1');
      assert.equal(negotiate.statusCode, 501);
      assert.deepEqual(
        await upgrade(`${base.replace('http', 'ws')}/api/plcs/line1/alarms/ws`, bearer(await mintToken())),
        { status: 501, code: 'FEATURE_DISABLED' },
      );
    } finally {
      await rig.close();
    }
  });
});
