// File paths as callers may name them: relative to the target's file root, `/`-separated, and portable to the
// Windows file system of a TwinCAT PLC. Checked before any PLC is asked, so a refused path touches nothing.
import { AppError } from '../../errors.ts';

/** Longest path accepted (Windows MAX_PATH less the file root's own share). */
export const maxPathLength = 240;

// Device names Windows opens instead of a file. Windows ignores what follows the first dot and trailing dots and
// spaces before it, so `nul.txt`, `CON .log` and `Com1..` are the device too.
const reservedName = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³]|conin\$|conout\$|clock\$)$/i;
// Control characters (NUL included), the C1 range, and what Windows refuses or reads as wildcards or streams.
// eslint-disable-next-line no-control-regex
const forbiddenCharacter = /[\u0000-\u001f\u007f-\u009f<>:"|?*]/;
// eslint-disable-next-line no-control-regex
const controlCharacters = /[\u0000-\u001f\u007f-\u009f]/g;

/**
 * The path in canonical form ('' is the root when `allowRoot`): VALIDATION_ERROR for `..` or `.` segments,
 * absolute paths, drive letters, backslashes, NUL and other control or reserved characters, characters a
 * Windows-1252 file name cannot hold and names ending in a dot or a space; RESERVED_FILE_NAME for a Windows
 * device name (CON, NUL, COM1, CONIN$, …) in any segment, with any extension, case or trailing dots and spaces.
 */
export function checkFilePath(path: string, allowRoot = false): string {
  const refuse = (why: string): never => {
    throw new AppError('VALIDATION_ERROR', `Invalid file path '${printable(path)}': ${why}.`);
  };
  if (path.length > maxPathLength) refuse(`longer than ${maxPathLength} characters`);
  if (path.includes('\\')) refuse('backslashes are not allowed');
  if (path.startsWith('/') || /^[A-Za-z]:/.test(path)) refuse('absolute paths are not allowed');
  const bad = forbiddenCharacter.exec(path);
  if (bad) refuse(`the character ${JSON.stringify(bad[0])} is not allowed`);
  if ([...path].some((c) => c.charCodeAt(0) > 0xff)) refuse('only Latin-1 characters are allowed');
  const trimmed = path.endsWith('/') && allowRoot ? path.slice(0, -1) : path;
  if (trimmed === '') {
    if (allowRoot) return '';
    refuse('a file name is required');
  }
  for (const segment of trimmed.split('/')) {
    if (segment === '..' || segment === '.') refuse(`'${segment}' segments are not allowed`);
    if (segment === '') refuse('empty path segments are not allowed');
    const base = segment.split('.')[0]!.replace(/[ ]+$/, '');
    if (reservedName.test(base)) {
      throw new AppError(
        'RESERVED_FILE_NAME',
        `Invalid file path '${printable(path)}': '${printable(segment)}' is the Windows device ${base.toUpperCase()}.`,
      );
    }
    if (/[. ]$/.test(segment)) refuse('a name must not end in a dot or a space');
  }
  return trimmed;
}

/** The path with control characters escaped, safe to echo in a message. */
function printable(path: string): string {
  const escaped = path.replace(
    controlCharacters,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  return escaped.length > 80 ? `${escaped.slice(0, 79)}…` : escaped;
}
