// The broker connection: mqtts with a test CA (refused without it), a password file broker, the `mqtt`
// readiness check (Healthy connected, Degraded while not, with the reason) and the MQTT figures in /metrics.
import { after, afterEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Mosquitto } from '../../../bench/servers/mosquitto.ts';
import { bearer, mintToken } from '../../helpers/tokens.ts';
import { mqttSettings, startGateway, Subscriber, waitLimitMs, type GatewayRig } from './fixture.ts';

interface Check {
  name: string;
  status: string;
  description: string;
  data: Record<string, unknown>;
}

/**
 * Resolves with the `mqtt` readiness check once `want` holds for it. Read now and again after each event that can
 * change it: a line the gateway's MQTT feature logs (session up, session lost) or a line of the broker's log (each
 * connection attempt, the refused ones too, which the gateway retries without a log line of its own).
 */
async function mqttCheck(gw: GatewayRig, broker: Mosquitto, want: (c: Check) => boolean): Promise<Check> {
  let events = 0;
  let wake: (() => void) | undefined;
  const bump = (): void => {
    events += 1;
    wake?.();
  };
  const undo = [gw.onMqttLog(bump), broker.onLog(bump)];
  const limit = setTimeout(() => wake?.(), waitLimitMs);
  const started = Date.now();
  try {
    for (;;) {
      const seen = events;
      const res = await gw.app.inject({
        method: 'GET',
        url: '/health/ready',
        headers: bearer(await mintToken()),
      });
      const check = res.json<{ checks: Check[] }>().checks.find((c) => c.name === 'mqtt');
      assert.ok(check, res.body);
      if (want(check)) return check;
      if (events === seen) await new Promise<void>((resolve) => (wake = resolve));
      wake = undefined;
      if (Date.now() - started >= waitLimitMs) throw new Error(`mqtt check never as wanted: ${res.body}`);
    }
  } finally {
    clearTimeout(limit);
    for (const u of undo) u();
  }
}

describe('MQTT broker connection', () => {
  const brokers: Mosquitto[] = [];
  let gw: GatewayRig | undefined;
  afterEach(async () => {
    await gw?.close();
    gw = undefined;
  });
  after(async () => {
    for (const b of brokers) await b.close();
  });

  it('publishes over mqtts to a broker whose certificate the CaFile signed', async () => {
    const broker = await Mosquitto.start({ tls: true });
    brokers.push(broker);
    const sub = await Subscriber.connect(broker.url, ['spBv1.0/#'], { ca: readFileSync(broker.caFile) });
    try {
      gw = await startGateway(mqttSettings(broker.url, { CaFile: broker.caFile }));
      await sub.sparkplug('spBv1.0/plant/NBIRTH/gw1');
      await sub.sparkplug('spBv1.0/plant/DBIRTH/gw1/line1');
      const check = await mqttCheck(gw, broker, (c) => c.status === 'Healthy');
      assert.equal(check.data.broker, `${broker.url}`);
    } finally {
      await sub.close();
    }
  });

  it('does not trust the broker without its CA: Degraded, with the reason', async () => {
    const broker = await Mosquitto.start({ tls: true });
    brokers.push(broker);
    gw = await startGateway(mqttSettings(broker.url));
    const check = await mqttCheck(gw, broker, (c) => c.data['plc-gateway.lastError'] !== undefined);
    assert.equal(check.status, 'Degraded');
    assert.match(String(check.data['plc-gateway.lastError']), /certificate/i);
    const ready = await gw.app.inject({
      method: 'GET',
      url: '/health/ready',
      headers: bearer(await mintToken()),
    });
    assert.equal(ready.statusCode, 200, 'Degraded still serves');
  });

  it('signs in with Username and Password, and reports a refused sign-in', async () => {
    const broker = await Mosquitto.start({ users: { gateway: 'line-secret' } });
    brokers.push(broker);
    gw = await startGateway(mqttSettings(broker.url, { Username: 'gateway', Password: 'wrong' }));
    const refused = await mqttCheck(gw, broker, (c) => c.data['plc-gateway.lastError'] !== undefined);
    assert.equal(refused.status, 'Degraded');
    assert.match(String(refused.data['plc-gateway.lastError']), /not authori[sz]ed/i);
    assert.doesNotMatch(JSON.stringify(refused), /wrong/, 'the password is never shown');
    await gw.close();
    gw = await startGateway(mqttSettings(broker.url, { Username: 'gateway', Password: 'line-secret' }));
    await mqttCheck(gw, broker, (c) => c.status === 'Healthy');
  });

  it('counts messages and bytes in /metrics and turns Degraded when the broker goes', async () => {
    const broker = await Mosquitto.start();
    brokers.push(broker);
    // Subscribed before the gateway starts, so the write below follows the PLC's birth (not folded into it).
    const sub = await Subscriber.connect(broker.url, ['spBv1.0/#']);
    gw = await startGateway(mqttSettings(broker.url));
    await mqttCheck(gw, broker, (c) => c.status === 'Healthy');
    try {
      await sub.sparkplug('spBv1.0/plant/DBIRTH/gw1/line1');
      await gw.plc.target.write('MAIN.nCount', 8);
      await sub.sparkplug('spBv1.0/plant/DDATA/gw1/line1');
    } finally {
      await sub.close();
    }
    const body = (await gw.app.inject({ method: 'GET', url: '/metrics' })).body;
    const figure = (name: string): number => Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(body)?.[1]);
    // NBIRTH, DBIRTH, DDATA at least.
    assert.ok(figure('mqtt_messages_published_total') >= 3, body);
    assert.ok(figure('mqtt_bytes_published_total') > 50);
    assert.equal(figure('mqtt_connected'), 1);
    assert.equal(figure('mqtt_dropped_changes_total'), 0);
    await broker.stop();
    const down = await mqttCheck(gw, broker, (c) => c.status === 'Degraded');
    assert.notEqual(down.data['plc-gateway'], 'Connected');
  });
});
