// GET /api/admin/mqtt: the connection state for the console's admin view, Admin only, devices per plc_access.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp } from '../../helpers/app.ts';
import { Mosquitto } from '../../../bench/servers/mosquitto.ts';
import { bearer, mintToken } from '../../helpers/tokens.ts';
import { mqttSettings, startGateway, Subscriber, type GatewayRig } from './fixture.ts';

interface Status {
  enabled: boolean;
  mode?: string;
  url?: string;
  sessions: Array<{ clientId: string; state: string; plcId?: string }>;
  devices: Array<{ plcId: string; online: boolean; metrics: number }>;
  messages: number;
}

describe('GET /api/admin/mqtt', () => {
  let broker: Mosquitto;
  let gw: GatewayRig;

  before(async () => {
    broker = await Mosquitto.start({ users: { gw: 'secret-pw' } });
    const sub = await Subscriber.connect(broker.url, ['spBv1.0/#'], {
      username: 'gw',
      password: 'secret-pw',
    });
    const url = broker.url.replace('mqtt://', 'mqtt://gw:secret-pw@');
    gw = await startGateway(mqttSettings(url));
    await sub.sparkplug('spBv1.0/plant/DBIRTH/gw1/line1');
    await sub.close();
  });
  after(async () => {
    await gw.close();
    await broker.close();
  });

  const get = async (claims: Record<string, unknown>) =>
    gw.app.inject({ method: 'GET', url: '/api/admin/mqtt', headers: bearer(await mintToken(claims)) });

  it('shows the session, the devices and the counters to an admin, never the password', async () => {
    const res = await get({ role: 'admin', plc_access: ['*'] });
    assert.equal(res.statusCode, 200, res.body);
    assert.doesNotMatch(res.body, /secret-pw/);
    const data = res.json<{ data: Status }>().data;
    assert.equal(data.enabled, true);
    assert.equal(data.mode, 'SparkplugB');
    assert.equal(data.url, `${broker.url}`);
    assert.deepEqual(
      data.sessions.map((s) => [s.clientId, s.state]),
      [['plc-gateway', 'Connected']],
    );
    assert.deepEqual(data.devices, [{ plcId: 'line1', online: true, metrics: 10 }]);
    assert.ok(data.messages >= 2);
  });

  it('lists only the PLCs the token grants', async () => {
    const res = await get({ role: 'admin', plc_access: ['other'] });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json<{ data: Status }>().data.devices, []);
  });

  it('is for admins only', async () => {
    const res = await get({ role: 'operator', plc_access: ['*'] });
    assert.equal(res.statusCode, 403, res.body);
  });

  it('answers enabled false while MQTT is off', async () => {
    const app = await buildTestApp();
    try {
      const res = await app.inject({
        method: 'GET',
        url: '/api/admin/mqtt',
        headers: bearer(await mintToken({ role: 'admin', plc_access: ['*'] })),
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json<{ data: Status }>().data.enabled, false);
    } finally {
      await app.close();
    }
  });
});
