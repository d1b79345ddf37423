// get_ethercat_health and get_ethercat_slave through an MCP client session over the two-master bus scenario:
// the scripted faults as an agent sees them, slave lookups with their errors, and the refusals of the routes
// the tools mirror (policy, plc_access, the EtherCatDiagnostics flag) as isError results.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { bearer, mintToken } from '../../helpers/tokens.ts';
import { startBus, type BusRig } from '../ethercat/fixture.ts';
import { dataOf, errorOf, viewer } from './fixture.ts';

interface Health {
  plcId: string;
  status: string;
  reason: string;
  crcErrorThreshold: number;
  masters: Array<{ deviceId: number; currentState: string; slaveCount: number }>;
  attention: Array<{
    masterId: number;
    address: number;
    state: string;
    error: boolean;
    link: string;
    crcTotal: number;
  }>;
}

const clients: Client[] = [];

async function connect(rig: BusRig, claims: Record<string, unknown> = viewer): Promise<Client> {
  const client = new Client({ name: 'plc-gateway-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${rig.base}/mcp`), {
    requestInit: { headers: bearer(await mintToken(claims)) },
  });
  await client.connect(transport);
  clients.push(client);
  return client;
}

async function closeClients(): Promise<void> {
  await Promise.allSettled(clients.splice(0).map((c) => c.close()));
}

async function health(client: Client): Promise<Health> {
  return dataOf<Health>(await client.callTool({ name: 'get_ethercat_health', arguments: { plcId: 'bus' } }));
}

const brief = (h: Health) => h.attention.map((s) => [s.masterId, s.address, s.state, s.error, s.link]);

describe('EtherCAT tools', () => {
  let rig: BusRig;
  before(async () => {
    rig = await startBus('simulated', { features: { Mcp: true } });
  });
  after(async () => {
    await closeClients();
    await rig.close();
  });

  test('both are listed as read-only tools', async () => {
    const tools = (await (await connect(rig)).listTools()).tools;
    for (const name of ['get_ethercat_health', 'get_ethercat_slave']) {
      assert.equal(tools.find((t) => t.name === name)?.annotations?.readOnlyHint, true, name);
    }
  });

  test('get_ethercat_slave finds a slave on any master or the one named, with the route’s errors', async () => {
    const client = await connect(rig);
    const call = (args: Record<string, unknown>) =>
      client.callTool({ name: 'get_ethercat_slave', arguments: { plcId: 'bus', ...args } });
    const found = dataOf(await call({ address: 1002 }));
    assert.deepEqual(
      [found.masterId, found.type, found.state, found.link, found.ports],
      [2, 'EL1008', 'OP', 'ok', { A: 1001, B: 1003, C: null, D: null }],
    );
    assert.deepEqual(found.crcErrors, { A: 0, B: 0, C: 0, D: 0 });
    const twice = errorOf(await call({ address: 1001 }));
    assert.equal(twice.code, 'VALIDATION_ERROR');
    assert.match(twice.message, /masters 2 and 3/);
    const picked = dataOf(await call({ address: 1001, master: 3 }));
    assert.deepEqual([picked.masterId, picked.type, picked.serial], [3, 'EP1008', 7]);
    assert.equal(errorOf(await call({ address: 4711 })).code, 'SLAVE_NOT_FOUND');
    assert.equal(errorOf(await call({ address: 1002, master: 9 })).code, 'MASTER_NOT_FOUND');
    for (const bad of [
      { address: 65536 },
      { address: -1 },
      { address: '1002' },
      { address: 1002, port: 'A' },
    ]) {
      assert.equal(errorOf(await call(bad)).code, 'VALIDATION_ERROR', JSON.stringify(bad));
    }
  });

  test('get_ethercat_health follows the scripted faults: Degraded, then Unhealthy', async () => {
    const client = await connect(rig);
    const healthy = await health(client);
    assert.deepEqual(
      [healthy.plcId, healthy.status, healthy.crcErrorThreshold, healthy.attention],
      ['bus', 'Healthy', 100, []],
    );
    assert.deepEqual(
      healthy.masters.map((m) => [m.deviceId, m.currentState, m.slaveCount]),
      [
        [2, 'OP', 3],
        [3, 'OP', 1],
      ],
    );

    rig.step(2); // slave 1003 to SAFEOP with error
    const safeop = await health(client);
    assert.equal(safeop.status, 'Degraded');
    assert.match(safeop.reason, /slave 1003 SAFEOP\+ERR/);
    assert.deepEqual(brief(safeop), [[2, 1003, 'SAFEOP', true, 'ok']]);

    rig.step(1); // 150 CRC errors on port B of 1002, past the threshold of 100
    const crc = await health(client);
    assert.equal(crc.status, 'Degraded');
    assert.deepEqual(
      crc.attention.map((s) => [s.address, s.crcTotal]),
      [
        [1002, 150],
        [1003, 0],
      ],
    );

    rig.step(1); // 1003 loses its link
    const lost = await health(client);
    assert.equal(lost.status, 'Unhealthy');
    assert.match(lost.reason, /slave 1003 link lost/);

    rig.step(1); // master 2 leaves OP
    const master = await health(client);
    assert.equal(master.status, 'Unhealthy');
    assert.match(master.reason, /master 2 is in PREOP/);
    assert.equal(master.masters.find((m) => m.deviceId === 2)?.currentState, 'PREOP');
    assert.deepEqual(
      master.attention.map((s) => [s.masterId, s.address]),
      [
        [2, 1002],
        [2, 1003],
        [3, 1001],
      ],
    );

    rig.simulated.simulation?.reset();
    assert.equal((await health(client)).status, 'Healthy');
  });

  test('refusals are isError results: a token without the PLC in plc_access, one without ads:read, an unknown PLC', async () => {
    const elsewhere = await connect(rig, { ...viewer, sub: 'olga', plc_access: ['line9'] });
    for (const [name, args] of [
      ['get_ethercat_health', { plcId: 'bus' }],
      ['get_ethercat_slave', { plcId: 'bus', address: 1002 }],
    ] as const) {
      assert.equal(errorOf(await elsewhere.callTool({ name, arguments: args })).code, 'PLC_ACCESS_DENIED');
    }
    const noScope = await connect(rig, { sub: 'nils', role: 'viewer', scope: 'openid' });
    assert.equal(
      errorOf(await noScope.callTool({ name: 'get_ethercat_health', arguments: { plcId: 'bus' } })).code,
      'FORBIDDEN',
    );
    assert.equal(
      errorOf(
        await (await connect(rig)).callTool({ name: 'get_ethercat_health', arguments: { plcId: 'nope' } }),
      ).code,
      'PLC_NOT_FOUND',
    );
  });
});

describe('EtherCAT tools with EtherCatDiagnostics off', () => {
  test('are not listed, and calling one by name is refused', async () => {
    const rig = await startBus('simulated', { features: { Mcp: true, EtherCatDiagnostics: false } });
    try {
      const client = await connect(rig);
      const names = (await client.listTools()).tools.map((t) => t.name);
      assert.ok(names.includes('get_plc_status'));
      assert.ok(!names.includes('get_ethercat_health') && !names.includes('get_ethercat_slave'));
      const refused = errorOf(
        await client.callTool({ name: 'get_ethercat_slave', arguments: { plcId: 'bus', address: 1002 } }),
      );
      assert.equal(refused.code, 'NOT_FOUND');
    } finally {
      await closeClients();
      await rig.close();
    }
  });
});
