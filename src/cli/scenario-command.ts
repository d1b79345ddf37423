// `plc-gateway scenario validate DIR`: checks a scenario's machine.yaml and prints every problem, or OK.
import { resolve } from 'node:path';
import { formatProblem, validateScenarioDir } from '../simulator/scenario/index.ts';
import type { Command } from './command.ts';
import { UsageError, writeLine, type CliIo } from './io.ts';
import { formatOptions, helpOption, parseCommandLine } from './options.ts';

const help = `Usage: plc-gateway scenario validate DIR

Validates DIR/machine.yaml (contract gvl-hmi/1) against the built-in schema and prints every problem,
each located by JSON Pointer (for example "/axes/2/limits/vmax: must be > 0"), or OK.
Exit code 0 when the scenario is valid, 1 when it is not.

${formatOptions(helpOption)}`;

async function run(args: readonly string[], io: CliIo): Promise<number> {
  const parsed = parseCommandLine(args, helpOption, help, io, 2);
  if (parsed === undefined) return 0;
  const [action, dir] = parsed.positionals;
  if (action !== 'validate') {
    throw new UsageError(action === undefined ? 'missing action: validate' : `unknown action '${action}'`);
  }
  if (dir === undefined || dir === '') throw new UsageError('missing scenario directory DIR');
  const problems = await validateScenarioDir(resolve(io.cwd, dir));
  if (problems.length === 0) {
    writeLine(io.stdout, 'OK');
    return 0;
  }
  for (const p of problems) writeLine(io.stdout, formatProblem(p));
  return 1;
}

export const scenarioCommand: Command = {
  name: 'scenario',
  summary: 'Validate a scenario directory (scenario validate DIR)',
  help,
  run,
};
