// EtherCAT diagnostics through HTTP, SSE, the SignalR hub and /health/ready, on both drivers: the in-process
// simulated target and a Real target over ADS to sim-ads. The scripted faults of ./bus advance by steps.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { HttpTransportType, HubConnectionBuilder, LogLevel } from '@microsoft/signalr';
import { Signal } from '../../helpers/signal.ts';
import { bearer, mintToken } from '../../helpers/tokens.ts';
import { RawSse, waitLimitMs, type SseEvent } from '../notifications/clients.ts';
import { drivers, startBus, type BusRig } from './fixture.ts';

interface Change {
  masterId: number;
  address: number;
  slave: { state: string; error: boolean; link: string; crcErrors: Record<string, number> };
}

const identity1001 = {
  address: 1001,
  name: 'Term 1 (EK1100)',
  type: 'EK1100',
  vendorId: 2,
  productCode: 0x044c2c52,
  revision: 0x00110000,
  serial: 0,
};
const healthy = { state: 'OP', error: false, link: 'ok', crcErrors: { A: 0, B: 0, C: 0, D: 0 } };

async function readiness(
  rig: BusRig,
): Promise<{ status: number; ethercat: Record<string, unknown> | undefined }> {
  // Per-PLC data is for tokens that may see the PLC (all of it for an admin of every PLC).
  const res = await fetch(`${rig.base}/health/ready`, { headers: bearer(await mintToken()) });
  const body = (await res.json()) as { checks: Array<Record<string, unknown>> };
  return { status: res.status, ethercat: body.checks.find((c) => c.name === 'ethercat') };
}

const isChange = (address: number, masterId: number) => (e: SseEvent) =>
  e.event === 'ethercat' &&
  (e.data as Change).address === address &&
  (e.data as Change).masterId === masterId;

for (const driver of drivers) {
  describe(`EtherCAT diagnostics (${driver} driver)`, () => {
    let rig: BusRig;
    before(async () => {
      rig = await startBus(driver);
    });
    after(async () => {
      await rig.close();
    });

    it('lists the masters with their NetIds, states and slave counts', async () => {
      const { status, body } = await rig.get('/api/plcs/bus/ethercat/masters');
      assert.equal(status, 200, JSON.stringify(body));
      assert.deepEqual(body.data, [
        {
          deviceId: 2,
          name: 'EtherCAT Master',
          amsNetId: '127.0.0.1.3.1',
          currentState: 'OP',
          requestedState: 'OP',
          slaveCount: 3,
        },
        {
          deviceId: 3,
          name: 'EtherCAT Master 2',
          amsNetId: '127.0.0.1.4.1',
          currentState: 'OP',
          requestedState: 'OP',
          slaveCount: 1,
        },
      ]);
      assert.equal((await rig.get('/api/plcs/bus/ethercat/masters/3')).body.data.slaveCount, 1);
    });

    it('answers MASTER_NOT_FOUND, SLAVE_NOT_FOUND and 400 for bad numbers', async () => {
      for (const path of [
        '/masters/9',
        '/masters/9/slaves',
        '/masters/9/topology',
        '/slaves/1002?master=9',
      ]) {
        const { status, body } = await rig.get(`/api/plcs/bus/ethercat${path}`);
        assert.equal(status, 404, path);
        assert.equal(body.error?.code, 'MASTER_NOT_FOUND', path);
      }
      const missing = await rig.get('/api/plcs/bus/ethercat/slaves/4711');
      assert.equal(missing.status, 404);
      assert.equal(missing.body.error?.code, 'SLAVE_NOT_FOUND');
      assert.equal(
        (await rig.get('/api/plcs/bus/ethercat/slaves/1002?master=3')).body.error?.code,
        'SLAVE_NOT_FOUND',
      );
      assert.equal((await rig.post('/api/plcs/bus/ethercat/slaves/4711/reset-error-counters')).status, 404);
      for (const path of ['/masters/0x2', '/masters/two', '/slaves/1e3', '/slaves/1002?master=0x2']) {
        const { status, body } = await rig.get(`/api/plcs/bus/ethercat${path}`);
        assert.equal(status, 400, path);
        assert.equal(body.error?.code, 'VALIDATION_ERROR', path);
      }
      assert.equal((await rig.get('/api/plcs/nope/ethercat/masters')).body.error?.code, 'PLC_NOT_FOUND');
    });

    it('reads the slaves with identity, state, link and CRC counters, and the wiring', async () => {
      const slaves = (await rig.get('/api/plcs/bus/ethercat/masters/2/slaves')).body.data as Array<
        Record<string, unknown>
      >;
      assert.deepEqual(
        slaves.map((s) => s.address),
        [1001, 1002, 1003],
      );
      assert.deepEqual(slaves[0], { ...identity1001, ...healthy });
      const topology = (await rig.get('/api/plcs/bus/ethercat/masters/2/topology')).body.data as {
        slaves: Array<{ address: number; ports: unknown }>;
      };
      assert.deepEqual(
        topology.slaves.map((s) => [s.address, s.ports]),
        [
          [1001, { A: 'master', B: 1002, C: null, D: null }],
          [1002, { A: 1001, B: 1003, C: null, D: null }],
          [1003, { A: 1002, B: null, C: null, D: null }],
        ],
      );
    });

    it('finds a slave on any master, and wants ?master= for an address two masters have', async () => {
      const found = await rig.get('/api/plcs/bus/ethercat/slaves/1002');
      assert.equal(found.body.data.masterId, 2);
      assert.equal(found.body.data.type, 'EL1008');
      const twice = await rig.get('/api/plcs/bus/ethercat/slaves/1001');
      assert.equal(twice.status, 400);
      assert.equal(twice.body.error?.code, 'VALIDATION_ERROR');
      const picked = await rig.get('/api/plcs/bus/ethercat/slaves/1001?master=3');
      assert.deepEqual(
        [picked.body.data.masterId, picked.body.data.type, picked.body.data.serial],
        [3, 'EP1008', 7],
      );
      assert.equal((await rig.get('/api/plcs/bus/ethercat/slaves/1001?master=2')).body.data.type, 'EK1100');
    });

    it('diagnoses the scripted faults through the stream, the routes and readiness, and resets CRC counters', async () => {
      const sse = new RawSse(`${rig.base}/api/plcs/bus/notifications/sse?ethercat=true`, bearer(rig.token));
      try {
        // Every slave's current state first (3 + 1 slaves).
        const initial = await sse.count(5);
        assert.equal(initial[0]?.event, 'subscribed');
        assert.deepEqual(
          initial.slice(1).map((e) => [(e.data as Change).masterId, (e.data as Change).address]),
          [
            [2, 1001],
            [2, 1002],
            [2, 1003],
            [3, 1001],
          ],
        );
        assert.deepEqual((await readiness(rig)).ethercat?.data, { bus: 'Healthy' });

        rig.step(2); // slave 1003 to SAFEOP with error
        let at = sse.events.length;
        const safeop = (await sse.next(isChange(1003, 2), at)).data as Change;
        assert.deepEqual([safeop.slave.state, safeop.slave.error, safeop.slave.link], ['SAFEOP', true, 'ok']);
        let health = await readiness(rig);
        assert.equal(health.status, 200);
        assert.equal(health.ethercat?.status, 'Degraded');
        assert.deepEqual(health.ethercat?.data, { bus: 'Degraded' });

        at = sse.events.length;
        rig.step(1); // 150 CRC errors on port B of 1002: past the threshold of 100
        const crc = (await sse.next(isChange(1002, 2), at)).data as Change;
        assert.deepEqual(crc.slave.crcErrors, { A: 0, B: 150, C: 0, D: 0 });
        const slave = (await rig.get('/api/plcs/bus/ethercat/slaves/1002')).body.data as Change['slave'];
        assert.deepEqual(slave.crcErrors, { A: 0, B: 150, C: 0, D: 0 });

        at = sse.events.length;
        rig.step(1); // 1003 loses its link
        assert.equal(((await sse.next(isChange(1003, 2), at)).data as Change).slave.link, 'lost');
        health = await readiness(rig);
        assert.equal(health.status, 503);
        assert.equal(health.ethercat?.status, 'Unhealthy');
        assert.match(String(health.ethercat?.description), /slave 1003 link lost/);

        at = sse.events.length;
        rig.step(1); // master 2 leaves OP; 1001 of master 3 to PREOP
        assert.equal(((await sse.next(isChange(1001, 3), at)).data as Change).slave.state, 'PREOP');
        const master = (await rig.get('/api/plcs/bus/ethercat/masters/2')).body.data as Record<
          string,
          unknown
        >;
        assert.deepEqual([master.currentState, master.requestedState], ['PREOP', 'OP']);
        assert.match(String((await readiness(rig)).ethercat?.description), /master 2 is in PREOP/);

        // The reset writes the slave's ESC counters through the master; the count drops under the threshold.
        at = sse.events.length;
        const reset = await rig.post('/api/plcs/bus/ethercat/slaves/1002/reset-error-counters');
        assert.equal(reset.status, 200, JSON.stringify(reset.body));
        assert.deepEqual(reset.body.data.crcErrors, { A: 0, B: 0, C: 0, D: 0 });
        assert.deepEqual(((await sse.next(isChange(1002, 2), at)).data as Change).slave.crcErrors, {
          A: 0,
          B: 0,
          C: 0,
          D: 0,
        });
        // A slave without communication cannot be reached by the register write.
        const lost = await rig.post('/api/plcs/bus/ethercat/slaves/1003/reset-error-counters');
        assert.equal(lost.status, 502);
        assert.equal(lost.body.error?.code, 'ADS_ERROR');
        assert.equal((await rig.post('/api/plcs/bus/ethercat/slaves/1001/reset-error-counters')).status, 400);
      } finally {
        sse.close();
      }

      // Reset replays the scenario: everything back in OP.
      rig.simulated.simulation?.reset();
      const back = (await rig.get('/api/plcs/bus/ethercat/masters/2/slaves')).body.data as Array<
        Record<string, unknown>
      >;
      assert.ok(back.every((s) => s.state === 'OP' && s.link === 'ok' && s.error === false));
    });

    it('audits the reset and requires WriteAccess for it', async () => {
      const viewer = await mintToken({ role: 'viewer', scope: 'ads:read' });
      const res = await fetch(`${rig.base}/api/plcs/bus/ethercat/slaves/1002/reset-error-counters?master=2`, {
        method: 'POST',
        headers: bearer(viewer),
      });
      assert.equal(res.status, 403);
      assert.equal(
        (await rig.post('/api/plcs/bus/ethercat/slaves/1002/reset-error-counters?master=2')).status,
        200,
      );
      const audit = await rig.get('/api/admin/audit?action=ethercat.reset-error-counters');
      const records = (audit.body.data as { items?: unknown[] } | unknown[]) ?? [];
      const items = (Array.isArray(records) ? records : (records.items ?? [])) as Array<
        Record<string, unknown>
      >;
      const mine = items.filter((r) => r.action === 'ethercat.reset-error-counters');
      assert.ok(
        mine.some((r) => r.target === '1002' && r.plcId === 'bus' && r.result === 'ok'),
        JSON.stringify(items),
      );
      assert.ok(
        mine.some((r) => r.result === 'error'),
        'the refused reset is audited too',
      );
    });

    it('sends EtherCatChanged on the hub after SubscribeEtherCat()', async () => {
      const signal = new Signal();
      const received: Change[] = [];
      const connection = new HubConnectionBuilder()
        .withUrl(`${rig.base}/api/plcs/bus/notifications/ws`, {
          accessTokenFactory: () => rig.token,
          transport: HttpTransportType.WebSockets,
        })
        .configureLogging(LogLevel.None)
        .build();
      connection.on('EtherCatChanged', (c: Change) => {
        received.push(c);
        signal.notify();
      });
      await connection.start();
      try {
        // A second call, even one made while the first still reads the bus, adds no second stream.
        await Promise.all([connection.invoke('SubscribeEtherCat'), connection.invoke('SubscribeEtherCat')]);
        await signal.until(
          () => received.length >= 4,
          waitLimitMs,
          () => 'the current slaves',
        );
        const from = received.length;
        rig.step(2);
        const change = await signal.until(
          () => received.slice(from).find((c) => c.address === 1003 && c.masterId === 2),
          waitLimitMs,
          () => 'EtherCatChanged for 1003',
        );
        assert.deepEqual([change.slave.state, change.slave.error], ['SAFEOP', true]);
        const upTo = received.indexOf(change);
        assert.equal(upTo, 4, 'one current state per slave, then the change');
      } finally {
        await connection.stop();
      }
    });
  });
}

for (const driver of drivers) {
  describe(`EtherCAT stream's first state with a slow poll (${driver} driver)`, () => {
    let rig: BusRig;
    before(async () => {
      rig = await startBus(driver, { etherCat: { PollingIntervalMs: 600_000 } });
    });
    after(async () => {
      await rig.close();
    });

    it('is read for the new client, not the last poll', async () => {
      const url = `${rig.base}/api/plcs/bus/notifications/sse?ethercat=true`;
      const first = new RawSse(url, bearer(rig.token));
      const was = (await first.next(isChange(1003, 2))).data as Change;
      first.close();
      assert.deepEqual([was.slave.state, was.slave.error], ['OP', false]);
      rig.step(2); // 1003 to SAFEOP with error; the monitor's next poll is minutes away
      const second = new RawSse(url, bearer(rig.token));
      try {
        const now = (await second.next(isChange(1003, 2))).data as Change;
        assert.deepEqual([now.slave.state, now.slave.error], ['SAFEOP', true]);
      } finally {
        second.close();
      }
    });
  });
}

describe('EtherCAT diagnostics switched off', () => {
  let rig: BusRig;
  before(async () => {
    rig = await startBus('simulated', { features: { EtherCatDiagnostics: false } });
  });
  after(async () => {
    await rig.close();
  });

  it('answers 501 FEATURE_DISABLED on every route and stream, and readiness has no ethercat check', async () => {
    for (const path of [
      '/masters',
      '/masters/2',
      '/masters/2/slaves',
      '/masters/2/topology',
      '/slaves/1002',
    ]) {
      const { status, body } = await rig.get(`/api/plcs/bus/ethercat${path}`);
      assert.equal(status, 501, path);
      assert.equal(body.error?.code, 'FEATURE_DISABLED');
    }
    assert.equal((await rig.post('/api/plcs/bus/ethercat/slaves/1002/reset-error-counters')).status, 501);
    const sse = await new RawSse(
      `${rig.base}/api/plcs/bus/notifications/sse?ethercat=true`,
      bearer(rig.token),
    ).opened();
    assert.equal(sse.status, 501);
    assert.equal((await sse.json()).error?.code, 'FEATURE_DISABLED');
    assert.equal((await readiness(rig)).ethercat, undefined);
  });
});

describe('EtherCAT notifications switched off for a PLC', () => {
  let rig: BusRig;
  before(async () => {
    rig = await startBus('simulated', { etherCat: { EnableNotifications: false } });
  });
  after(async () => {
    await rig.close();
  });

  it('refuses ?ethercat=true with 400, and a stream needs symbols or ethercat', async () => {
    const sse = await new RawSse(
      `${rig.base}/api/plcs/bus/notifications/sse?ethercat=true`,
      bearer(rig.token),
    ).opened();
    assert.equal(sse.status, 400);
    assert.match((await sse.json()).error?.message ?? '', /EnableNotifications/);
    const none = await new RawSse(`${rig.base}/api/plcs/bus/notifications/sse`, bearer(rig.token)).opened();
    assert.equal(none.status, 400);
    assert.equal((await none.json()).error?.code, 'VALIDATION_ERROR');
  });
});
