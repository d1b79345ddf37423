// Long-running tools (watch_variables) at their caps, on an injected sleep the test releases by hand: places per
// user (Mcp.MaxConcurrentToolsPerUser) and in all (Mcp.MaxConcurrentTools), a batch of watches from one POST, places
// given back when a session ends, and the floor on the sampling interval (Mcp.WatchMinIntervalMs), each at its edge.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Signal } from '../../helpers/signal.ts';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { dataOf, errorOf, startMcpRig, viewer, type McpRig } from './fixture.ts';
import { openSession, postRpc, toolCall } from './raw-rpc.ts';

const speed = 'GVL_HMI.stMachine.rSpeedSetpoint';

const sleeping: Array<() => void> = [];
const slept = new Signal();
let aborted = 0;
const sleep = (_ms: number, abort: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    sleeping.push(resolve);
    abort.addEventListener(
      'abort',
      () => {
        sleeping.splice(sleeping.indexOf(resolve), 1);
        aborted++;
        reject(new Error('aborted'));
        slept.notify();
      },
      { once: true },
    );
    slept.notify();
  });
/** Waits until `n` watches are between two samples. */
const asleep = (n: number) =>
  slept.until(
    () => sleeping.length >= n,
    10_000,
    () => `${n} watches waiting for their next sample`,
  );
/** Lets every waiting watch take its next sample (a one-second watch at 1000 ms then ends). */
const wakeAll = () => sleeping.splice(0).forEach((wake) => wake());

let rig: McpRig;
before(async () => {
  rig = await startMcpRig({
    sleep,
    settings: { Mcp: { MaxConcurrentToolsPerUser: 2, MaxConcurrentTools: 3, WatchMinIntervalMs: 250 } },
  });
});
after(() => rig.close());

const watch = { name: 'watch_variables', arguments: { plcId: 'line1', paths: [speed], seconds: 1 } };

test('Mcp.MaxConcurrentToolsPerUser and Mcp.MaxConcurrentTools: the place after the last is refused, named', async () => {
  const vera = await rig.connect({ ...viewer, sub: 'watcher-1' });
  const running = [vera.callTool(watch), vera.callTool(watch)];
  await asleep(2);
  const perUser = errorOf(await vera.callTool(watch));
  assert.equal(perUser.code, 'CONCURRENCY_LIMIT');
  assert.match(perUser.message, /Mcp\.MaxConcurrentToolsPerUser is 2/);
  // A call that is not long-running takes no place.
  dataOf(await vera.callTool({ name: 'read_variable', arguments: { plcId: 'line1', path: speed } }));

  const other = await rig.connect({ ...viewer, sub: 'watcher-2' });
  running.push(other.callTool(watch));
  await asleep(3);
  const total = errorOf(await other.callTool(watch));
  assert.equal(total.code, 'CONCURRENCY_LIMIT');
  assert.match(total.message, /Mcp\.MaxConcurrentTools is 3/);

  wakeAll();
  for (const call of running) assert.equal(dataOf<{ samples: number }>(await call).samples, 2);
  // Ended calls gave their places back, refused ones never held any.
  const again = [vera.callTool(watch), vera.callTool(watch), other.callTool(watch)];
  await asleep(3);
  wakeAll();
  for (const call of again) dataOf(await call);
});

test('a batch of watches in one POST gets no more places than separate calls', async () => {
  const { token, session } = await openSession(rig.url, { ...viewer, sub: 'watcher-3' });
  const call = (id: number) => toolCall(id, 'watch_variables', watch.arguments);
  const posted = postRpc(rig.url, token, [call(1), call(2), call(3)], session);
  await asleep(2);
  wakeAll();
  const answers = (await posted).messages;
  assert.equal(answers.length, 3);
  const refused = answers.filter((m) => (m.result as { isError?: boolean }).isError === true);
  assert.equal(refused.length, 1);
  const text = (refused[0]!.result as { content: Array<{ text: string }> }).content[0]!.text;
  assert.match(text, /CONCURRENCY_LIMIT.*Mcp\.MaxConcurrentToolsPerUser/);
});

test('Mcp.WatchMinIntervalMs: an interval at the floor samples, one ms below is refused', async () => {
  const client = await rig.connect({ ...viewer, sub: 'watcher-4' });
  const at = (intervalMs: number) =>
    client.callTool({ name: 'watch_variables', arguments: { ...watch.arguments, intervalMs } });
  const below = errorOf(await at(249));
  assert.equal(below.code, 'VALIDATION_ERROR');
  assert.match(below.message, /intervalMs/);
  const floor = at(250);
  // One second at 250 ms: samples at 0, 250, 500, 750 and 1000.
  for (let i = 0; i < 4; i++) {
    await asleep(1);
    wakeAll();
  }
  const done = dataOf<{ samples: number; intervalMs: number }>(await floor);
  assert.deepEqual([done.samples, done.intervalMs], [5, 250]);
});

test('ending the session stops its watches and gives their places back', async () => {
  const leaving = await rig.connect({ ...viewer, sub: 'watcher-5' });
  // Never answered: the session ends under them (closing the rig settles the client's side).
  for (let i = 0; i < 2; i++) void leaving.callTool(watch).catch(() => undefined);
  await asleep(2);
  assert.equal(errorOf(await leaving.callTool(watch)).code, 'CONCURRENCY_LIMIT');
  const before = aborted;
  await (leaving.transport as StreamableHTTPClientTransport).terminateSession();
  await slept.until(
    () => aborted === before + 2,
    10_000,
    () => 'both watches cancelled',
  );
  const back = await rig.connect({ ...viewer, sub: 'watcher-5' });
  const again = [back.callTool(watch), back.callTool(watch)];
  await asleep(2);
  wakeAll();
  for (const call of again) dataOf(await call);
});
