// The CLI dispatcher: picks the sub-command, maps failures to exit codes (0 ok, 1 failure, 2 usage).
import { readFileSync } from 'node:fs';
import { ConfigError } from '../config/schema.ts';
import type { Command } from './command.ts';
import { commands, defaultCommand } from './commands.ts';
import { UsageError, writeLine, type CliIo } from './io.ts';

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version?: string;
  };
  return pkg.version ?? 'unknown';
}

function topLevelHelp(): string {
  const width = Math.max(...commands.map((c) => c.name.length)) + 2;
  return [
    'Usage: plc-gateway [command] [options]',
    '',
    'HTTP gateway in front of Beckhoff TwinCAT PLCs (ADS), with scenario-backed simulated PLCs.',
    '',
    'Commands:',
    ...commands.map((c) => `  ${c.name.padEnd(width)}${c.summary}`),
    '',
    `Without a command, ${defaultCommand.name} runs. Global options: -h, --help; -v, --version.`,
    "Run 'plc-gateway <command> --help' for a command's options.",
  ].join('\n');
}

function pick(argv: readonly string[]): { command: Command; args: readonly string[] } | undefined {
  const first = argv[0];
  if (first === undefined || first.startsWith('-')) return { command: defaultCommand, args: argv };
  const command = commands.find((c) => c.name === first);
  return command ? { command, args: argv.slice(1) } : undefined;
}

function defaultIo(): CliIo {
  return { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd() };
}

/** Runs the CLI with `argv` (without node and script) and returns the exit code; never exits the process. */
export async function runCli(argv: readonly string[], io: Partial<CliIo> = {}): Promise<number> {
  const fullIo: CliIo = { ...defaultIo(), ...io };
  const first = argv[0];
  if (first === '--help' || first === '-h' || first === 'help') {
    writeLine(fullIo.stdout, topLevelHelp());
    return 0;
  }
  if (first === '--version' || first === '-v') {
    writeLine(fullIo.stdout, version());
    return 0;
  }
  const picked = pick(argv);
  if (!picked) {
    writeLine(fullIo.stderr, `plc-gateway: unknown command '${first ?? ''}'`);
    writeLine(fullIo.stderr, "Run 'plc-gateway --help' for the list of commands.");
    return 2;
  }
  const { command, args } = picked;
  try {
    return await command.run(args, fullIo);
  } catch (err) {
    if (err instanceof UsageError) {
      writeLine(fullIo.stderr, `plc-gateway ${command.name}: ${err.message}`);
      writeLine(fullIo.stderr, `Run 'plc-gateway ${command.name} --help' for usage.`);
      return 2;
    }
    if (err instanceof ConfigError) {
      writeLine(fullIo.stderr, `plc-gateway ${command.name}: invalid configuration:`);
      for (const problem of err.problems) writeLine(fullIo.stderr, `  - ${problem}`);
      return 1;
    }
    writeLine(
      fullIo.stderr,
      `plc-gateway ${command.name}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`,
    );
    return 1;
  }
}
