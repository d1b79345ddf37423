// `plc-gateway serve`: load settings, build the targets and the app, listen, and close gracefully on a signal.
import { resolve } from 'node:path';
import { loadConfig } from '../config/load.ts';
import { parseListenUrl, reachableHost, type ListenAddress } from '../config/listen-url.ts';
import { usesDevelopmentKey } from '../config/development-key.ts';
import type { Config } from '../config/schema.ts';
import { createLogger, logDestination } from '../http/logging.ts';
import { buildTargets } from '../targets/build-targets.ts';
import { createRegistry } from '../targets/registry.ts';
import type { Command } from './command.ts';
import { UsageError, waitForAbort, writeLine, type CliIo } from './io.ts';
import { developmentAdminClaims, mintToken, signingSetup } from './mint-token.ts';
import { formatOptions, helpOption, parseCommandLine, stringOption, type OptionTable } from './options.ts';

const options: OptionTable = {
  config: { short: 'c', value: 'FILE', description: 'Settings file (default appsettings.json)' },
  port: { short: 'p', value: 'N', description: 'Port to listen on, 0 for any free port (default from Urls)' },
  host: { value: 'HOST', description: 'Interface to listen on (default from Urls)' },
  ...helpOption,
};

const help = `Usage: plc-gateway serve [--config FILE] [--port N] [--host HOST]

Starts the gateway. Relative paths in the settings resolve against the settings file's folder.
Invalid settings stop start-up with every problem listed. SIGTERM or SIGINT close it gracefully.

${formatOptions(options)}`;

function parsePort(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const port = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!(port >= 0 && port <= 65535)) throw new UsageError(`--port must be 0-65535 (got '${text}')`);
  return port;
}

function listenAddress(config: Config, host: string | undefined, port: number | undefined): ListenAddress {
  const fromUrls = parseListenUrl(config.settings.Urls);
  // The loader has already rejected a malformed Urls; the fallback only satisfies the types.
  const base = fromUrls.ok ? fromUrls : { host: '127.0.0.1', port: 5000 };
  return { host: host ?? base.host, port: port ?? base.port };
}

async function printDevelopmentAccess(config: Config, baseUrl: string, io: CliIo): Promise<void> {
  const auth = config.settings.Auth;
  const setup = signingSetup(auth);
  if ('problem' in setup) return;
  const token = await mintToken(developmentAdminClaims(auth), setup);
  writeLine(io.stdout, 'Auth uses the built-in development key (refused when NODE_ENV=production).');
  writeLine(io.stdout, 'Admin token, valid 12 h, every PLC:');
  writeLine(io.stdout, token);
  writeLine(io.stdout, 'Try:');
  writeLine(io.stdout, `curl -H "Authorization: Bearer ${token}" ${baseUrl}/api/plcs`);
  if (config.settings.Console.Enabled) {
    // A fragment never reaches the server (nor its logs); the console removes it from the address bar.
    writeLine(io.stdout, 'Web console, signed in as that admin:');
    writeLine(io.stdout, `${baseUrl}/console/#token=${token}`);
  }
}

async function run(args: readonly string[], io: CliIo): Promise<number> {
  const parsed = parseCommandLine(args, options, help, io);
  if (parsed === undefined) return 0;
  const port = parsePort(stringOption(parsed, 'port'));
  const configFile = resolve(io.cwd, stringOption(parsed, 'config') ?? 'appsettings.json');
  const config = loadConfig(configFile, io.env);
  const logOut = logDestination(io.stdout);
  const log = createLogger(logOut.stream, config.settings.Logging.Level);
  for (const w of config.warnings) log.warn({ setting: w.setting }, w.message);
  // Targets log what fails while nobody waits (connecting, notifications) on children bound to their plcId.
  const registry = createRegistry(await buildTargets(config, log));
  const address = listenAddress(config, stringOption(parsed, 'host'), port);
  // Loaded here so that the other commands (token) start without loading the HTTP stack.
  const { buildApp } = await import('../app.ts');
  const app = await buildApp(config, { registry, loggerInstance: log, port: address.port }).catch(
    async (err: unknown) => {
      await registry.closeAll();
      await logOut.close();
      throw err;
    },
  );
  // The crash itself goes to the log too; pino's exit handler flushes it with everything still buffered.
  const onCrash = (err: Error): void => app.log.fatal({ err }, 'uncaught exception, exiting');
  process.on('uncaughtExceptionMonitor', onCrash);
  try {
    await registry.startAll();
    await app.listen({ host: address.host, port: address.port });
  } catch (err) {
    await app.close();
    await registry.closeAll();
    process.off('uncaughtExceptionMonitor', onCrash);
    await logOut.close();
    writeLine(
      io.stderr,
      `plc-gateway serve: cannot start on ${address.host}:${address.port}: ${(err as Error).message}`,
    );
    return 1;
  }
  const bound = app.server.address();
  const boundPort = typeof bound === 'object' && bound !== null ? bound.port : address.port;
  const baseUrl = `http://${reachableHost(address.host)}:${boundPort}`;
  app.log.info({ url: baseUrl, plcs: registry.list().map((t) => t.id) }, 'plc-gateway ready');
  if (usesDevelopmentKey(config.settings.Auth)) await printDevelopmentAccess(config, baseUrl, io);
  io.onListening?.(baseUrl);

  await waitForAbort(io.signal);
  app.log.info('plc-gateway shutting down');
  await app.close();
  await registry.closeAll();
  app.log.info('plc-gateway stopped');
  process.off('uncaughtExceptionMonitor', onCrash);
  await logOut.close();
  return 0;
}

export const serveCommand: Command = {
  name: 'serve',
  summary: 'Start the gateway (the default command)',
  help,
  run,
};
