// query_history through an MCP client session: the same answer as the route, and the route's rules (plc_access,
// the HistoryQueries limit at its edge, SYMBOL_NOT_RECORDED) as isError results.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { bearer, mintToken } from '../../helpers/tokens.ts';
import { dataOf, errorOf, viewer } from '../mcp/fixture.ts';
import { historyUrl, iso, startHistoryRig, t0, type HistoryRig, type SeriesBody } from './fixture.ts';

let rig: HistoryRig;
let base: string;
const clients: Client[] = [];

async function connect(claims: Record<string, unknown> = viewer): Promise<Client> {
  const client = new Client({ name: 'plc-gateway-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
    requestInit: { headers: bearer(await mintToken(claims)) },
  });
  await client.connect(transport);
  clients.push(client);
  return client;
}

before(async () => {
  rig = await startHistoryRig({
    symbols: [{ Path: 'MAIN.fTemp' }],
    settings: {
      Features: { Mcp: true },
      RateLimiting: { HistoryQueries: 3, GlobalPerUser: 1_000_000 },
    },
  });
  await rig.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(rig.app.server.address() as AddressInfo).port}`;
  await rig.write('MAIN.fTemp', 25, t0 + 500);
  // Waited for on /metrics, which spends no query budget.
  await rig.until(
    async () => /^history_samples_written_total 2$/m.test((await rig.get('/metrics')).body),
    'both samples written',
  );
});
after(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await rig.close();
});

const args = { plcId: 'line1', symbols: ['MAIN.fTemp'], from: iso(t0), to: iso(t0 + 1000), maxPoints: 1 };

describe('query_history (MCP)', () => {
  it('answers as the route does, and spends the same HistoryQueries budget (N, then N+1 refused)', async () => {
    const client = await connect();
    const tools = await client.listTools();
    assert.ok(tools.tools.some((t) => t.name === 'query_history'));
    const data = dataOf<{ series: SeriesBody[] }>(
      await client.callTool({ name: 'query_history', arguments: args }),
    );
    assert.deepEqual(data.series[0]?.buckets, [
      { t: iso(t0), min: 20, max: 25, first: 20, last: 25, count: 2 },
    ]);
    const route = await rig.app.inject({
      method: 'GET',
      url: historyUrl(['MAIN.fTemp'], t0, t0 + 1000, { maxPoints: 1 }),
      headers: bearer(await mintToken(viewer)),
    });
    assert.deepEqual(route.json<{ data: unknown }>().data, data);
    // One tool call and one route call spent; the third is the last allowed.
    const third = await client.callTool({ name: 'query_history', arguments: args });
    assert.equal(third.isError, undefined);
    const refused = await client.callTool({ name: 'query_history', arguments: args });
    assert.equal(errorOf(refused).code, 'RATE_LIMITED');
  });

  it('refuses a PLC outside plc_access and a symbol not recorded', async () => {
    const elsewhere = await connect({ ...viewer, sub: 'other', plc_access: ['line2'] });
    assert.equal(
      errorOf(await elsewhere.callTool({ name: 'query_history', arguments: args })).code,
      'PLC_ACCESS_DENIED',
    );
    const fresh = await connect({ ...viewer, sub: 'fresh' });
    const missing = await fresh.callTool({
      name: 'query_history',
      arguments: { ...args, symbols: ['MAIN.nope'] },
    });
    assert.equal(errorOf(missing).code, 'SYMBOL_NOT_RECORDED');
  });
});
