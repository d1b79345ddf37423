// A download that retypes a published symbol: Sparkplug announces a metric's datatype in the birth, so the device
// dies and is born again with the new datatype and value, and then publishes on.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { UMetric } from '../../../src/features/mqtt/sparkplug-codec.ts';
import { Mosquitto } from '../../../bench/servers/mosquitto.ts';
import { mqttProgram, mqttSettings, startGateway, Subscriber, type GatewayRig } from './fixture.ts';

const device = 'spBv1.0/plant/DBIRTH/gw1/line1';

function metric(metrics: UMetric[] | null | undefined, name: string): UMetric {
  const m = (metrics ?? []).find((x) => x.name === name);
  assert.ok(m, `metric ${name}`);
  return m;
}

describe('MQTT after a download that retypes a published symbol', () => {
  let broker: Mosquitto;
  let sub: Subscriber;
  let gw: GatewayRig;

  before(async () => {
    broker = await Mosquitto.start();
    sub = await Subscriber.connect(broker.url, ['spBv1.0/#']);
    gw = await startGateway(mqttSettings(broker.url));
  });
  after(async () => {
    await gw.close();
    await sub.close();
    await broker.close();
  });

  it('sends DDEATH, then a DBIRTH with the new datatype and value', async () => {
    const first = await sub.sparkplug(device);
    assert.equal(metric(first.metrics, 'MAIN.nCount').type, 'Int32');
    gw.plc.plc.load(mqttProgram(true));
    await sub.sparkplug('spBv1.0/plant/DDEATH/gw1/line1');
    const again = await sub.sparkplug(device);
    assert.equal(metric(again.metrics, 'MAIN.nCount').type, 'Double');
    assert.equal(metric(again.metrics, 'MAIN.nCount').value, 7.5);
  });
});
