// Declarative command-line options: one table gives both the node:util parseArgs config and the --help text.
import { parseArgs } from 'node:util';
import { UsageError, writeLine, type CliIo } from './io.ts';

interface OptionSpec {
  short?: string;
  /** The option takes a value, shown in help by this placeholder; an option without one is a flag. */
  value?: string;
  description: string;
}

function typeOf(spec: OptionSpec): 'string' | 'boolean' {
  return spec.value === undefined ? 'boolean' : 'string';
}

export type OptionTable = Record<string, OptionSpec>;

export const helpOption: OptionTable = {
  help: { short: 'h', description: 'Show this help and exit' },
};

export interface ParsedArgs {
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
}

/** Parses strictly: unknown options, missing values and stray arguments are usage errors. */
function parseOptions(args: readonly string[], table: OptionTable, maxPositionals = 0): ParsedArgs {
  const options = Object.fromEntries(
    Object.entries(table).map(([name, spec]) => [
      name,
      spec.short === undefined ? { type: typeOf(spec) } : { type: typeOf(spec), short: spec.short },
    ]),
  );
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: [...args], options, strict: true, allowPositionals: true });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  if (parsed.positionals.length > maxPositionals && parsed.values.help !== true) {
    throw new UsageError(`unexpected argument '${parsed.positionals[maxPositionals] ?? ''}'`);
  }
  return {
    values: parsed.values as Record<string, string | boolean | undefined>,
    positionals: parsed.positionals,
  };
}

/** A command's arguments, or undefined once `--help` printed `help` (the command then exits 0). */
export function parseCommandLine(
  args: readonly string[],
  table: OptionTable,
  help: string,
  io: CliIo,
  maxPositionals = 0,
): ParsedArgs | undefined {
  const parsed = parseOptions(args, table, maxPositionals);
  if (parsed.values.help !== true) return parsed;
  writeLine(io.stdout, help);
  return undefined;
}

export function stringOption(parsed: ParsedArgs, name: string): string | undefined {
  const value = parsed.values[name];
  return typeof value === 'string' ? value : undefined;
}

/** The "Options:" block of a help text, aligned. */
export function formatOptions(table: OptionTable): string {
  const rows = Object.entries(table).map(([name, spec]) => {
    const short = spec.short === undefined ? '    ' : `-${spec.short}, `;
    const value = spec.value === undefined ? '' : ` ${spec.value}`;
    return [`  ${short}--${name}${value}`, spec.description] as const;
  });
  const width = Math.max(...rows.map(([left]) => left.length)) + 2;
  return ['Options:', ...rows.map(([left, right]) => `${left.padEnd(width)}${right}`)].join('\n');
}
