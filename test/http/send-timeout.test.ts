// The send timeout on an event stream: a client that stops reading keeps its stream (oldest events dropped from
// its bounded queue) until its send buffer has stayed full for Http.SendTimeoutSeconds, then the connection is
// ended, the stream released and the cut counted; a client that reads is never cut.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SweepResult } from '../../src/http/send-timeout.ts';
import { ProgramBuilder } from '../../src/simulator/engine/index.ts';
import {
  authHeaders,
  connections,
  RawSse,
  sseUrl,
  startStreamApp,
} from '../features/notifications/clients.ts';

describe('send timeout on event streams', () => {
  it('a paused SSE client drops its oldest events, and is cut exactly Http.SendTimeoutSeconds after it stalled', async () => {
    const size = 16_000;
    const b = new ProgramBuilder();
    b.symbol('MAIN.aBig', `ARRAY [1..${size}] OF DINT`);
    let t = 5_000_000;
    let sweep: () => SweepResult = () => ({ blocked: 0, ended: 0 });
    const s = await startStreamApp('simulated', {
      program: b.build(),
      settings: { Notifications: { QueueLength: 10 }, Http: { SendTimeoutSeconds: 5 } },
      sendWatch: {
        now: () => t,
        every: (run) => {
          sweep = run;
          return () => undefined;
        },
      },
    });
    try {
      const h = authHeaders(s.token);
      const slow = await new RawSse(sseUrl(s.base, ['MAIN.aBig']), h, { paused: true }).opened();
      const fast = await new RawSse(sseUrl(s.base, ['MAIN.aBig']), h).opened();
      await fast.count(2);
      // ~80 KB per change: the paused client's buffers fill, and the gateway sees its send buffer full.
      let writes = 0;
      const change = async (): Promise<void> => {
        writes += 1;
        await s.plc.target.write('MAIN.aBig', new Array<number>(size).fill(writes));
        const n = writes;
        await fast.next((e) => e.event === 'change' && (e.data as { value: number[] }).value[0] === n);
      };
      while (sweep().blocked === 0) await change();
      // Until the timeout the stream stays, dropping its oldest events.
      while (!(await connections(s)).some((r) => (r.dropped as number) > 0)) await change();
      t += 4_999;
      assert.deepEqual(sweep(), { blocked: 1, ended: 0 });
      assert.equal((await connections(s)).length, 2);
      t += 1;
      assert.deepEqual(sweep(), { blocked: 1, ended: 1 });
      // The stream is released; the reading client carries on.
      while ((await connections(s)).length > 1) await change();
      await change();
      t += 60_000;
      assert.deepEqual(sweep(), { blocked: 0, ended: 0 });
      assert.match(
        (await s.app.inject({ method: 'GET', url: '/metrics' })).body,
        /^http_send_timeouts_total 1$/m,
      );
      slow.close();
      fast.close();
    } finally {
      await s.close();
    }
  });
});
