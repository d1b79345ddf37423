// alarm_kpis through an MCP client session: the same answer as the routes for the same window, one PLC and the
// fleet filtered by plc_access, and the routes' rules (ReadAccess, plc_access, bad windows, HistoryQueries).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { manualClock } from '../../../helpers/app.ts';
import { dataOf, errorOf, line1Only, startMcpRig, viewer, type McpRig } from '../../mcp/fixture.ts';
import { arrayPath } from '../fixture.ts';
import type { KpiJson } from './routes.test.ts';

const clock = manualClock(Date.UTC(2030, 2, 1, 6, 0, 0));
/** Starts a fresh one-second window of every limit. */
const nextWindow = () => clock.advance(1000 - (clock.now() % 1000));
const iso = (ms: number) => new Date(ms).toISOString();

describe('alarm_kpis (MCP)', () => {
  let rig: McpRig;
  let window: { from: string; to: string };
  before(async () => {
    rig = await startMcpRig({
      now: clock.now,
      settings: {
        PlcAlarms: {
          Targets: { line1: { SymbolPath: arrayPath }, line2: { SymbolPath: arrayPath } },
        },
        RateLimiting: { HistoryQueries: 2 },
      },
    });
    // Scan 1 raises FILLER_OVERTEMP, scan 2 CAPPER_JAM, on line1 only.
    clock.advance(60_000);
    const res = await rig.http('POST', '/api/plcs/line1/sim/step?cycles=2');
    assert.equal(res.status, 200);
    clock.advance(60_000);
    window = { from: iso(clock.now() - 3_600_000), to: iso(clock.now()) };
  });
  after(() => rig.close());

  const call = async (client: Client, args: Record<string, unknown>) => {
    nextWindow();
    return client.callTool({ name: 'alarm_kpis', arguments: args });
  };

  test('is listed read-only, and answers one PLC as the route does', async () => {
    const client = await rig.connect(viewer);
    const tool = (await client.listTools()).tools.find((t) => t.name === 'alarm_kpis');
    assert.equal(tool?.annotations?.readOnlyHint, true);
    const kpis = dataOf<KpiJson>(await call(client, { plcId: 'line1', ...window }));
    assert.equal(kpis.figures.raised.total, 2);
    assert.deepEqual(
      kpis.figures.topKeys.items.map((k) => k.key),
      ['CAPPER_JAM', 'FILLER_OVERTEMP'],
    );
    nextWindow();
    const route = await rig.http(
      'GET',
      `/api/plcs/line1/alarms/kpis?from=${window.from}&to=${window.to}`,
      viewer,
    );
    assert.deepEqual(((await route.json()) as { data: KpiJson }).data, kpis);
  });

  test('the fleet, filtered by plc_access', async () => {
    const fleet = async (claims: Record<string, unknown>) =>
      dataOf<{ plcs: KpiJson[]; figures: KpiJson['figures'] }>(await call(await rig.connect(claims), window));
    const all = await fleet(viewer);
    assert.deepEqual(
      all.plcs.map((p) => [p.plcId, p.figures.raised.total]),
      [
        ['line1', 2],
        ['line2', 0],
      ],
    );
    assert.equal(all.figures.raised.total, 2);
    assert.deepEqual(
      (await fleet(line1Only)).plcs.map((p) => p.plcId),
      ['line1'],
    );
    const none = errorOf(await call(await rig.connect({ ...viewer, sub: 'nobody', plc_access: [] }), {}));
    assert.equal(none.code, 'PLC_ACCESS_DENIED');
  });

  test('the routes’ rules: ReadAccess, plc_access, bad windows, HistoryQueries', async () => {
    const noRead = await rig.connect({ sub: 'w', role: 'viewer', scope: 'ads:write' });
    assert.equal(errorOf(await call(noRead, { plcId: 'line1' })).code, 'FORBIDDEN');
    const lena = await rig.connect(line1Only);
    assert.equal(errorOf(await call(lena, { plcId: 'line2' })).code, 'PLC_ACCESS_DENIED');
    const vera = await rig.connect(viewer);
    const bad = errorOf(await call(vera, { plcId: 'line1', from: window.to, to: window.from }));
    assert.deepEqual([bad.code, bad.message], ['VALIDATION_ERROR', 'from must be before to.']);
    nextWindow();
    for (let i = 0; i < 2; i++)
      dataOf(await vera.callTool({ name: 'alarm_kpis', arguments: { plcId: 'line1' } }));
    const over = errorOf(await vera.callTool({ name: 'alarm_kpis', arguments: { plcId: 'line1' } }));
    assert.equal(over.code, 'RATE_LIMITED');
  });
});
