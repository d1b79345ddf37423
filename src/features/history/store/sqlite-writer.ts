// The main thread's side of the SQLite writer thread: posts each write and resolves it with the answer. A thread
// that dies fails what it held (the history writer retries) and is started again for the next call.
import { extname } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { ValueKind, WriteBatch } from './types.ts';

export type WriterCall =
  | {
      readonly id: number;
      readonly op: 'series';
      readonly args: [plcId: string, symbol: string, kind: ValueKind, typeName: string, settings: string];
    }
  | { readonly id: number; readonly op: 'write'; readonly batch: WriteBatch }
  | { readonly id: number; readonly op: 'deleteBefore'; readonly before: number; readonly limit: number }
  | { readonly id: number; readonly op: 'close' };

export type WriterReply =
  { readonly id: number; readonly result: number } | { readonly id: number; readonly error: string };

type WithoutId<T> = T extends unknown ? Omit<T, 'id'> : never;
type Call = WithoutId<WriterCall>;

/** The worker's file beside this one: .ts when run from source, .js when built. */
const workerUrl = new URL(`./sqlite-worker${extname(new URL(import.meta.url).pathname)}`, import.meta.url);

export class SqliteWriterThread {
  readonly #path: string;
  #worker: Promise<Worker> | undefined;
  #next = 1;
  readonly #pending = new Map<number, { resolve: (n: number) => void; reject: (e: Error) => void }>();

  constructor(path: string) {
    this.#path = path;
  }

  /** Starts the thread (it opens the file) and waits until it is ready. */
  start(): Promise<Worker> {
    this.#worker ??= new Promise<Worker>((resolve, reject) => {
      const worker = workerUrl.pathname.endsWith('.ts')
        ? // Run from source (tests, benches), the thread registers the TypeScript loader before it loads.
          new Worker(
            `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((tsx) => { tsx.register(); ` +
              `return import(${JSON.stringify(workerUrl.href)}); });`,
            { eval: true, workerData: { path: this.#path } },
          )
        : new Worker(workerUrl, { workerData: { path: this.#path } });
      const failed = (err: Error): void => {
        this.#worker = undefined;
        for (const p of this.#pending.values()) p.reject(err);
        this.#pending.clear();
        reject(err);
      };
      worker.once('error', failed);
      worker.once('exit', (code) => failed(new Error(`The history writer thread ended (${code}).`)));
      worker.on('message', (reply: WriterReply) => {
        if (reply.id === 0) {
          // Idle, the thread does not keep the process alive (a store left open would); a call refs it again.
          worker.unref();
          return resolve(worker);
        }
        const pending = this.#pending.get(reply.id);
        this.#pending.delete(reply.id);
        if (this.#pending.size === 0) worker.unref();
        if ('error' in reply) pending?.reject(new Error(reply.error));
        else pending?.resolve(reply.result);
      });
    });
    return this.#worker;
  }

  async call(call: Call): Promise<number> {
    const worker = await this.start();
    const id = this.#next++;
    return new Promise<number>((resolve, reject) => {
      worker.ref();
      this.#pending.set(id, { resolve, reject });
      worker.postMessage({ ...call, id });
    });
  }

  /** Closes the thread's connection and ends the thread. */
  async stop(): Promise<void> {
    if (this.#worker === undefined) return;
    const worker = await this.#worker;
    await this.call({ op: 'close' });
    this.#worker = undefined;
    worker.removeAllListeners('exit');
    await worker.terminate();
  }
}
