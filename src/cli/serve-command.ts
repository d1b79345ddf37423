// `plc-gateway serve`: load settings, build the targets and the app, listen, and close gracefully on a signal.
import { resolve } from 'node:path';
import { pino } from 'pino';
import { loadConfig } from '../config/load.ts';
import { parseListenUrl, reachableHost, type ListenAddress } from '../config/listen-url.ts';
import { usesDevelopmentKey } from '../config/development-key.ts';
import type { Config } from '../config/schema.ts';
import { buildTargets } from '../targets/build-targets.ts';
import { createRegistry } from '../targets/registry.ts';
import type { Command } from './command.ts';
import { UsageError, writeLine, type CliIo } from './io.ts';
import { developmentAdminClaims, mintToken, signingSetup } from './mint-token.ts';
import { formatOptions, helpOption, parseOptions, stringOption, type OptionTable } from './options.ts';

const options: OptionTable = {
  config: {
    type: 'string',
    short: 'c',
    value: 'FILE',
    description: 'Settings file (default appsettings.json)',
  },
  port: {
    type: 'string',
    short: 'p',
    value: 'N',
    description: 'Port to listen on, 0 for any free port (default from Urls)',
  },
  host: { type: 'string', value: 'HOST', description: 'Interface to listen on (default from Urls)' },
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

function waitForAbort(signal: AbortSignal | undefined): Promise<void> {
  if (signal === undefined) return new Promise(() => undefined);
  if (signal.aborted) return Promise.resolve();
  return new Promise((done) => signal.addEventListener('abort', () => done(), { once: true }));
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
}

async function run(args: readonly string[], io: CliIo): Promise<number> {
  const parsed = parseOptions(args, options);
  if (parsed.values.help === true) {
    writeLine(io.stdout, help);
    return 0;
  }
  const port = parsePort(stringOption(parsed, 'port'));
  const configFile = resolve(io.cwd, stringOption(parsed, 'config') ?? 'appsettings.json');
  const config = loadConfig(configFile, io.env);
  const logStream = { write: (line: string) => io.stdout.write(line) };
  // Targets log what fails while nobody waits (connecting, notifications) on lines bound to their plcId.
  const targetLog = pino({ level: config.settings.Logging.Level }, logStream);
  const registry = createRegistry(await buildTargets(config, targetLog));
  // Loaded here so that the other commands (token) start without loading the HTTP stack.
  const { buildApp } = await import('../app.ts');
  const app = await buildApp(config, { registry, logger: { stream: logStream } }).catch(
    async (err: unknown) => {
      await registry.closeAll();
      throw err;
    },
  );
  const address = listenAddress(config, stringOption(parsed, 'host'), port);
  try {
    await registry.startAll();
    await app.listen({ host: address.host, port: address.port });
  } catch (err) {
    await app.close();
    await registry.closeAll();
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
  return 0;
}

export const serveCommand: Command = {
  name: 'serve',
  summary: 'Start the gateway (the default command)',
  help,
  run,
};
