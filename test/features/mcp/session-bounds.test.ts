// Mcp.MaxSessions at its edge over plain POSTs: the last place is taken, the next initialize is 429 naming the
// setting, and a session ended with DELETE frees exactly one place even when several users race for it.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { bearer, mintToken } from '../../helpers/tokens.ts';
import { startMcpRig, viewer, type McpRig } from './fixture.ts';
import { initialize, openSession, postRpc } from './raw-rpc.ts';

let rig: McpRig;
before(async () => {
  rig = await startMcpRig({ settings: { Mcp: { MaxSessionsPerUser: 2, MaxSessions: 3 } } });
});
after(() => rig.close());

test('Mcp.MaxSessions: the third session in all opens, a fourth is 429; a DELETE frees one place', async () => {
  await openSession(rig.url, { ...viewer, sub: 'a' });
  const second = await openSession(rig.url, { ...viewer, sub: 'a' });
  await openSession(rig.url, { ...viewer, sub: 'b' });
  const refused = await postRpc(rig.url, await mintToken({ ...viewer, sub: 'c' }), initialize());
  assert.equal(refused.status, 429);
  assert.equal(refused.envelope?.error.code, 'CONNECTION_LIMIT');
  assert.match(refused.envelope?.error.message ?? '', /Mcp\.MaxSessions\b/);

  const ended = await fetch(rig.url, {
    method: 'DELETE',
    headers: { ...bearer(second.token), 'mcp-session-id': second.session },
  });
  assert.equal(ended.status, 200);
  const racers = await Promise.all(
    ['c', 'd', 'e'].map(async (sub) => postRpc(rig.url, await mintToken({ ...viewer, sub }), initialize())),
  );
  assert.deepEqual(racers.map((r) => r.status).sort(), [200, 429, 429]);
});
