// Child process for the log-flush tests: `plc-gateway serve` writing to this process's own stdout, as in
// production. It reports its URL over IPC; the message 'crash' makes it throw an uncaught error.
import { runCli } from '../../src/main.ts';

const stop = new AbortController();
process.once('SIGTERM', () => stop.abort());
process.on('message', (message) => {
  if (message === 'crash') {
    setImmediate(() => {
      throw new Error('simulated crash');
    });
  }
});
process.exitCode = await runCli(process.argv.slice(2), {
  signal: stop.signal,
  onListening: (url) => process.send?.({ url }),
});
process.disconnect();
