// MCP sessions and limits on the app's clock: idle expiry at Mcp.SessionIdleMinutes, the per-user session bound,
// and a tool spending its mirrored route's rate limit.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { manualClock } from '../../helpers/app.ts';
import { admin, dataOf, errorOf, operator, startMcpRig, viewer, type McpRig } from './fixture.ts';

const clock = manualClock(Date.UTC(2026, 10, 22, 8, 0, 0));
let rig: McpRig;
before(async () => {
  rig = await startMcpRig({
    now: clock.now,
    settings: { Mcp: { SessionIdleMinutes: 30, MaxSessionsPerUser: 2 }, RateLimiting: { SymbolBrowsing: 2 } },
  });
});
after(() => rig.close());

test('a session idle for Mcp.SessionIdleMinutes is gone (404); a request before that keeps it', async () => {
  const client = await rig.connect({ ...viewer, sub: 'idle' });
  const list = { name: 'list_plcs', arguments: {} };
  dataOf(await client.callTool(list));
  clock.advance(30 * 60_000 - 1);
  dataOf(await client.callTool(list));
  clock.advance(30 * 60_000 - 1);
  dataOf(await client.callTool(list));
  clock.advance(30 * 60_000);
  await assert.rejects(client.callTool(list), /404|Session not found/);
  const again = await rig.connect({ ...viewer, sub: 'idle' });
  dataOf(await again.callTool(list));
});

test('Mcp.MaxSessionsPerUser: one more session is 429 CONNECTION_LIMIT; ending one makes room', async () => {
  const first = await rig.connect(operator);
  await rig.connect(operator);
  await assert.rejects(rig.connect(operator), /CONNECTION_LIMIT/);
  await rig.connect({ ...operator, sub: 'someone-else' });
  await (first.transport as StreamableHTTPClientTransport).terminateSession();
  await rig.connect(operator);
});

test('a tool spends the limit of the route it mirrors: SymbolBrowsing at its edge', async () => {
  const client = await rig.connect(admin);
  const browse = { name: 'browse_symbols', arguments: { plcId: 'line1', depth: 0 } };
  clock.advance(1000 - (clock.now() % 1000));
  dataOf(await client.callTool(browse));
  dataOf(
    await client.callTool({
      name: 'get_symbol_info',
      arguments: { plcId: 'line1', path: 'GVL_HMI.stMachine' },
    }),
  );
  const limited = errorOf(await client.callTool(browse));
  assert.equal(limited.code, 'RATE_LIMITED');
  dataOf(
    await client.callTool({
      name: 'read_variable',
      arguments: { plcId: 'line1', path: 'GVL_HMI.stMachine.nState' },
    }),
  );
  clock.advance(1000);
  dataOf(await client.callTool(browse));
});
