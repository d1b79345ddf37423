// A gateway process of bench:cluster: `plc-gateway serve` with the settings file in argv[2]. Sends { url } when
// listening; answers 'cpu' with its CPU time so far (ms); 'stop' ends it gracefully.
import { runCli } from '../src/main.ts';

const stop = new AbortController();
process.on('message', (m) => {
  if (m === 'cpu') {
    const { user, system } = process.cpuUsage();
    process.send?.({ cpuMs: (user + system) / 1000 });
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
