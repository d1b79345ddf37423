// What each symbol entry publishes (Deadband, Cyclic, MaxIntervalSeconds), and that published symbols ride on
// the shared notification subscriptions: a stream client watching one costs the PLC no second subscription.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Mosquitto } from '../../../bench/servers/mosquitto.ts';
import { mintToken } from '../../helpers/tokens.ts';
import { authHeaders, countingTarget, RawSse, sseUrl } from '../notifications/clients.ts';
import { startTestPlc } from '../variables/fixture.ts';
import { mqttProgram, mqttSettings, startGateway, Subscriber, type GatewayRig } from './fixture.ts';

const node = 'spBv1.0/plant';

describe('MQTT symbol entry rules', () => {
  let broker: Mosquitto;
  let sub: Subscriber;
  let gw: GatewayRig;
  let target: ReturnType<typeof countingTarget>;
  let aliases: Map<string, number>;

  before(async () => {
    broker = await Mosquitto.start();
    sub = await Subscriber.connect(broker.url, ['spBv1.0/#']);
    const plc = await startTestPlc('line1', 'simulated', mqttProgram());
    target = countingTarget(plc.target);
    const settings = mqttSettings(broker.url, {
      Targets: {
        line1: {
          Symbols: [
            { Path: 'MAIN.nCount' },
            { Path: 'MAIN.fSpeed', Deadband: 1 },
            { Path: 'MAIN.sName', Mode: 'Cyclic', CycleTimeMs: 40 },
            { Path: 'MAIN.nHuge', MaxIntervalSeconds: 1 },
          ],
        },
      },
    });
    gw = await startGateway(settings, { ...plc, target });
    const birth = await sub.sparkplug(`${node}/DBIRTH/gw1/line1`);
    aliases = new Map((birth.metrics ?? []).map((m) => [m.name as string, Number(String(m.alias))]));
  });
  after(async () => {
    await gw.close();
    await sub.close();
    await broker.close();
  });

  /** The next DDATA carrying any metric of `names` (others in between are skipped). */
  const nextOf = async (...names: string[]) => {
    const wanted = new Set(names.map((n) => aliases.get(n)));
    for (;;) {
      const ddata = await sub.sparkplug(`${node}/DDATA/gw1/line1`);
      const hits = (ddata.metrics ?? []).filter((m) => wanted.has(Number(String(m.alias))));
      if (hits.length > 0) return hits.map((m) => [Number(String(m.alias)), m.value] as const);
    }
  };

  it('keeps a change inside the deadband back and publishes one beyond it', async () => {
    await gw.plc.target.write('MAIN.fSpeed', 1.4);
    await gw.plc.target.write('MAIN.nCount', 8);
    // 1.4 is within 1 of the published 0.5: the next of the two to come is nCount.
    assert.deepEqual(await nextOf('MAIN.fSpeed', 'MAIN.nCount'), [[aliases.get('MAIN.nCount'), 8]]);
    await gw.plc.target.write('MAIN.fSpeed', 1.5);
    assert.deepEqual(await nextOf('MAIN.fSpeed'), [[aliases.get('MAIN.fSpeed'), 1.5]]);
  });

  it('publishes a Cyclic entry every cycle without a change', async () => {
    for (let i = 0; i < 3; i++) {
      assert.deepEqual(await nextOf('MAIN.sName'), [[aliases.get('MAIN.sName'), 'press']]);
    }
  });

  it('publishes an OnChange entry again after MaxIntervalSeconds without a change', async () => {
    const [[, value]] = (await nextOf('MAIN.nHuge')) as [[number, unknown]];
    assert.equal(String(value), '18446744073709551615');
  });

  it('holds each published symbol once on the PLC, also while a stream client watches it', async () => {
    assert.equal(target.open, 4);
    await gw.app.listen({ host: '127.0.0.1', port: 0 });
    const address = gw.app.server.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    const token = await mintToken();
    const sse = new RawSse(sseUrl(`http://127.0.0.1:${port}`, ['MAIN.nCount'], 'line1'), authHeaders(token));
    try {
      await sse.opened();
      assert.equal(sse.status, 200);
      const current = await sse.next((e) => e.event === 'change');
      assert.equal((current.data as { value: number }).value, 8);
      assert.equal(target.open, 4, 'the stream joined the subscription MQTT holds');
      await gw.plc.target.write('MAIN.nCount', 9);
      const change = await sse.next((e) => e.event === 'change' && (e.data as { value: number }).value === 9);
      assert.equal((change.data as { symbol: string }).symbol, 'MAIN.nCount');
      assert.deepEqual(await nextOf('MAIN.nCount'), [[aliases.get('MAIN.nCount'), 9]]);
      assert.equal(target.opened, 4, 'never a second subscription');
    } finally {
      sse.close();
    }
  });
});
