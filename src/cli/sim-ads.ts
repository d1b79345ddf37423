// The work behind `plc-gateway sim-ads`, loaded only when that command runs: builds the simulated PLC
// (from a scenario or a settings file), serves it over ADS until the signal aborts, then closes it.
import { resolve } from 'node:path';
import { loadConfig } from '../config/load.ts';
import { ConfigError } from '../config/schema.ts';
import { createAdsServer, type AdsServerAddress } from '../simulator/ads-server/server.ts';
import { ProgramBuilder, SimulatedPlc } from '../simulator/engine/index.ts';
import { declareScenario, formatProblem, loadScenario, ScenarioError } from '../simulator/scenario/index.ts';
import { createSimulatedTarget, declareBuiltinTypes, DiskFileStore } from '../targets/simulated/index.ts';
import { UsageError, writeLine, type CliIo } from './io.ts';

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
}

function waitForAbort(signal: AbortSignal | undefined): Promise<void> {
  if (signal === undefined) return new Promise(() => undefined);
  if (signal.aborted) return Promise.resolve();
  return new Promise((done) => signal.addEventListener('abort', () => done(), { once: true }));
}

interface Served {
  plc: SimulatedPlc;
  label: string;
  /** Folder behind the file services; undefined: in memory. */
  fileRoot: string | undefined;
  close(): Promise<void>;
}

async function fromScenario(
  dir: string,
  fileRoot: string | undefined,
  start: boolean,
  io: CliIo,
): Promise<Served> {
  let scenario;
  try {
    scenario = await loadScenario(dir);
  } catch (err) {
    if (err instanceof ScenarioError)
      throw new ConfigError(err.problems.map((p) => `scenario: ${formatProblem(p)}`));
    throw err;
  }
  // The same program a Simulated gateway target with this scenario has: built-in types, then the scenario.
  const builder = new ProgramBuilder();
  declareBuiltinTypes(builder);
  const declared = declareScenario(builder, scenario);
  const plc = new SimulatedPlc(builder.build(), fileRoot ? { files: new DiskFileStore(fileRoot) } : {});
  const attached = declared.attach(plc, {
    autoStart: start,
    onFault: (e) => writeLine(io.stderr, `plc-gateway sim-ads: the scenario faulted: ${e.message}`),
  });
  return {
    plc,
    label: `scenario ${dir}`,
    fileRoot,
    close: () => {
      attached.close();
      return Promise.resolve();
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
  return { plc: target.plc, label: `PLC ${id} of ${file}`, fileRoot: root, close: () => target.close() };
}

function describeAddress(a: AdsServerAddress): string[] {
  return [
    `ADS server listening on ${a.host}:${a.port}, AMS NetId ${a.netId}, PLC runtime port ${a.adsPort}.`,
    `ads-client: new Client({ routerAddress: '${a.host}', routerTcpPort: ${a.port}, targetAmsNetId: '${a.netId}', targetAdsPort: ${a.adsPort} })`,
  ];
}

/** Serves until `io.signal` aborts; returns the exit code. */
export async function serveSimulatedPlc(o: SimAdsOptions, io: CliIo): Promise<number> {
  const served = o.config
    ? await fromConfig(o.config.file, o.config.plcId, o.fileRoot, io)
    : await fromScenario(o.scenarioDir ?? '', o.fileRoot, o.startScenario, io);
  const server = createAdsServer({
    plc: served.plc,
    host: o.host,
    port: o.port,
    netId: o.netId,
    adsPort: o.adsPort,
    onError: (err) => writeLine(io.stderr, `plc-gateway sim-ads: internal error: ${String(err)}`),
  });
  let address: AdsServerAddress;
  try {
    address = await server.listen();
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
  for (const line of describeAddress(address)) writeLine(io.stdout, line);
  if (!/^(127\.|::1$|localhost$)/.test(o.host)) {
    writeLine(
      io.stdout,
      'Warning: ADS has no authentication; anyone who reaches this port can read and write the PLC.',
    );
  }
  io.onListening?.(`tcp://${address.host}:${address.port}`);
  await waitForAbort(io.signal);
  await server.close();
  await served.close();
  return 0;
}
