// A throwaway mosquitto broker for MQTT tests: a free loopback port, a config file in a temp folder (anonymous, a
// password file, or TLS with a test CA made by openssl), stopped and started again on the same port at will.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.ts';

export const mosquittoBin = '/usr/sbin/mosquitto';

export interface BrokerOptions {
  /** user -> password; without it anonymous clients are allowed. */
  users?: Record<string, string>;
  /** Serve TLS (mqtts) with a server certificate signed by a test CA (`caFile`). */
  tls?: boolean;
}

export class Mosquitto {
  #child: ChildProcess | undefined;
  readonly #logListeners = new Set<(text: string) => void>();
  private constructor(
    readonly port: number,
    readonly dir: string,
    readonly tls: boolean,
  ) {}

  get url(): string {
    return `${this.tls ? 'mqtts' : 'mqtt'}://127.0.0.1:${this.port}`;
  }

  /** The test CA's certificate (tls only). */
  get caFile(): string {
    return join(this.dir, 'ca.crt');
  }

  static async start(options: BrokerOptions = {}): Promise<Mosquitto> {
    const dir = mkdtempSync(join(tmpdir(), 'mosquitto-'));
    const broker = new Mosquitto(await freePort(), dir, options.tls === true);
    const lines = [
      `listener ${broker.port} 127.0.0.1`,
      'persistence false',
      'log_dest stderr',
      'log_type error',
      'log_type information',
      // Each connection attempt and refusal: tests wait on them.
      'log_type notice',
    ];
    if (options.users) {
      const file = join(dir, 'passwd');
      writeFileSync(file, '');
      for (const [user, password] of Object.entries(options.users)) {
        execFileSync('mosquitto_passwd', ['-b', file, user, password]);
      }
      lines.push('allow_anonymous false', `password_file ${file}`);
    } else lines.push('allow_anonymous true');
    if (options.tls) {
      makeCertificates(dir);
      lines.push(
        `cafile ${join(dir, 'ca.crt')}`,
        `certfile ${join(dir, 'server.crt')}`,
        `keyfile ${join(dir, 'server.key')}`,
      );
    }
    writeFileSync(join(dir, 'mosquitto.conf'), lines.join('\n') + '\n');
    // Started as root, mosquitto drops to its own user, which must still read the folder (test keys only).
    chmodSync(dir, 0o755);
    for (const f of readdirSync(dir)) chmodSync(join(dir, f), 0o644);
    await broker.restart();
    return broker;
  }

  /** Calls `listener` with the broker's log output as it comes (connection attempts, refusals); returns the undo. */
  onLog(listener: (text: string) => void): () => void {
    this.#logListeners.add(listener);
    return () => void this.#logListeners.delete(listener);
  }

  get running(): boolean {
    return this.#child !== undefined;
  }

  /** Starts mosquitto (again) and resolves once it accepts connections. */
  async restart(): Promise<void> {
    const child = spawn(mosquittoBin, ['-c', join(this.dir, 'mosquitto.conf')], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    this.#child = child;
    let output = '';
    await new Promise<void>((resolve, reject) => {
      child.stderr?.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        for (const listener of this.#logListeners) listener(chunk.toString());
        // Logged once the listeners are open.
        if (/ running$/m.test(output)) resolve();
      });
      child.once('exit', (code) => reject(new Error(`mosquitto exited (${String(code)}): ${output}`)));
    });
  }

  /** SIGKILL: clients see the connection drop (wills are not sent by a dead broker). */
  async stop(): Promise<void> {
    const child = this.#child;
    this.#child = undefined;
    if (child === undefined || child.exitCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGKILL');
    await exited;
  }

  async close(): Promise<void> {
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

function makeCertificates(dir: string): void {
  const run = (args: string[]): void => void execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
  run(
    ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', '/CN=Test CA'].concat([
      '-keyout',
      'ca.key',
      '-out',
      'ca.crt',
    ]),
  );
  run([
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-subj',
    '/CN=127.0.0.1',
    '-keyout',
    'server.key',
    '-out',
    'server.csr',
  ]);
  writeFileSync(join(dir, 'san.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  run(
    [
      'x509',
      '-req',
      '-in',
      'server.csr',
      '-CA',
      'ca.crt',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-days',
      '2',
    ].concat(['-extfile', 'san.ext', '-out', 'server.crt']),
  );
}
