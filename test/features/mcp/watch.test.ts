// watch_variables on an injected sleep the test releases by hand: the series between samples, the bounds on
// seconds, symbols and interval at their edges, per-path errors, and the policy of the route it mirrors.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Signal } from '../../helpers/signal.ts';
import { bearer, mintToken } from '../../helpers/tokens.ts';
import { admin, dataOf, errorOf, line1Only, startMcpRig, viewer, type McpRig } from './fixture.ts';

const speed = 'GVL_HMI.stMachine.rSpeedSetpoint';
const state = 'GVL_HMI.stMachine.nState';

interface Sleeping {
  ms: number;
  wake(): void;
}
const sleeping: Sleeping[] = [];
const slept = new Signal();
const sleep = (ms: number, abort: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    sleeping.push({ ms, wake: resolve });
    abort.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
    slept.notify();
  });
/** Waits until the watch sleeps, then wakes it after `between` ran. */
async function wake(between: () => Promise<void> = () => Promise.resolve()): Promise<number> {
  const next = await slept.until(
    () => sleeping.shift(),
    10_000,
    () => 'a watch waiting for its next sample',
  );
  await between();
  next.wake();
  return next.ms;
}

type Watch = {
  intervalMs: number;
  samples: number;
  series: Record<
    string,
    { typeName: string | null; points: Array<{ at: string; value: unknown }>; error?: { code: string } }
  >;
};

let rig: McpRig;
before(async () => {
  rig = await startMcpRig({ sleep, settings: { Mcp: { WatchMaxSeconds: 2, WatchMaxSymbols: 3 } } });
});
after(() => rig.close());

test('samples every intervalMs for the given seconds and answers a point per change', async () => {
  const client = await rig.connect(viewer);
  const start = rig.line1.plc.read(speed);
  const call = client.callTool({
    name: 'watch_variables',
    arguments: { plcId: 'line1', paths: [speed, state, 'GVL_HMI.nope'], seconds: 1, intervalMs: 500 },
  });
  assert.equal(
    await wake(async () => {
      const res = await fetch(new URL(`/api/plcs/line1/variables/${encodeURIComponent(speed)}`, rig.url), {
        method: 'PUT',
        headers: { ...bearer(await mintToken(admin)), 'content-type': 'application/json' },
        body: JSON.stringify({ value: 77.5 }),
      });
      assert.equal(res.status, 200);
    }),
    500,
  );
  await wake();
  const watch = dataOf<Watch>(await call);
  assert.equal(watch.samples, 3);
  assert.deepEqual(
    watch.series[speed]?.points.map((p) => p.value),
    [start, 77.5],
  );
  assert.equal(watch.series[speed]?.typeName, 'REAL');
  assert.equal(watch.series[state]?.points.length, 1, 'an unchanged value is one point');
  assert.equal(watch.series['GVL_HMI.nope']?.error?.code, 'SYMBOL_NOT_FOUND');
  assert.equal(sleeping.length, 0);
});

test('the longest watch allowed runs to its end; longer, more symbols or a shorter interval are refused', async () => {
  const client = await rig.connect(viewer);
  const call = client.callTool({
    name: 'watch_variables',
    arguments: { plcId: 'line1', paths: [speed, state, speed], seconds: 2, intervalMs: 1000 },
  });
  await wake();
  await wake();
  assert.equal(dataOf<Watch>(await call).samples, 3);

  const refused = async (args: Record<string, unknown>) =>
    errorOf(
      await client.callTool({
        name: 'watch_variables',
        arguments: { plcId: 'line1', paths: [speed], seconds: 1, ...args },
      }),
    ).code;
  assert.equal(await refused({ seconds: 3 }), 'VALIDATION_ERROR');
  assert.equal(await refused({ seconds: 0 }), 'VALIDATION_ERROR');
  assert.equal(await refused({ paths: [speed, state, speed, state] }), 'VALIDATION_ERROR');
  assert.equal(await refused({ paths: [] }), 'VALIDATION_ERROR');
  assert.equal(await refused({ intervalMs: 99 }), 'VALIDATION_ERROR');
  assert.equal(await refused({ intervalMs: 10_001 }), 'VALIDATION_ERROR');
  assert.equal(sleeping.length, 0, 'nothing refused started sampling');
});

test('the route’s rules hold: plc_access and ReadAccess, and a missing PLC fails before sampling', async () => {
  const args = { plcId: 'line2', paths: [speed], seconds: 1 };
  assert.equal(
    errorOf(await (await rig.connect(line1Only)).callTool({ name: 'watch_variables', arguments: args })).code,
    'PLC_ACCESS_DENIED',
  );
  const noRead = await rig.connect({ ...viewer, sub: 'noread', scope: 'ads:write' });
  assert.equal(
    errorOf(await noRead.callTool({ name: 'watch_variables', arguments: args })).code,
    'FORBIDDEN',
  );
  rig.line2.disconnect();
  try {
    const down = errorOf(
      await (await rig.connect(admin)).callTool({ name: 'watch_variables', arguments: args }),
    );
    assert.equal(down.code, 'PLC_UNAVAILABLE');
  } finally {
    rig.line2.reconnect();
  }
  assert.equal(sleeping.length, 0);
});
