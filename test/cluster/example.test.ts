// The cluster example as a user runs it (`examples/cluster/run.sh`, on free ports): Redis, sim-ads and three
// replicas come up, an alarm raised through one replica reaches a stream on another, and stopping the script
// stops every process it started (nothing is left listening).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { connect, createServer } from 'node:net';
import { describe, it } from 'node:test';
import { authHeaders, RawSse } from '../features/notifications/clients.ts';
import { alarmEvent, writeSlot } from '../features/alarms/cluster/alarm-cluster.ts';
import { entry } from '../features/alarms/fixture.ts';
import { freePort } from '../helpers/redis-server.ts';

/** `count` consecutive ports nothing listens on, starting above a free one. */
async function freeRun(count: number): Promise<number> {
  for (;;) {
    const base = await freePort();
    const free = await Promise.all(
      Array.from({ length: count }, async (_, i) => {
        const server = createServer().listen(base + i, '127.0.0.1');
        const ok = await once(server, 'listening').then(
          () => true,
          () => false,
        );
        server.close();
        return ok;
      }),
    );
    if (free.every(Boolean)) return base;
  }
}

/** Whether something accepts connections on the loopback port. */
async function listening(port: number): Promise<boolean> {
  const socket = connect(port, '127.0.0.1');
  const ok = await once(socket, 'connect').then(
    () => true,
    () => false,
  );
  socket.destroy();
  return ok;
}

describe('examples/cluster/run.sh', () => {
  it(
    'starts Redis, sim-ads and three replicas sharing alarms, and stops all of them on SIGTERM',
    { timeout: 120_000 },
    async () => {
      const [redisPort, adsPort, basePort] = [await freePort(), await freePort(), await freeRun(3)];
      const script = spawn('bash', ['examples/cluster/run.sh'], {
        env: {
          ...process.env,
          REDIS_PORT: String(redisPort),
          ADS_PORT: String(adsPort),
          BASE_PORT: String(basePort),
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      script.stderr.on('data', (c: Buffer) => (output += c.toString()));
      const token = await new Promise<string>((done, fail) => {
        script.stdout.on('data', (c: Buffer) => {
          output += c.toString();
          const m = /^TOKEN=(\S+)$/m.exec(output);
          if (m?.[1]) done(m[1]);
        });
        script.once('exit', (code) => fail(new Error(`run.sh exited (${String(code)}): ${output}`)));
      });
      const ports = [redisPort, adsPort, basePort, basePort + 1, basePort + 2];
      try {
        const headers = authHeaders(token);
        const url = (i: number) => `http://127.0.0.1:${basePort + i}`;
        // Replicas and lease holders are details: an admin token for every PLC sees them.
        const ready = (await (await fetch(`${url(1)}/health/ready`, { headers })).json()) as {
          checks: Array<{ name: string; data: { replicas?: string[] } }>;
        };
        assert.deepEqual(ready.checks.find((c) => c.name === 'cluster')?.data.replicas, [
          'replica-1',
          'replica-2',
          'replica-3',
        ]);
        const sse = await new RawSse(`${url(2)}/api/plcs/line1/alarms/stream`, headers).opened();
        assert.equal(sse.status, 200);
        // Slot 10: the scenario's own alarms use the first slots.
        await writeSlot({ url: url(0) }, headers, 10, entry({ sKey: 'EXAMPLE_1', ErrorType: 2 }));
        await sse.next(alarmEvent('raised', 'EXAMPLE_1'));
        sse.close();
        for (const port of ports) assert.equal(await listening(port), true, `port ${port}`);
      } finally {
        const exited = once(script, 'exit');
        script.kill('SIGTERM');
        await exited;
      }
      // The script waits for what it started: once it has exited, nothing of it is left.
      for (const port of ports) assert.equal(await listening(port), false, `port ${port} still listening`);
    },
  );
});
