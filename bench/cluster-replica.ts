// A gateway process of bench:cluster: `plc-gateway serve` with the settings file in argv[2]. Sends { url } when
// listening; answers 'cpu' with its CPU time so far (ms); 'stop' ends it gracefully. With BENCH_CPU_PROF=<dir>,
// the measured window (from the first 'cpu' to the second) is CPU-profiled into <dir>.
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import { runCli } from '../src/main.ts';

const profileDir = process.env.BENCH_CPU_PROF;
let profiler: Session | undefined;

async function toggleProfile(dir: string): Promise<void> {
  if (profiler === undefined) {
    profiler = new Session();
    profiler.connect();
    await profiler.post('Profiler.enable');
    await profiler.post('Profiler.start');
    return;
  }
  const { profile } = await profiler.post('Profiler.stop');
  writeFileSync(join(dir, `replica-${process.pid}.cpuprofile`), JSON.stringify(profile));
  profiler.disconnect();
}

const stop = new AbortController();
process.on('message', (m) => {
  if (m === 'cpu') {
    const { user, system } = process.cpuUsage();
    process.send?.({ cpuMs: (user + system) / 1000 });
    if (profileDir) void toggleProfile(profileDir);
  } else if (m === 'stop') stop.abort();
});
process.exitCode = await runCli(
  ['serve', '--config', process.argv[2] ?? '', '--host', '127.0.0.1', '--port', '0'],
  {
    signal: stop.signal,
    onListening: (url) => process.send?.({ url }),
  },
);
process.disconnect();
