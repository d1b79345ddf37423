// PLC file paths as the gateway and the simulator take them: relative, `/`-separated, never escaping the
// PLC's file root.
import { AppError } from '../errors.ts';

/**
 * Splits a relative path into segments. VALIDATION_ERROR for absolute paths, `.`/`..`, empty segments,
 * backslashes and NUL; '' (the root) only when `allowRoot`.
 */
export function splitFilePath(path: string, allowRoot = false): string[] {
  if (typeof path !== 'string') throw invalid(String(path), 'not a string');
  if (path.includes('\0')) throw invalid(path, 'NUL characters are not allowed');
  if (path.includes('\\')) throw invalid(path, 'backslashes are not allowed');
  if (path.startsWith('/') || /^[A-Za-z]:/.test(path)) throw invalid(path, 'absolute paths are not allowed');
  const trimmed = path.endsWith('/') ? path.slice(0, -1) : path;
  if (trimmed === '') {
    if (allowRoot) return [];
    throw invalid(path, 'a file name is required');
  }
  const segments = trimmed.split('/');
  for (const s of segments) {
    if (s === '..' || s === '.') throw invalid(path, `'${s}' segments are not allowed`);
    if (s === '') throw invalid(path, 'empty path segments are not allowed');
  }
  return segments;
}

function invalid(path: string, why: string): AppError {
  return new AppError('VALIDATION_ERROR', `Invalid file path '${path}': ${why}.`);
}

export function fileNotFound(path: string): AppError {
  return new AppError('FILE_NOT_FOUND', `File '${path}' not found.`);
}
