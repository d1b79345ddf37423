// A throwaway redis-server for cluster tests: a free loopback port, no persistence (as a plant Redis without it
// comes back empty), killed and restarted on the same port at will; optionally with more settings (requirepass,
// ACL users) or TLS only, and paused (SIGSTOP) like a hung host.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { freePort } from '../../bench/servers/free-port.ts';

/** PEM files of the server's certificate and key, and the CA clients are told to trust. */
export interface RedisTls {
  readonly certFile: string;
  readonly keyFile: string;
  readonly caFile: string;
}

export interface RedisServerOptions {
  /** More redis-server options, e.g. `['--requirepass', 'pw']`. */
  readonly args?: readonly string[];
  /** Serve TLS only on the port (no plain port). */
  readonly tls?: RedisTls;
}

export class RedisServer {
  #child: ChildProcess | undefined;
  private constructor(
    readonly port: number,
    readonly options: RedisServerOptions,
  ) {}

  get url(): string {
    return `${this.options.tls === undefined ? 'redis' : 'rediss'}://127.0.0.1:${this.port}`;
  }

  /** The server process's id (to pause it). */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  static async start(options: RedisServerOptions = {}): Promise<RedisServer> {
    const server = new RedisServer(await freePort(), options);
    await server.restart();
    return server;
  }

  /** SIGSTOP: the connections stay open, nothing is answered (a hung host). */
  pause(): void {
    this.#child?.kill('SIGSTOP');
  }

  /** SIGCONT after pause(). */
  resume(): void {
    this.#child?.kill('SIGCONT');
  }

  /** Starts redis-server (again, empty) and resolves when it accepts connections. */
  async restart(): Promise<void> {
    const tls = this.options.tls;
    const child = spawn(
      'redis-server',
      [
        ...(tls === undefined
          ? ['--port', String(this.port)]
          : [
              '--port',
              '0',
              '--tls-port',
              String(this.port),
              '--tls-cert-file',
              tls.certFile,
              '--tls-key-file',
              tls.keyFile,
              '--tls-ca-cert-file',
              tls.caFile,
              '--tls-auth-clients',
              'optional',
            ]),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        '--loglevel',
        'notice',
        ...(this.options.args ?? []),
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    this.#child = child;
    let output = '';
    await new Promise<void>((resolve, reject) => {
      child.stdout?.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('Ready to accept connections')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`redis-server exited (${String(code)}): ${output}`)));
    });
  }

  /** SIGKILL: the data is gone, as after a crash without persistence. */
  async kill(): Promise<void> {
    const child = this.#child;
    this.#child = undefined;
    if (child === undefined || child.exitCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGKILL');
    child.kill('SIGCONT');
    await exited;
  }
}

export { freePort };
