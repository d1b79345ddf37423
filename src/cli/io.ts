// What a CLI command may touch of the outside world, passed in so tests can capture output and stop servers.

export interface CliOutput {
  write(text: string): unknown;
}

export interface CliIo {
  stdout: CliOutput;
  stderr: CliOutput;
  env: NodeJS.ProcessEnv;
  /** Relative paths on the command line resolve against this folder. */
  cwd: string;
  /** Long-running commands (serve, sim-ads) stop gracefully when this aborts. */
  signal?: AbortSignal;
  /** Called by serve once it is listening, with the base URL a local client can use. */
  onListening?(url: string): void;
  /** sim-ads: how it hears "reload" (default: SIGHUP); returns a function that stops listening. */
  onReload?(listener: () => void): () => void;
}

/** A mistake on the command line: exit code 2 with a hint to --help. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export function writeLine(out: CliOutput, text = ''): void {
  out.write(`${text}\n`);
}

/** Resolves when a long-running command should stop: once `signal` aborts (never without a signal). */
export function waitForAbort(signal: AbortSignal | undefined): Promise<void> {
  if (signal === undefined) return new Promise(() => undefined);
  if (signal.aborted) return Promise.resolve();
  return new Promise((done) => signal.addEventListener('abort', () => done(), { once: true }));
}
