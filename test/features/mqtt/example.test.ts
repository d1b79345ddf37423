// The example plant published: `plc-gateway serve` on examples/appsettings.json with MQTT switched on by
// environment, and a stock MQTT client subscribed to spBv1.0/# sees line1 and line2 as Sparkplug devices with
// their values.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Mosquitto } from '../../../bench/servers/mosquitto.ts';
import { Subscriber } from './fixture.ts';

describe('the example plant over MQTT', () => {
  let broker: Mosquitto;
  let sub: Subscriber;
  let child: ChildProcess;
  let dir: string;

  before(async () => {
    broker = await Mosquitto.start();
    sub = await Subscriber.connect(broker.url, ['spBv1.0/#']);
    dir = mkdtempSync(join(tmpdir(), 'mqtt-example-'));
    child = fork(
      new URL('../../helpers/serve-process.ts', import.meta.url).pathname,
      ['serve', '--config', 'examples/appsettings.json', '--port', '0'],
      {
        execArgv: ['--import', 'tsx'],
        stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
        env: {
          ...process.env,
          Mqtt__Enabled: 'true',
          Mqtt__Url: broker.url,
          Mqtt__StateFile: join(dir, 'mqtt-state.json'),
          Logging__Level: 'warn',
        },
      },
    );
    await once(child, 'message');
  });
  after(async () => {
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    await exited;
    await sub.close();
    await broker.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('shows line1 and line2 as devices with their current values', async () => {
    const node = 'spBv1.0/example-plant';
    await sub.sparkplug(`${node}/NBIRTH/gateway`);
    const births = new Map<string, Awaited<ReturnType<Subscriber['sparkplug']>>>();
    while (births.size < 2) {
      const birth = await sub.sparkplug(/^spBv1\.0\/example-plant\/DBIRTH\/gateway\//);
      births.set(birth.topic.split('/').pop() as string, birth);
    }
    const names = (births.get('line1')?.metrics ?? []).map((m) => m.name);
    assert.ok(names.includes('MAIN.nSpeed'), names.join(', '));
    assert.ok(names.includes('MAIN.rTemperature'));
    for (const birth of births.values()) {
      assert.ok((birth.metrics ?? []).length > 0);
      assert.ok(
        (birth.metrics ?? []).every((m) => m.isNull !== true && m.value !== null),
        'every value read',
      );
    }
  });
});
