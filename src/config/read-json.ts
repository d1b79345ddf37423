// Reads a settings file as JSON, turning I/O and syntax failures into one readable sentence each.
import { readFileSync } from 'node:fs';

export type JsonReadResult = { ok: true; value: unknown } | { ok: false; problem: string };

/** Line and column (1-based) of a character offset, for pointing at a syntax error. */
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, Math.max(0, Math.min(offset, text.length)));
  const lines = before.split('\n');
  return { line: lines.length, column: (lines.at(-1)?.length ?? 0) + 1 };
}

/** Rewrites JSON.parse's message so it names a line and column instead of a raw offset. */
export function describeJsonError(text: string, message: string): string {
  const match = /\s*(?:in JSON )?at position (\d+)(?: \(line \d+ column \d+\))?/.exec(message);
  if (match?.[1] !== undefined) {
    const { line, column } = lineAndColumn(text, Number(match[1]));
    return `${message.replace(match[0], '')} at line ${line}, column ${column}`;
  }
  if (/unexpected end of JSON input/i.test(message)) {
    const { line, column } = lineAndColumn(text, text.length);
    return `the JSON ends too early at line ${line}, column ${column}`;
  }
  return message;
}

export function parseJsonText(raw: string): JsonReadResult {
  // A UTF-8 byte order mark is common in files saved by Windows editors.
  const text = raw.replace(/^\uFEFF/, '');
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (err) {
    return { ok: false, problem: `not valid JSON: ${describeJsonError(text, (err as Error).message)}` };
  }
}

export function readJsonFile(file: string): JsonReadResult {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const reason =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EACCES'
          ? 'permission denied'
          : code === 'EISDIR'
            ? 'it is a directory'
            : (err as Error).message;
    return { ok: false, problem: `cannot read ${file}: ${reason}` };
  }
  const parsed = parseJsonText(text);
  return parsed.ok ? parsed : { ok: false, problem: `${file} is ${parsed.problem}` };
}
