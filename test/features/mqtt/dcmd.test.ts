// Sparkplug DCMD writes against a real mosquitto: refused while Mqtt.AllowWrites is off, then allowed only to
// Mqtt.WritableSymbols (by name or by alias), each attempt audited as user `mqtt`.
import { after, afterEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { encode, type UMetric } from '../../../src/features/mqtt/sparkplug-codec.ts';
import { Mosquitto } from '../../../bench/servers/mosquitto.ts';
import { bearer, mintToken } from '../../helpers/tokens.ts';
import { mqttSettings, startGateway, Subscriber, waitLimitMs, type GatewayRig } from './fixture.ts';

const node = 'spBv1.0/plant';

interface AuditItem {
  sub: string;
  plcId: string;
  action: string;
  target: string;
  result: string;
  error?: { code: string };
  oldValue?: unknown;
  newValue?: unknown;
}

/** Resolves with the audit records once there are `n`. */
async function auditRecords(app: FastifyInstance, n: number): Promise<AuditItem[]> {
  const headers = bearer(await mintToken({ role: 'admin', plc_access: ['*'] }));
  const started = Date.now();
  for (;;) {
    const res = await app.inject({ method: 'GET', url: '/api/admin/audit', headers });
    assert.equal(res.statusCode, 200, res.body);
    const items = res.json<{ data: { items: AuditItem[] } }>().data.items;
    if (items.length >= n) return items;
    if (Date.now() - started > waitLimitMs) throw new Error(`fewer than ${n} audit records: ${res.body}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

function dcmd(metrics: UMetric[]): Buffer {
  return encode({ timestamp: Date.now(), metrics });
}

describe('Sparkplug DCMD writes', () => {
  let broker: Mosquitto;
  let sub: Subscriber;
  let gw: GatewayRig | undefined;

  const start = async (mqtt: Record<string, unknown>): Promise<Map<string, number>> => {
    broker ??= await Mosquitto.start();
    sub ??= await Subscriber.connect(broker.url, ['spBv1.0/#']);
    sub.skip();
    gw = await startGateway(mqttSettings(broker.url, mqtt));
    const birth = await sub.sparkplug(`${node}/DBIRTH/gw1/line1`);
    return new Map((birth.metrics ?? []).map((m) => [m.name as string, Number(String(m.alias))]));
  };
  afterEach(async () => {
    await gw?.close();
    gw = undefined;
  });
  after(async () => {
    await sub.close();
    await broker.close();
  });

  it('refuses every write while Mqtt.AllowWrites is off, and audits the refusal', async () => {
    await start({ WritableSymbols: ['MAIN.nCount'] });
    const rig = gw as GatewayRig;
    await sub.client.publishAsync(
      `${node}/DCMD/gw1/line1`,
      dcmd([{ name: 'MAIN.nCount', type: 'Int32', value: 99 }]),
    );
    const [record] = await auditRecords(rig.app, 1);
    assert.equal(record?.sub, 'mqtt');
    assert.equal(record?.plcId, 'line1');
    assert.equal(record?.action, 'variable.write');
    assert.equal(record?.target, 'MAIN.nCount');
    assert.equal(record?.result, 'error');
    assert.equal(record?.error?.code, 'MQTT_WRITE_DENIED');
    assert.equal((await rig.plc.target.read('MAIN.nCount')).value, 7);
  });

  it('writes an allowed symbol (by name and by alias), refuses the others, and audits each', async () => {
    const aliases = await start({ AllowWrites: true, WritableSymbols: ['MAIN.nCount', 'MAIN.aLevels[*]'] });
    const rig = gw as GatewayRig;
    await sub.client.publishAsync(
      `${node}/DCMD/gw1/line1`,
      dcmd([
        { name: 'MAIN.nCount', type: 'Int32', value: 55 },
        { name: 'MAIN.fSpeed', type: 'Double', value: 9.5 },
        { alias: aliases.get('MAIN.aLevels[2]'), type: 'Int16', value: -4 },
      ]),
    );
    const records = await auditRecords(rig.app, 3);
    assert.deepEqual(
      records.map((r) => [r.target, r.result, r.error?.code, r.newValue]),
      [
        ['MAIN.nCount', 'ok', undefined, 55],
        ['MAIN.fSpeed', 'error', 'MQTT_WRITE_DENIED', 9.5],
        ['MAIN.aLevels[2]', 'ok', undefined, -4],
      ],
    );
    assert.equal(records[0]?.oldValue, 7);
    assert.equal((await rig.plc.target.read('MAIN.nCount')).value, 55);
    assert.equal((await rig.plc.target.read('MAIN.fSpeed')).value, 0.5);
    assert.equal((await rig.plc.target.read('MAIN.aLevels[2]')).value, -4);
    // The write comes back as a change like any other.
    const seen = new Set<number>();
    while (!(seen.has(55) && seen.has(-4))) {
      const ddata = await sub.sparkplug(`${node}/DDATA/gw1/line1`);
      for (const m of ddata.metrics ?? []) seen.add(Number(m.value));
    }
  });
});
