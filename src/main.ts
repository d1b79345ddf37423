// Process entry: runs the CLI when this module is the program (directly or through bin/plc-gateway.js).
import { realpathSync } from 'node:fs';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCli } from './cli/run-cli.ts';

export { runCli } from './cli/run-cli.ts';

const forceExitMs = 5000;

function isEntry(): boolean {
  const script = process.argv[1];
  if (script === undefined) return false;
  let real: string;
  try {
    real = realpathSync(script);
  } catch {
    return false;
  }
  // bin/plc-gateway.js imports this module rather than running it, so it counts as the entry too.
  return real === fileURLToPath(import.meta.url) || basename(real) === 'plc-gateway.js';
}

/** Turns SIGTERM/SIGINT into a graceful stop; a second signal, or 5 s without finishing, forces the exit. */
function shutdownSignal(): AbortSignal {
  const controller = new AbortController();
  const onSignal = (name: NodeJS.Signals): void => {
    if (controller.signal.aborted) process.exit(1);
    process.stderr.write(`plc-gateway: ${name} received, closing\n`);
    controller.abort();
    setTimeout(() => {
      process.stderr.write('plc-gateway: still closing after 5 s, exiting\n');
      process.exit(1);
    }, forceExitMs).unref();
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  return controller.signal;
}

if (isEntry()) {
  process.exitCode = await runCli(process.argv.slice(2), { signal: shutdownSignal() });
}
