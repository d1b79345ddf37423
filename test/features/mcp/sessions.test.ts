// MCP sessions and limits on the app's clock: idle expiry at Mcp.SessionIdleMinutes, the per-user session bound,
// and a tool spending its mirrored route's rate limit.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { manualClock } from '../../helpers/app.ts';
import { Signal } from '../../helpers/signal.ts';
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

test('a session listening for a subscribed resource on its open stream is not idle', async () => {
  const listening = await rig.connect({ ...viewer, sub: 'listener' });
  const heard = new Signal();
  let updates = 0;
  listening.setNotificationHandler(ResourceUpdatedNotificationSchema, () => {
    updates++;
    heard.notify();
  });
  await listening.subscribeResource({ uri: 'plc-gateway://plcs/line1/alarms' });
  // An update reaching the client proves its server stream is open.
  assert.equal((await rig.http('POST', '/api/plcs/line1/sim/step?cycles=1')).status, 200);
  await heard.until(
    () => updates > 0,
    10_000,
    () => 'resources/updated',
  );
  const quiet = await rig.connect({ ...viewer, sub: 'quiet' });
  clock.advance(31 * 60_000);
  await assert.rejects(quiet.callTool({ name: 'list_plcs', arguments: {} }), /404|Session not found/);
  dataOf(await listening.callTool({ name: 'list_plcs', arguments: {} }));
  await listening.unsubscribeResource({ uri: 'plc-gateway://plcs/line1/alarms' });
  clock.advance(31 * 60_000);
  await assert.rejects(listening.callTool({ name: 'list_plcs', arguments: {} }), /404|Session not found/);
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
