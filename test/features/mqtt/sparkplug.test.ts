// Sparkplug B against a real mosquitto: NBIRTH/DBIRTH contents (bdSeq, rebirth metric, datatypes, aliases, exact
// 64-bit values), DDATA by exception with aliases and seq, DDEATH and DBIRTH as the PLC drops and returns,
// a rebirth on NCMD, seq wrapping at 256, NDEATH on shutdown and as the will, bdSeq counting across restarts.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { UMetric } from '../../../src/features/mqtt/sparkplug-codec.ts';
import { encode } from '../../../src/features/mqtt/sparkplug-codec.ts';
import { Mosquitto } from '../../../bench/servers/mosquitto.ts';
import {
  alarmArray,
  alarmEntry,
  alarmSettings,
  buffered,
  mqttSettings,
  Relay,
  startGateway,
  Subscriber,
  type GatewayRig,
} from './fixture.ts';

const node = 'spBv1.0/plant';
const text = (v: unknown): string => String(v);

function metric(metrics: UMetric[] | null | undefined, name: string): UMetric {
  const m = (metrics ?? []).find((x) => x.name === name);
  assert.ok(m, `metric ${name} in ${(metrics ?? []).map((x) => x.name).join(', ')}`);
  return m;
}

describe('Sparkplug B publishing', () => {
  let broker: Mosquitto;
  let relay: Relay;
  let sub: Subscriber;
  let gw: GatewayRig;

  before(async () => {
    broker = await Mosquitto.start();
    relay = await Relay.start(broker.port);
    sub = await Subscriber.connect(broker.url, ['spBv1.0/#']);
    gw = await startGateway(mqttSettings(relay.url));
  });
  after(async () => {
    await gw.close();
    await sub.close();
    await relay.close();
    await broker.close();
  });

  let aliases: Map<string, number>;

  it('births the node (bdSeq 0, Rebirth false, seq 0) and the PLC as a device with every metric', async () => {
    const nbirth = await sub.sparkplug(`${node}/NBIRTH/gw1`);
    assert.equal(text(nbirth.seq), '0');
    assert.equal(text(metric(nbirth.metrics, 'bdSeq').value), '0');
    assert.equal(metric(nbirth.metrics, 'bdSeq').type, 'UInt64');
    assert.equal(metric(nbirth.metrics, 'Node Control/Rebirth').value, false);

    const dbirth = await sub.sparkplug(`${node}/DBIRTH/gw1/line1`);
    assert.equal(text(dbirth.seq), '1');
    const names = (dbirth.metrics ?? []).map((m) => m.name).sort();
    assert.deepEqual(names, [
      'MAIN.aLevels[1]',
      'MAIN.aLevels[2]',
      'MAIN.aLevels[3]',
      'MAIN.fSpeed',
      'MAIN.nBig',
      'MAIN.nCount',
      'MAIN.nHuge',
      'MAIN.sName',
      'MAIN.stMotor.bRunning',
      'MAIN.stMotor.rCurrent',
    ]);
    const types = Object.fromEntries((dbirth.metrics ?? []).map((m) => [m.name, m.type]));
    assert.equal(types['MAIN.nCount'], 'Int32');
    assert.equal(types['MAIN.fSpeed'], 'Double');
    assert.equal(types['MAIN.nBig'], 'Int64');
    assert.equal(types['MAIN.nHuge'], 'UInt64');
    assert.equal(types['MAIN.aLevels[2]'], 'Int16');
    assert.equal(types['MAIN.stMotor.bRunning'], 'Boolean');
    assert.equal(types['MAIN.stMotor.rCurrent'], 'Float');
    assert.equal(types['MAIN.sName'], 'String');
    assert.equal(metric(dbirth.metrics, 'MAIN.nCount').value, 7);
    // 2^53 + 1 and 2^64 - 1 arrive exact.
    assert.equal(text(metric(dbirth.metrics, 'MAIN.nBig').value), '9007199254740993');
    assert.equal(text(metric(dbirth.metrics, 'MAIN.nHuge').value), '18446744073709551615');
    assert.equal(metric(dbirth.metrics, 'MAIN.aLevels[3]').value, 30);
    assert.equal(metric(dbirth.metrics, 'MAIN.sName').value, 'press');
    aliases = new Map((dbirth.metrics ?? []).map((m) => [m.name as string, Number(text(m.alias))]));
    assert.equal(new Set(aliases.values()).size, aliases.size, 'aliases are distinct');
  });

  it('publishes a change as DDATA with its alias only and the next seq', async () => {
    await gw.plc.target.write('MAIN.nCount', 42);
    const ddata = await sub.sparkplug(`${node}/DDATA/gw1/line1`);
    assert.equal(text(ddata.seq), '2');
    assert.equal(ddata.metrics?.length, 1);
    const [m] = ddata.metrics ?? [];
    assert.equal(m?.name ?? undefined, undefined);
    assert.equal(Number(text(m?.alias)), aliases.get('MAIN.nCount'));
    assert.equal(m?.value, 42);

    await gw.plc.target.write('MAIN.nBig', '-9007199254740993');
    const big = await sub.sparkplug(`${node}/DDATA/gw1/line1`);
    assert.equal(text(big.seq), '3');
    assert.equal(Number(text(big.metrics?.[0]?.alias)), aliases.get('MAIN.nBig'));
    assert.equal(Subscriber.int64(big.metrics?.[0]?.value), '-9007199254740993');
  });

  it('sends DDEATH when the PLC drops and DBIRTH with the same aliases when it returns', async () => {
    await gw.plc.disconnect();
    const ddeath = await sub.sparkplug(`${node}/DDEATH/gw1/line1`);
    assert.equal(text(ddeath.seq), '4');
    await gw.plc.reconnect();
    const dbirth = await sub.sparkplug(`${node}/DBIRTH/gw1/line1`);
    assert.equal(text(dbirth.seq), '5');
    assert.equal(metric(dbirth.metrics, 'MAIN.nCount').value, 42);
    for (const m of dbirth.metrics ?? []) assert.equal(Number(text(m.alias)), aliases.get(m.name as string));
  });

  it('is born again on NCMD Node Control/Rebirth, seq from 0, same bdSeq', async () => {
    const ncmd = encode({
      timestamp: Date.now(),
      metrics: [{ name: 'Node Control/Rebirth', type: 'Boolean', value: true }],
    });
    await sub.client.publishAsync(`${node}/NCMD/gw1`, ncmd);
    const nbirth = await sub.sparkplug(`${node}/NBIRTH/gw1`);
    assert.equal(text(nbirth.seq), '0');
    assert.equal(text(metric(nbirth.metrics, 'bdSeq').value), '0');
    const dbirth = await sub.sparkplug(`${node}/DBIRTH/gw1/line1`);
    assert.equal(text(dbirth.seq), '1');
  });

  it('wraps seq from 255 to 0', async () => {
    let seq = 1;
    for (let i = 0; i < 256; i++) {
      await gw.plc.target.write('MAIN.nCount', 1000 + i);
      const ddata = await sub.sparkplug(`${node}/DDATA/gw1/line1`);
      seq = (seq + 1) % 256;
      assert.equal(text(ddata.seq), String(seq));
      assert.equal(ddata.metrics?.[0]?.value, 1000 + i);
    }
    assert.equal(seq, 1, 'went past 255 to 0 and on');
  });

  it('has the broker send NDEATH (the will) with the session bdSeq when the connection is lost, then bdSeq 1', async () => {
    sub.skip();
    relay.cut();
    const ndeath = await sub.sparkplug(`${node}/NDEATH/gw1`);
    assert.equal(text(metric(ndeath.metrics, 'bdSeq').value), '0');
    relay.open();
    const nbirth = await sub.sparkplug(`${node}/NBIRTH/gw1`);
    assert.equal(text(metric(nbirth.metrics, 'bdSeq').value), '1');
    await sub.sparkplug(`${node}/DBIRTH/gw1/line1`);
  });

  it('publishes NDEATH on shutdown and counts bdSeq on across a restart', async () => {
    sub.skip();
    await gw.restart();
    const ndeath = await sub.sparkplug(`${node}/NDEATH/gw1`);
    assert.equal(text(metric(ndeath.metrics, 'bdSeq').value), '1');
    const nbirth = await sub.sparkplug(`${node}/NBIRTH/gw1`);
    assert.equal(text(metric(nbirth.metrics, 'bdSeq').value), '2');
  });
});

describe('Sparkplug B alarms and store-and-forward', () => {
  let broker: Mosquitto;
  let relay: Relay;
  let sub: Subscriber;
  let gw: GatewayRig;

  before(async () => {
    broker = await Mosquitto.start();
    relay = await Relay.start(broker.port);
    sub = await Subscriber.connect(broker.url, ['spBv1.0/#']);
    const settings = mqttSettings(relay.url, { BufferSize: 4 });
    const mqtt = settings.Mqtt as { Targets: { line1: Record<string, unknown> } };
    mqtt.Targets.line1.Alarms = true;
    gw = await startGateway({ ...alarmSettings, ...settings });
    await sub.sparkplug(`${node}/DBIRTH/gw1/line1`);
  });
  after(async () => {
    await gw.close();
    await sub.close();
    await relay.close();
    await broker.close();
  });

  it('births the device again with a new alarm key, then publishes its changes by alias', async () => {
    await gw.plc.target.write(`${alarmArray}[2]`, alarmEntry({ sKey: 'PRESS_JAM', ErrorType: 3 }));
    const dbirth = await sub.sparkplug(`${node}/DBIRTH/gw1/line1`);
    assert.equal(metric(dbirth.metrics, 'Alarms/PRESS_JAM/Active').value, true);
    assert.equal(metric(dbirth.metrics, 'Alarms/PRESS_JAM/Acknowledged').value, false);
    assert.equal(metric(dbirth.metrics, 'Alarms/PRESS_JAM/Severity').value, 3);
    assert.equal(metric(dbirth.metrics, 'MAIN.nCount').value, 7, 'the values come along');
    const acknowledgedAlias = Number(text(metric(dbirth.metrics, 'Alarms/PRESS_JAM/Acknowledged').alias));
    await gw.plc.target.write(
      `${alarmArray}[2]`,
      alarmEntry({ sKey: 'PRESS_JAM', ErrorType: 3, IsAcked: true }),
    );
    const ddata = await sub.sparkplug(`${node}/DDATA/gw1/line1`);
    const acknowledged = (ddata.metrics ?? []).find((m) => Number(text(m.alias)) === acknowledgedAlias);
    assert.equal(acknowledged?.value, true);
  });

  it('holds changes while the broker is stopped and sends them once, in order, as history after the births', async () => {
    sub.skip();
    // The gateway is cut off first, so the broker publishes its will: the test knows it has noticed.
    relay.cut();
    await sub.sparkplug(`${node}/NDEATH/gw1`);
    await broker.stop();
    for (let i = 0; i < 5; i++) await gw.plc.target.write('MAIN.nCount', 100 + i);
    // BufferSize 4: the oldest of five is dropped.
    await buffered(gw.app, 4);
    const back = sub.resubscribed();
    await broker.restart();
    await back;
    relay.open();
    const nbirth = await sub.sparkplug(`${node}/NBIRTH/gw1`);
    // Every CONNECT counts, refused ones too.
    assert.ok(Number(text(metric(nbirth.metrics, 'bdSeq').value)) >= 1);
    const dbirth = await sub.sparkplug(`${node}/DBIRTH/gw1/line1`);
    assert.equal(metric(dbirth.metrics, 'MAIN.nCount').value, 104, 'the birth carries the current value');
    const history = await sub.sparkplug(`${node}/DDATA/gw1/line1`);
    assert.deepEqual(
      (history.metrics ?? []).map((m): unknown[] => [m.value as unknown, m.isHistorical]),
      [
        [101, true],
        [102, true],
        [103, true],
        [104, true],
      ],
    );
    await gw.plc.target.write('MAIN.nCount', 105);
    const live = await sub.sparkplug(`${node}/DDATA/gw1/line1`);
    assert.deepEqual(
      (live.metrics ?? []).map((m): unknown[] => [m.value as unknown, m.isHistorical ?? false]),
      [[105, false]],
    );
    const metrics = (await gw.app.inject({ method: 'GET', url: '/metrics' })).body;
    assert.match(metrics, /^mqtt_dropped_changes_total 1$/m);
    assert.match(metrics, /^mqtt_buffered_changes 0$/m);
    assert.match(metrics, /^mqtt_messages_published_total \d+$/m);
  });
});
