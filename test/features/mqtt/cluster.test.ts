// MQTT in cluster mode, in real processes: two gateway replicas (`plc-gateway serve`) on one redis-server, one
// sim-ads PLC and one mosquitto. One replica publishes the PLC (the holder of its MQTT lease); each replica is its
// own Sparkplug edge node (`<EdgeNodeId>-<ReplicaId>`). When the publishing replica is killed, the broker sends its
// NDEATH, the other replica takes the lease, publishes the PLC's DBIRTH under its own node and goes on; no change
// is published by both, and none twice. JSON mode: only the holder has the PLC's session open (its `$state` will),
// and the next holder sets `$state` online again. A holder that cannot renew its lease stops publishing in time.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Mosquitto } from '../../../bench/servers/mosquitto.ts';
import { startReplica, startSimAds, type CliProcess } from '../../helpers/cluster-plant.ts';
import { RedisServer } from '../../helpers/redis-server.ts';
import { bearer, mintToken } from '../../helpers/tokens.ts';
import { Subscriber } from './fixture.ts';
import { decode } from '../../../src/features/mqtt/sparkplug-codec.ts';

const symbol = 'GVL_HMI.stMachine.rSpeedSetpoint';

interface AdminStatus {
  edgeNodeId?: string;
  replicaId?: string;
  sessions: Array<{ clientId: string; state: string }>;
  devices: Array<{ plcId: string; online: boolean }>;
}

describe('cluster: one replica publishes each PLC to MQTT, and the next takes over when it dies', () => {
  let redis: RedisServer;
  let broker: Mosquitto;
  let sim: Awaited<ReturnType<typeof startSimAds>>;
  let headers: Record<string, string>;
  const replicas: CliProcess[] = [];

  before(async () => {
    redis = await RedisServer.start();
    broker = await Mosquitto.start();
    // Stopped: the PLC's values change only when the test writes them.
    sim = await startSimAds('examples/scenarios/small', ['--stopped']);
    headers = bearer(await mintToken({ sub: 'mqtt-cluster' }));
  });

  after(async () => {
    await Promise.all(replicas.map((r) => r.kill()));
    await sim.process.kill();
    await broker.close();
    await redis.kill();
  });

  const replica = async (
    replicaId: string,
    index: number,
    mqtt: Record<string, unknown>,
  ): Promise<CliProcess> => {
    const r = await startReplica({
      redisUrl: redis.url,
      simPort: sim.port,
      replicaId,
      index,
      settings: {
        Mqtt: {
          Enabled: true,
          Url: broker.url,
          ReconnectMs: 100,
          Targets: { line1: { Symbols: [{ Path: symbol }] } },
          ...mqtt,
        },
      },
    });
    replicas.push(r);
    return r;
  };

  const write = async (via: CliProcess, value: number): Promise<void> => {
    const res = await fetch(`${via.url}/api/plcs/line1/variables/${encodeURIComponent(symbol)}`, {
      method: 'PUT',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ value }),
    });
    assert.equal(res.status, 200, await res.text());
  };

  const admin = async (via: CliProcess): Promise<AdminStatus> => {
    const res = await fetch(`${via.url}/api/admin/mqtt`, { headers });
    return ((await res.json()) as { data: AdminStatus }).data;
  };

  const mqttCheck = async (via: CliProcess): Promise<{ status: string }> => {
    const report = (await (await fetch(`${via.url}/health/ready`, { headers })).json()) as {
      checks: Array<{ name: string; status: string }>;
    };
    return report.checks.find((c) => c.name === 'mqtt') as { status: string };
  };

  /** The `cluster` readiness check's `mqttLeases`: the PLCs this replica publishes. */
  const mqttLeases = async (via: CliProcess): Promise<unknown> => {
    const report = (await (await fetch(`${via.url}/health/ready`, { headers })).json()) as {
      checks: Array<{ name: string; data?: Record<string, unknown> }>;
    };
    return report.checks.find((c) => c.name === 'cluster')?.data?.mqttLeases;
  };

  it('Sparkplug: each replica its own edge node; the PLC moves to the survivor with a DBIRTH, nothing twice', async () => {
    const sub = await Subscriber.connect(broker.url, ['spBv1.0/#']);
    const topic = (type: string, node: string, device = ''): string =>
      `spBv1.0/plant/${type}/${node}${device === '' ? '' : `/${device}`}`;
    const mqtt = { GroupId: 'plant', EdgeNodeId: 'gw' };
    try {
      const a = await replica('a', 1, mqtt);
      const aBirth = await sub.sparkplug(topic('NBIRTH', 'gw-a'));
      const aDevice = await sub.sparkplug(topic('DBIRTH', 'gw-a', 'line1'));
      const alias = aDevice.metrics?.find((m) => m.name === symbol)?.alias;
      assert.notEqual(alias, undefined);
      const b = await replica('b', 2, mqtt);
      await sub.sparkplug(topic('NBIRTH', 'gw-b'));
      const statusB = await admin(b);
      assert.equal(statusB.edgeNodeId, 'gw-b');
      assert.equal(statusB.replicaId, 'b');
      assert.deepEqual(
        statusB.sessions.map((s) => s.clientId),
        ['plc-gateway-b'],
      );
      assert.deepEqual(
        statusB.devices.map((d) => [d.plcId, d.online]),
        [['line1', false]],
        'b does not publish line1 while a holds it',
      );
      assert.deepEqual(
        (await admin(a)).devices.map((d) => [d.plcId, d.online]),
        [['line1', true]],
      );
      assert.deepEqual(await mqttLeases(a), ['line1'], "a's cluster check lists the MQTT lease it holds");
      assert.deepEqual(await mqttLeases(b), [], 'b holds none');

      const dataWith = async (node: string, value: number): Promise<void> => {
        for (;;) {
          const p = await sub.sparkplug(topic('DDATA', node, 'line1'));
          if (p.metrics?.some((m) => m.value === value)) return;
        }
      };
      for (let v = 1; v <= 5; v++) {
        await write(a, v);
        await dataWith('gw-a', v);
      }

      await a.kill();
      const death = await sub.sparkplug(topic('NDEATH', 'gw-a'));
      assert.equal(
        String(death.metrics?.find((m) => m.name === 'bdSeq')?.value),
        String(aBirth.metrics?.find((m) => m.name === 'bdSeq')?.value),
        "the broker sends a's will, with its session's bdSeq",
      );
      const bDevice = await sub.sparkplug(topic('DBIRTH', 'gw-b', 'line1'));
      assert.equal(
        bDevice.metrics?.find((m) => m.name === symbol)?.value,
        5,
        'the new holder is born with the current value',
      );
      assert.deepEqual(await mqttLeases(b), ['line1'], 'the lease moved to b');
      for (let v = 6; v <= 10; v++) {
        await write(b, v);
        await dataWith('gw-b', v);
      }
      assert.deepEqual(
        (await admin(b)).devices.map((d) => [d.plcId, d.online]),
        [['line1', true]],
      );

      // The whole run as the subscriber saw it: line1 went from a to b once, and each change was published once.
      const line1 = sub.messages
        .map((m, i) => ({ ...m, i }))
        .filter((m) => /^spBv1\.0\/plant\/D(BIRTH|DATA)\/gw-[ab]\/line1$/.test(m.topic));
      const lastOfA = Math.max(...line1.filter((m) => m.topic.includes('/gw-a/')).map((m) => m.i));
      const firstOfB = Math.min(...line1.filter((m) => m.topic.includes('/gw-b/')).map((m) => m.i));
      assert.ok(lastOfA < firstOfB, 'b published line1 only after a stopped');
      const published = line1
        .filter((m) => m.topic.includes('/DDATA/'))
        .flatMap((m) => decode(m.payload).metrics ?? [])
        .map((m): unknown => m.value);
      assert.deepEqual(
        published,
        [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
        'every change once, in order, by one replica',
      );
      await b.stop();
      // A clean stop: line1's death, then the node's.
      await sub.sparkplug(topic('DDEATH', 'gw-b', 'line1'));
      await sub.sparkplug(topic('NDEATH', 'gw-b'));
    } finally {
      await sub.close();
    }
  });

  it('JSON: only the holder has the PLC session open; after it dies the next sets $state online again', async () => {
    const base = 'plants/line1';
    const valueTopic = `${base}/GVL_HMI/stMachine/rSpeedSetpoint`;
    const sub = await Subscriber.connect(broker.url, [`${base}/#`]);
    const mqtt = { Mode: 'Json' };
    const next = async (t: string): Promise<string> => (await sub.next(t)).payload.toString();
    const valueOf = async (): Promise<number> =>
      (JSON.parse(await next(valueTopic)) as { value: number }).value;
    try {
      const c = await replica('c', 3, mqtt);
      // The value (the last written, 10) comes before `$state online`.
      assert.equal(await valueOf(), 10);
      assert.equal(await next(`${base}/$state`), 'online');
      const d = await replica('d', 4, mqtt);
      const statusD = await admin(d);
      assert.deepEqual(
        statusD.sessions.map((s) => [s.clientId, s.state]),
        [['plc-gateway-line1', 'Disconnected']],
        'd keeps the PLC session closed while c publishes line1',
      );
      assert.equal((await mqttCheck(d)).status, 'Healthy', 'a session closed on purpose is not a fault');
      for (let v = 11; v <= 12; v++) {
        await write(c, v);
        assert.equal(await valueOf(), v);
      }

      await c.kill();
      assert.equal(await next(`${base}/$state`), 'offline', "the broker sends c's will");
      assert.equal(await valueOf(), 12, 'd publishes the current value');
      assert.equal(await next(`${base}/$state`), 'online');
      for (let v = 13; v <= 14; v++) {
        await write(d, v);
        assert.equal(await valueOf(), v);
      }
      assert.deepEqual(
        (await admin(d)).sessions.map((s) => [s.clientId, s.state]),
        [['plc-gateway-line1', 'Connected']],
      );
      assert.equal((await mqttCheck(d)).status, 'Healthy');
      await d.stop();
    } finally {
      await sub.close();
    }
  });

  it('a holder that cannot renew its lease (Redis hung) stops publishing the PLC, and is born again after', async () => {
    const sub = await Subscriber.connect(broker.url, ['spBv1.0/#']);
    const topic = (type: string, node: string, device = ''): string =>
      `spBv1.0/fence/${type}/${node}${device === '' ? '' : `/${device}`}`;
    try {
      const e = await replica('e', 5, { GroupId: 'fence', EdgeNodeId: 'gw' });
      await sub.sparkplug(topic('DBIRTH', 'gw-e', 'line1'));
      redis.pause();
      try {
        // Within the lease's time to live from its last renewal: another replica could take it from then on.
        await sub.sparkplug(topic('DDEATH', 'gw-e', 'line1'));
      } finally {
        redis.resume();
      }
      const reborn = await sub.sparkplug(topic('DBIRTH', 'gw-e', 'line1'));
      assert.equal(typeof reborn.metrics?.find((m) => m.name === symbol)?.value, 'number');
      await write(e, 21);
      for (;;) {
        const p = await sub.sparkplug(topic('DDATA', 'gw-e', 'line1'));
        if (p.metrics?.some((m) => m.value === 21)) break;
      }
      await e.stop();
    } finally {
      await sub.close();
    }
  });
});
