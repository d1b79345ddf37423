// `plc-gateway sim-ads`: serves one simulated PLC (a scenario, or a Simulated target of a settings file)
// over ADS/AMS TCP, so ads-client, TwinCAT tools or a Real gateway target can talk to it.
import { isAbsolute, resolve } from 'node:path';
import { isNetId } from '../simulator/ads-server/protocol/net-id.ts';
import { isLoopbackHost } from '../config/listen-url.ts';
import type { Command } from './command.ts';
import { UsageError, type CliIo } from './io.ts';
import { formatOptions, helpOption, parseCommandLine, stringOption, type OptionTable } from './options.ts';

const options: OptionTable = {
  scenario: { value: 'DIR', description: 'Scenario folder with machine.yaml' },
  config: { short: 'c', value: 'FILE', description: 'Settings file with the PLC to serve' },
  plc: { value: 'ID', description: 'PlcTargets entry (Mode Simulated) to serve, with --config' },
  port: { short: 'p', value: 'N', description: 'TCP port (default 48898, 0 for any free port)' },
  host: { value: 'HOST', description: 'Interface to listen on (default 127.0.0.1)' },
  'net-id': { value: 'ID', description: 'AMS NetId of the simulated system (default 127.0.0.1.1.1)' },
  'ads-port': { value: 'N', description: 'ADS port of the PLC runtime (default 851)' },
  'file-root': { value: 'DIR', description: 'Folder behind the file services (default: in memory)' },
  stopped: { description: "With --scenario: do not start the scenario's scan cycle" },
  udp: { description: 'Answer UDP discovery and add-route (default: on when the host is loopback)' },
  'no-udp': { description: 'Do not answer UDP discovery and add-route' },
  'udp-port': { value: 'N', description: 'UDP port of discovery and routes (default 48899)' },
  'route-password': { value: 'PW', description: 'Password an add-route request must carry (default: any)' },
  'max-notifications': {
    value: 'N',
    description:
      'Notifications one ADS connection may hold, its system ones included (default 10000); past it ' +
      'AddNotification answers 1814 (no more notification handles), as TwinCAT does',
  },
  ...helpOption,
};

const help = `Usage: plc-gateway sim-ads --scenario DIR [options]
       plc-gateway sim-ads --config FILE --plc ID [options]

Serves a simulated PLC over ADS (AMS/TCP): symbols, data types, reads and writes, handles, sum
commands, notifications, RPC methods, PLC start/stop and file services, on ports 851 and 10000, the
real-time service on port 200, and UDP discovery and add-route (port 48899).
Clients connect through the AMS router port (ads-client: routerAddress/routerTcpPort) or with a
fixed local AmsNetId and ADS port. ADS has no authentication: keep it on loopback unless the
network is trusted. SIGTERM or SIGINT stop it. SIGHUP reads the scenario or settings file again
and applies it as a program download: the symbol version goes up, handles and notifications of the
old program become invalid, as on TwinCAT.

${formatOptions(options)}`;

function parseNumber(
  text: string | undefined,
  name: string,
  min: number,
  fallback: number,
  max = 65535,
): number {
  if (text === undefined) return fallback;
  const n = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!(n >= min && n <= max)) throw new UsageError(`--${name} must be ${min}-${max} (got '${text}')`);
  return n;
}

/** sim-ads' default notification limit per connection: far above any real PLC's, so it limits nothing. */
export const defaultMaxNotifications = 10_000;

async function run(args: readonly string[], io: CliIo): Promise<number> {
  const parsed = parseCommandLine(args, options, help, io);
  if (parsed === undefined) return 0;
  const scenarioDir = stringOption(parsed, 'scenario');
  const configFile = stringOption(parsed, 'config');
  const plcId = stringOption(parsed, 'plc');
  if ((scenarioDir === undefined) === (configFile === undefined)) {
    throw new UsageError('give either --scenario DIR or --config FILE --plc ID');
  }
  if (configFile !== undefined && plcId === undefined) throw new UsageError('--config needs --plc ID');
  if (scenarioDir !== undefined && plcId !== undefined)
    throw new UsageError('--plc goes with --config, not --scenario');
  const netId = stringOption(parsed, 'net-id') ?? '127.0.0.1.1.1';
  if (!isNetId(netId))
    throw new UsageError(`--net-id must be six numbers 0-255 separated by dots (got '${netId}')`);
  if (parsed.values.udp === true && parsed.values['no-udp'] === true) {
    throw new UsageError('give --udp or --no-udp, not both');
  }
  const host = stringOption(parsed, 'host') ?? '127.0.0.1';
  const udpPortText = stringOption(parsed, 'udp-port');
  const udpWanted =
    parsed.values['no-udp'] === true
      ? false
      : parsed.values.udp === true || udpPortText !== undefined
        ? true
        : isLoopbackHost(host)
          ? 'default'
          : false;
  const abs = (p: string | undefined): string | undefined =>
    p === undefined ? undefined : isAbsolute(p) ? p : resolve(io.cwd, p);
  // Loaded here so that the other commands start without the simulator.
  const { serveSimulatedPlc } = await import('./sim-ads.ts');
  return serveSimulatedPlc(
    {
      scenarioDir: abs(scenarioDir),
      config:
        configFile !== undefined && plcId !== undefined
          ? { file: abs(configFile) ?? configFile, plcId }
          : undefined,
      fileRoot: abs(stringOption(parsed, 'file-root')),
      startScenario: parsed.values.stopped !== true,
      host,
      port: parseNumber(stringOption(parsed, 'port'), 'port', 0, 48898),
      netId,
      adsPort: parseNumber(stringOption(parsed, 'ads-port'), 'ads-port', 1, 851),
      maxNotifications: parseNumber(
        stringOption(parsed, 'max-notifications'),
        'max-notifications',
        1,
        defaultMaxNotifications,
        1_000_000,
      ),
      udp:
        udpWanted === false
          ? undefined
          : {
              port: parseNumber(udpPortText, 'udp-port', 0, 48899),
              required: udpWanted === true,
              routePassword: stringOption(parsed, 'route-password'),
            },
    },
    io,
  );
}

export const simAdsCommand: Command = {
  name: 'sim-ads',
  summary: 'Serve a simulated PLC over ADS/AMS TCP',
  help,
  run,
};
