// Alarm management on the alarm hub through real sockets with the stock @microsoft/signalr client: AlarmShelving
// announces shelve and expiry to every client, a shelved alarm's transitions reach only a client whose hub URL
// includes shelved ones, and a bad include ends the connection with the error right after the handshake.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { HttpTransportType, HubConnectionBuilder, LogLevel } from '@microsoft/signalr';
import { manualDeadlineClock } from '../../helpers/app.ts';
import { Signal } from '../../helpers/signal.ts';
import { bearer, mintToken } from '../../helpers/tokens.ts';
import { waitLimitMs } from '../notifications/clients.ts';
import { listen, startAlarmRig, testDrivers, type AlarmRig } from './fixture.ts';

interface Shelving {
  action: string;
  code: string;
  cause?: string;
  by?: string;
}

function client(url: string, token: string) {
  const lines: string[] = [];
  const signal = new Signal();
  const connection = new HubConnectionBuilder()
    .withUrl(url, { accessTokenFactory: () => token, transport: HttpTransportType.WebSockets })
    .configureLogging(LogLevel.None)
    .build();
  connection.on('AlarmTransition', (f: { kind: string; alarm: { code: string } }) => {
    lines.push(`${f.kind} ${f.alarm.code}`);
    signal.notify();
  });
  connection.on('AlarmShelving', (s: Shelving) => {
    lines.push(`${s.action} ${s.code}${s.cause === undefined ? '' : ` ${s.cause}`}`);
    signal.notify();
  });
  return {
    connection,
    lines,
    seen: (line: string) =>
      signal.until(
        () => lines.includes(line),
        waitLimitMs,
        () => `${line} (have ${JSON.stringify(lines)})`,
      ),
  };
}

for (const driver of testDrivers) {
  describe(`alarm hub: AlarmShelving and include (${driver})`, () => {
    let rig: AlarmRig;
    let base: string;
    let token: string;
    const clock = manualDeadlineClock(Date.UTC(2030, 0, 1));
    before(async () => {
      rig = await startAlarmRig(driver, {
        deadlines: clock,
        settings: { PlcTargets: { line1: { Rpc: { Invokable: ['GVL_HMI.fbAlarms.AcknowledgeAlarm'] } } } },
      });
      base = await listen(rig);
      token = await mintToken();
      await rig.step(2);
    });
    after(() => rig.close());

    test('AlarmShelving reaches every client; the shelved alarm’s transitions only the one including shelved', async () => {
      const plain = client(`${base}/api/plcs/line1/alarms/ws`, token);
      const all = client(`${base}/api/plcs/line1/alarms/ws?include=shelved`, token);
      await plain.connection.start();
      await all.connection.start();
      try {
        const operator = bearer(await mintToken({ sub: 'op-9', role: 'operator' }));
        const res = await rig.call(
          'POST',
          '/api/plcs/line1/alarms/CAPPER_JAM/shelve',
          { minutes: 5, reason: 'known jam' },
          operator,
        );
        assert.equal(res.statusCode, 200, res.body);
        await plain.seen('shelved CAPPER_JAM');
        await all.seen('shelved CAPPER_JAM');

        assert.equal(
          (await rig.call('POST', '/api/plcs/line1/alarms/CAPPER_JAM/acknowledge')).statusCode,
          200,
        );
        await all.seen('acknowledged CAPPER_JAM');
        // A visible transition after it: in order, so the plain client would have had the acknowledgement first.
        await rig.step(1); // cycle 3: PALLET_FULL raised
        await plain.seen('raised PALLET_FULL');
        assert.ok(!plain.lines.includes('acknowledged CAPPER_JAM'), JSON.stringify(plain.lines));

        clock.advance(5 * 60_000);
        await plain.seen('unshelved CAPPER_JAM expired');
        await all.seen('unshelved CAPPER_JAM expired');
      } finally {
        await plain.connection.stop();
        await all.connection.stop();
      }
    });

    test('an include naming no group ends the hub connection with VALIDATION_ERROR', async () => {
      const bad = client(`${base}/api/plcs/line1/alarms/ws?include=archived`, token);
      // The Close follows the handshake at once: start() fails with its error.
      await assert.rejects(bad.connection.start(), /VALIDATION_ERROR: include: 'archived'/);
    });
  });
}
