// Loads a scenario directory: reads <dir>/machine.yaml, parses YAML and validates it against the schema.
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { parseDocument } from 'yaml';
import type { ScenarioDefinition } from './schema.ts';
import { formatProblem, type ScenarioProblem } from './problem.ts';
import { validateScenario } from './validate.ts';

const scenarioFileName = 'machine.yaml';
const maxScenarioBytes = 4 * 1024 * 1024;
const maxYamlErrors = 10;

/** A scenario that cannot be used; `problems` lists every reason, each located by JSON Pointer. */
export class ScenarioError extends Error {
  readonly problems: readonly ScenarioProblem[];
  constructor(file: string, problems: readonly ScenarioProblem[]) {
    super(`Invalid scenario ${file}:\n${problems.map((p) => `  - ${formatProblem(p)}`).join('\n')}`);
    this.name = 'ScenarioError';
    this.problems = problems;
  }
}

type ReadOutcome = { ok: true; doc: unknown } | { ok: false; problems: ScenarioProblem[] };

async function readDocument(dir: string): Promise<ReadOutcome> {
  const fail = (message: string): ReadOutcome => ({ ok: false, problems: [{ pointer: '', message }] });
  const info = await stat(dir).catch(() => null);
  if (!info) return fail(`scenario directory ${dir} does not exist`);
  if (!info.isDirectory()) return fail(`scenario path ${dir} is not a directory`);
  const file = join(dir, scenarioFileName);
  const fileInfo = await stat(file).catch(() => null);
  // A FIFO or device would block the read forever; a huge file is no scenario.
  if (fileInfo && !fileInfo.isFile()) return fail(`${scenarioFileName} is not a regular file`);
  if (fileInfo && fileInfo.size > maxScenarioBytes) {
    return fail(`${scenarioFileName} is larger than ${maxScenarioBytes} bytes`);
  }
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return fail(`scenario directory ${dir} has no readable ${scenarioFileName}`);
  }
  if (text.trim() === '') return fail(`${scenarioFileName} is empty`);
  const parsed = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  if (parsed.errors.length > 0) {
    // Very deep nesting yields one error per level: the first few locate the problem.
    const shown = parsed.errors.slice(0, maxYamlErrors).map((e) => {
      const pos = e.linePos?.[0];
      const where = pos ? `line ${pos.line}, column ${pos.col}: ` : '';
      return {
        pointer: '',
        message: `${scenarioFileName} is not valid YAML: ${where}${firstLine(e.message)}`,
      };
    });
    const more = parsed.errors.length - shown.length;
    if (more > 0) shown.push({ pointer: '', message: `${scenarioFileName}: ${more} more YAML errors` });
    return { ok: false, problems: shown };
  }
  let doc: unknown;
  try {
    // The yaml library refuses alias expansion bombs by throwing (maxAliasCount).
    doc = parsed.toJS({ maxAliasCount: 100 });
  } catch (err) {
    return fail(
      `${scenarioFileName} cannot be expanded: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
    return fail(`${scenarioFileName} must be a YAML mapping of scenario keys`);
  }
  return { ok: true, doc };
}

// Pretty messages end their first line with " at line L, column C:", which is reported separately.
const firstLine = (message: string) =>
  (message.split('\n')[0] ?? message).replace(/ at line \d+, column \d+:$/, '');

/** Every problem of the scenario in `dir` (empty when it is valid); for `scenario validate`. */
export async function validateScenarioDir(dir: string): Promise<ScenarioProblem[]> {
  const read = await readDocument(dir);
  if (!read.ok) return read.problems;
  const result = validateScenario(read.doc);
  return result.ok ? [] : result.problems;
}

/** Loads and validates `<dir>/machine.yaml`; throws ScenarioError listing every problem. */
export async function loadScenario(dir: string): Promise<ScenarioDefinition> {
  const read = await readDocument(dir);
  const file = join(dir, scenarioFileName);
  if (!read.ok) throw new ScenarioError(file, read.problems);
  const result = validateScenario(read.doc);
  if (!result.ok) throw new ScenarioError(file, result.problems);
  return result.scenario;
}
