// The gateway side of bench:hostile and bench:soak: `plc-gateway serve` on the shipped example configuration, in
// its own process so its memory and CPU are its own. Reports its URL over IPC; answers 'stats' with its RSS, heap
// and CPU time, and 'heap-snapshot' by writing a V8 heap snapshot (for telling a leak from a slow settle).
import { writeHeapSnapshot } from 'node:v8';
import { runCli } from '../src/main.ts';

const stop = new AbortController();
process.once('SIGTERM', () => stop.abort());
process.on('message', (message: unknown) => {
  if (message === 'stats' || message === 'stats-after-gc') {
    if (message === 'stats-after-gc') globalThis.gc?.();
    const { rss, heapUsed, external, arrayBuffers } = process.memoryUsage();
    process.send?.({ stats: { rss, heapUsed, external, arrayBuffers, cpu: process.cpuUsage() } });
  } else if (typeof message === 'object' && message !== null && 'heapSnapshot' in message) {
    globalThis.gc?.();
    const file = writeHeapSnapshot(String(message.heapSnapshot));
    process.send?.({ snapshot: file });
  }
});
process.exitCode = await runCli(process.argv.slice(2), {
  signal: stop.signal,
  onListening: (url) => process.send?.({ url }),
});
process.disconnect();
