// A throwaway PostgreSQL for history tests: Debian's server binaries, a temporary data folder, a free loopback
// port; stopped and started again on the same data at will (the store down and back). PostgreSQL refuses to run
// as root, so under root it runs as the `postgres` user.
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.ts';

function binDir(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  const found = versions.map((v) => join(root, v, 'bin')).find((d) => existsSync(join(d, 'initdb')));
  if (found === undefined)
    throw new Error('PostgreSQL server binaries not found (apt-get install postgresql)');
  return found;
}

function runAs(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
  return { uid, gid };
}

export class PostgresServer {
  #child: ChildProcess | undefined;
  readonly #bin: string;
  readonly #dir: string;
  readonly #user: { uid: number; gid: number } | undefined;

  private constructor(
    readonly port: number,
    bin: string,
    dir: string,
    user: { uid: number; gid: number } | undefined,
  ) {
    this.#bin = bin;
    this.#dir = dir;
    this.#user = user;
  }

  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  static async start(): Promise<PostgresServer> {
    const bin = binDir();
    const user = runAs();
    const dir = mkdtempSync(join(tmpdir(), 'pg-history-'));
    const data = join(dir, 'data');
    const sockets = join(dir, 'sockets');
    mkdirSync(sockets);
    if (user) {
      chownSync(dir, user.uid, user.gid);
      chownSync(sockets, user.uid, user.gid);
    }
    execFileSync(
      join(bin, 'initdb'),
      ['-D', data, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8'],
      {
        stdio: 'ignore',
        ...(user ?? {}),
      },
    );
    const server = new PostgresServer(await freePort(), bin, dir, user);
    await server.restart();
    return server;
  }

  /** Starts the server on its data folder and resolves when it accepts connections. */
  async restart(): Promise<void> {
    const child = spawn(
      join(this.#bin, 'postgres'),
      [
        '-D',
        join(this.#dir, 'data'),
        '-p',
        String(this.port),
        '-h',
        '127.0.0.1',
        '-k',
        join(this.#dir, 'sockets'),
        '-F',
      ],
      { stdio: ['ignore', 'ignore', 'pipe'], ...(this.#user ?? {}) },
    );
    this.#child = child;
    let output = '';
    await new Promise<void>((resolve, reject) => {
      child.stderr?.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('database system is ready to accept connections')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`postgres exited (${String(code)}): ${output}`)));
    });
  }

  /** Fast shutdown (SIGINT): clients are disconnected, the data stays. */
  async stop(): Promise<void> {
    const child = this.#child;
    this.#child = undefined;
    if (child === undefined || child.exitCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGINT');
    await exited;
  }

  /** Stops the server and removes its data folder. */
  async close(): Promise<void> {
    await this.stop();
    rmSync(this.#dir, { recursive: true, force: true });
  }
}
