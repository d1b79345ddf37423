// Child process for the log-flush tests: `plc-gateway serve` writing to this process's own stdout, as in
// production. It reports its URL over IPC; the message 'crash' makes it throw an uncaught error, and
// `{ clockAt: ms }` sets the process's clock (Date.now) to that instant, answered `{ clockSet: ms }`.
import { runCli } from '../../src/main.ts';

const realNow = Date.now.bind(Date);
let offsetMs = 0;
// Before runCli builds the app, which takes Date.now as its clock.
Date.now = () => realNow() + offsetMs;

const stop = new AbortController();
process.once('SIGTERM', () => stop.abort());
process.on('message', (message) => {
  const clockAt = (message as { clockAt?: unknown } | null)?.clockAt;
  if (typeof clockAt === 'number') {
    offsetMs = clockAt - realNow();
    process.send?.({ clockSet: clockAt });
    return;
  }
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
