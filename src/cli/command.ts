// The shape of one sub-command; the table of them lives in commands.ts.
import type { CliIo } from './io.ts';

export interface Command {
  name: string;
  /** One line for the top-level help. */
  summary: string;
  /** The full text for `plc-gateway <name> --help`. */
  help: string;
  /** Returns the exit code; throws UsageError for command-line mistakes and ConfigError for bad settings. */
  run(args: readonly string[], io: CliIo): Promise<number>;
}
