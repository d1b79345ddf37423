// A plant for cluster tests in real processes: `plc-gateway sim-ads` and gateway replicas (`plc-gateway serve`
// pointed at it, sharing one Redis), each a child process that can be SIGKILLed like a crashed host.
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { testSigningKey } from './config.ts';

const cliProcess = resolve('test/helpers/serve-process.ts');

/** One `plc-gateway` command in a child process; `url` is what it reported when listening. */
export class CliProcess {
  private constructor(
    readonly child: ChildProcess,
    readonly url: string,
    readonly output: () => string,
  ) {}

  static async start(args: readonly string[]): Promise<CliProcess> {
    const child = fork(cliProcess, [...args], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    let output = '';
    child.stdout?.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr?.on('data', (c: Buffer) => (output += c.toString()));
    const url = await new Promise<string>((done, fail) => {
      child.on('message', (m: { url?: string }) => {
        if (typeof m.url === 'string') done(m.url);
      });
      child.once('exit', (code) =>
        fail(new Error(`plc-gateway ${args[0]} exited (${String(code)}): ${output}`)),
      );
    });
    return new CliProcess(child, url, () => output);
  }

  /** Resolves with the `times`th line of output (from now on) that `match` accepts. */
  logged(match: (line: string) => boolean, times = 1): Promise<string> {
    return new Promise((done) => {
      let rest = '';
      let seen = 0;
      const onData = (chunk: Buffer): void => {
        const lines = (rest + chunk.toString()).split('\n');
        rest = lines.pop() ?? '';
        const hit = lines.find((line) => match(line) && ++seen === times);
        if (hit === undefined) return;
        this.child.stdout?.off('data', onData);
        done(hit);
      };
      this.child.stdout?.on('data', onData);
    });
  }

  /** Sets the process's clock to `ms` (wall time goes on from there); resolves once it is set. */
  async setClock(ms: number): Promise<void> {
    const set = new Promise<void>((done) => {
      const onMessage = (m: { clockSet?: unknown }): void => {
        if (m.clockSet !== ms) return;
        this.child.off('message', onMessage);
        done();
      };
      this.child.on('message', onMessage);
    });
    this.child.send({ clockAt: ms });
    await set;
  }

  /** SIGKILL: no goodbye to Redis, its entries and lease must expire. */
  async kill(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = once(this.child, 'exit');
    this.child.kill('SIGKILL');
    await exited;
  }

  /** SIGTERM: a graceful stop. */
  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = once(this.child, 'exit');
    this.child.kill('SIGTERM');
    await exited;
  }
}

/** `extra`: more sim-ads options (`--stopped`: the scenario's script does not run; tests write the PLC). */
export async function startSimAds(
  scenario = 'examples/scenarios/small',
  extra: readonly string[] = [],
): Promise<{ process: CliProcess; port: number }> {
  const process = await CliProcess.start([
    'sim-ads',
    '--scenario',
    resolve(scenario),
    '--port',
    '0',
    '--no-udp',
    ...extra,
  ]);
  return { process, port: Number(/:(\d+)$/.exec(process.url)?.[1]) };
}

export interface ReplicaOptions {
  readonly redisUrl: string;
  readonly simPort: number;
  readonly replicaId: string;
  /** 1-based: gives each replica its own AMS NetId (one route per replica on the PLC). */
  readonly index: number;
  readonly settings?: Record<string, unknown>;
}

/** A replica's appsettings.json: one Real PLC `line1` on the simulator, the test signing key, the shared Redis. */
export function replicaSettingsFile(o: ReplicaOptions): string {
  const dir = mkdtempSync(join(tmpdir(), 'plc-gateway-replica-'));
  const file = join(dir, 'appsettings.json');
  const settings = {
    Logging: { Level: 'warn' },
    Auth: { SigningKey: testSigningKey },
    AmsRouter: { NetId: `127.0.0.1.1.${20 + o.index}`, LocalAdsPort: 32750 + o.index },
    PlcTargets: {
      line1: {
        Mode: 'Real',
        AmsNetId: '127.0.0.1.1.1',
        Address: '127.0.0.1',
        TcpPort: o.simPort,
        TimeoutMs: 3000,
      },
    },
    Cluster: { Redis: o.redisUrl, ReplicaId: o.replicaId, HeartbeatSeconds: 1, LeaseSeconds: 2 },
    ...o.settings,
  };
  writeFileSync(file, JSON.stringify(settings, null, 2));
  return file;
}

export async function startReplica(o: ReplicaOptions): Promise<CliProcess> {
  return CliProcess.start([
    'serve',
    '--config',
    replicaSettingsFile(o),
    '--host',
    '127.0.0.1',
    '--port',
    '0',
  ]);
}
