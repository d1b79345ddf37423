// Mqtt.Targets names a PLC ignoring case, as every other setting does: a target written `LINE1` publishes the
// PLC `line1` as the Sparkplug device `line1` (its id as PlcTargets spells it), with its symbols.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Mosquitto } from '../../../bench/servers/mosquitto.ts';
import { mqttSettings, startGateway, Subscriber, type GatewayRig } from './fixture.ts';

describe('Mqtt.Targets plcIds', () => {
  let broker: Mosquitto;
  let sub: Subscriber;
  let gw: GatewayRig;

  before(async () => {
    broker = await Mosquitto.start();
    sub = await Subscriber.connect(broker.url, ['spBv1.0/#']);
    gw = await startGateway(
      mqttSettings(broker.url, { Targets: { LINE1: { Symbols: [{ Path: 'MAIN.nCount' }] } } }),
    );
  });
  after(async () => {
    await gw.close();
    await sub.close();
    await broker.close();
  });

  it('publishes a target written in another case as the PLC, under the PLC’s own id', async () => {
    const birth = await sub.sparkplug(/^spBv1\.0\/plant\/DBIRTH\/gw1\//);
    assert.equal(birth.topic, 'spBv1.0/plant/DBIRTH/gw1/line1');
    assert.deepEqual(
      (birth.metrics ?? []).map((m) => m.name),
      ['MAIN.nCount'],
    );
  });
});
