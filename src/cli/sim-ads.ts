// The work behind `plc-gateway sim-ads`, loaded only when that command runs: builds the simulated PLC
// (from a scenario or a settings file), serves it over ADS until the signal aborts, then closes it. On SIGHUP it
// reads the scenario or settings file again and applies the program as a download (the symbol version goes up).
import { resolve } from 'node:path';
import { isLoopbackHost } from '../config/listen-url.ts';
import { loadConfig } from '../config/load.ts';
import { ConfigError } from '../config/schema.ts';
import {
  createAdsServer,
  type AdsServer,
  type AdsServerAddress,
  type UdpOptions,
} from '../simulator/ads-server/server.ts';
import { ProgramBuilder, SimulatedPlc, type Program } from '../simulator/engine/index.ts';
import {
  declareScenario,
  type DeclaredScenario,
  etherCatOf,
  formatProblem,
  loadScenario,
  ScenarioError,
} from '../simulator/scenario/index.ts';
import {
  baseProgramBuilder,
  createSimulatedTarget,
  declareBuiltinTypes,
  DiskFileStore,
} from '../targets/simulated/index.ts';
import { UsageError, waitForAbort, writeLine, type CliIo } from './io.ts';

export interface SimAdsOptions {
  /** Absolute scenario folder, or undefined with `config`. */
  scenarioDir: string | undefined;
  config: { file: string; plcId: string } | undefined;
  fileRoot: string | undefined;
  startScenario: boolean;
  host: string;
  port: number;
  netId: string;
  adsPort: number;
  /** Notifications per ADS connection; past it AddNotification answers 1814 as TwinCAT does. */
  maxNotifications: number;
  /** UDP discovery and routes; `required` when asked for explicitly (a taken port is then an error). */
  udp: { port: number; required: boolean; routePassword: string | undefined } | undefined;
}

interface Served {
  plc: SimulatedPlc;
  label: string;
  /** Folder behind the file services; undefined: in memory. */
  fileRoot: string | undefined;
  close(): Promise<void>;
  /**
   * Reads the scenario or settings file again and hands its program to `download`; answers what that answered
   * (the new symbol version). Throws ConfigError for a file with problems: the running program then stays.
   */
  reload(download: (program: Program) => number): Promise<number>;
}

function scenarioProblems(err: unknown): unknown {
  return err instanceof ScenarioError
    ? new ConfigError(err.problems.map((p) => `scenario: ${formatProblem(p)}`))
    : err;
}

/** The same program a Simulated gateway target with this scenario has: built-in types, then the scenario. */
async function scenarioProgram(dir: string): Promise<{
  scenario: Awaited<ReturnType<typeof loadScenario>>;
  declared: DeclaredScenario;
  program: Program;
}> {
  try {
    const scenario = await loadScenario(dir);
    const builder = new ProgramBuilder();
    declareBuiltinTypes(builder);
    const declared = declareScenario(builder, scenario);
    return { scenario, declared, program: builder.build() };
  } catch (err) {
    throw scenarioProblems(err);
  }
}

async function fromScenario(
  dir: string,
  fileRoot: string | undefined,
  start: boolean,
  io: CliIo,
): Promise<Served> {
  const { scenario, declared, program } = await scenarioProgram(dir);
  const ethercat = etherCatOf(scenario);
  const plc = new SimulatedPlc(program, {
    ...(fileRoot ? { files: new DiskFileStore(fileRoot) } : {}),
    ...(ethercat ? { ethercat } : {}),
  });
  const attach = (d: DeclaredScenario) =>
    d.attach(plc, {
      autoStart: start,
      onFault: (e) => writeLine(io.stderr, `plc-gateway sim-ads: the scenario faulted: ${e.message}`),
    });
  let attached = attach(declared);
  return {
    plc,
    label: `scenario ${dir}`,
    fileRoot,
    close: () => {
      attached.close();
      return Promise.resolve();
    },
    reload: async (download) => {
      const next = await scenarioProgram(dir);
      // The old scenario's scan stops before its program goes; the new one runs on the new program.
      attached.close();
      const version = download(next.program);
      attached = attach(next.declared);
      return version;
    },
  };
}

async function fromConfig(
  file: string,
  id: string,
  fileRoot: string | undefined,
  io: CliIo,
): Promise<Served> {
  const config = loadConfig(file, io.env);
  const settings = config.settings.PlcTargets[id];
  if (!settings) throw new UsageError(`${file} has no PlcTargets entry '${id}'`);
  if (settings.Mode !== 'Simulated') throw new UsageError(`PlcTargets.${id} is not a Simulated target`);
  // --file-root (absolute by now) wins over the target's FileRoot, as it does with --scenario.
  const served = fileRoot === undefined ? settings : { ...settings, FileRoot: fileRoot };
  const target = await createSimulatedTarget(id, served, { config });
  const root = served.FileRoot === undefined ? undefined : resolve(config.contentRoot, served.FileRoot);
  return {
    plc: target.plc,
    label: `PLC ${id} of ${file}`,
    fileRoot: root,
    close: () => target.close(),
    reload: async (download) => {
      const fresh = loadConfig(file, io.env).settings.PlcTargets[id];
      if (fresh?.Mode !== 'Simulated')
        throw new UsageError(`${file} has no Simulated PlcTargets entry '${id}'`);
      // InitialValues and the scenario's declarations as the file now says; the running scenario rebinds to them.
      const scenario =
        fresh.Scenario === undefined
          ? undefined
          : await loadScenario(resolve(config.contentRoot, fresh.Scenario)).catch((err: unknown) => {
              throw scenarioProblems(err);
            });
      const builder = baseProgramBuilder(id, fresh, scenario);
      if (scenario) {
        try {
          declareScenario(builder, scenario);
        } catch (err) {
          throw scenarioProblems(err);
        }
      }
      return download(builder.build());
    },
  };
}

/** SIGHUP, the usual "read your configuration again" signal; tests pass their own trigger. */
function onHangUp(listener: () => void): () => void {
  process.on('SIGHUP', listener);
  return () => process.off('SIGHUP', listener);
}

/** Applies a reload and says what came of it; a failed one leaves the running program as it was. */
async function reload(served: Served, server: AdsServer, io: CliIo): Promise<void> {
  const before = served.plc.symbolVersion;
  try {
    const version = await served.reload((program) => server.download(program));
    writeLine(
      io.stdout,
      `Reloaded ${served.label} as a program download: symbol version ${before} -> ${version}.`,
    );
  } catch (err) {
    const problems = err instanceof ConfigError ? err.problems.join('; ') : (err as Error).message;
    writeLine(
      io.stderr,
      `plc-gateway sim-ads: reload failed, still serving symbol version ${before}: ${problems}`,
    );
  }
}

function describeAddress(a: AdsServerAddress, maxNotifications: number): string[] {
  return [
    `ADS server listening on ${a.host}:${a.port}, AMS NetId ${a.netId}, PLC runtime port ${a.adsPort}.`,
    `Notifications per ADS connection: at most ${maxNotifications} (--max-notifications).`,
    a.udpPort === undefined
      ? 'UDP discovery and routes: off (--udp to answer them).'
      : `UDP discovery and routes on ${a.host}:${a.udpPort}; routes added are listed below.`,
    `ads-client: new Client({ routerAddress: '${a.host}', routerTcpPort: ${a.port}, targetAmsNetId: '${a.netId}', targetAdsPort: ${a.adsPort} })`,
  ];
}

/** Serves until `io.signal` aborts; returns the exit code. */
export async function serveSimulatedPlc(o: SimAdsOptions, io: CliIo): Promise<number> {
  const served = o.config
    ? await fromConfig(o.config.file, o.config.plcId, o.fileRoot, io)
    : await fromScenario(o.scenarioDir ?? '', o.fileRoot, o.startScenario, io);
  const start = async (udp: SimAdsOptions['udp']): Promise<[AdsServer, AdsServerAddress]> => {
    const server = createAdsServer({
      plc: served.plc,
      host: o.host,
      port: o.port,
      netId: o.netId,
      adsPort: o.adsPort,
      maxNotificationsPerClient: o.maxNotifications,
      ...(udp ? { udp: udpOptions(udp, io) } : {}),
      onError: (err) => writeLine(io.stderr, `plc-gateway sim-ads: internal error: ${String(err)}`),
    });
    return [server, await server.listen()];
  };
  let server: AdsServer;
  let address: AdsServerAddress;
  try {
    [server, address] = await start(o.udp).catch((err: unknown) => {
      // On by default only: a TwinCAT router or another sim-ads on this machine may hold port 48899.
      if (!o.udp || o.udp.required || (err as NodeJS.ErrnoException).syscall !== 'bind') throw err;
      writeLine(io.stderr, `plc-gateway sim-ads: UDP port ${o.udp.port} is taken; discovery is off.`);
      return start(undefined);
    });
  } catch (err) {
    await served.close();
    writeLine(
      io.stderr,
      `plc-gateway sim-ads: cannot listen on ${o.host}:${o.port}: ${(err as Error).message}`,
    );
    return 1;
  }
  writeLine(io.stdout, `Serving ${served.label}.`);
  writeLine(io.stdout, `Files: ${served.fileRoot ?? 'in memory'}.`);
  for (const line of describeAddress(address, o.maxNotifications)) writeLine(io.stdout, line);
  if (!isLoopbackHost(o.host)) {
    writeLine(
      io.stdout,
      'Warning: ADS has no authentication; anyone who reaches this port can read and write the PLC.',
    );
  }
  io.onListening?.(`tcp://${address.host}:${address.port}`);
  // One reload at a time: a second signal while one is under way waits for it.
  let reloading = Promise.resolve();
  const stopReloads = (io.onReload ?? onHangUp)(() => {
    reloading = reloading.then(() => reload(served, server, io));
  });
  await waitForAbort(io.signal);
  stopReloads();
  await reloading;
  await server.close();
  await served.close();
  return 0;
}

function udpOptions(udp: NonNullable<SimAdsOptions['udp']>, io: CliIo): UdpOptions {
  return {
    port: udp.port,
    ...(udp.routePassword !== undefined ? { routePassword: udp.routePassword } : {}),
    onRoute: (r) =>
      writeLine(io.stdout, `Route added: ${r.name} -> ${r.netId} at ${r.address} (user '${r.userName}').`),
  };
}
