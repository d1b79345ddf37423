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
  /** Long-running commands (serve) stop gracefully when this aborts. */
  signal?: AbortSignal;
  /** Called by serve once it is listening, with the base URL a local client can use. */
  onListening?(url: string): void;
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
