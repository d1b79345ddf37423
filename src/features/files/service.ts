// File use cases over the port: read, atomic write and listing, every path checked first and every transfer
// bounded by Files.MaxBytes in both directions. Uploads and small downloads travel as base64 in JSON; a
// download asked for as application/octet-stream streams the bytes as the client takes them.
import { createHash } from 'node:crypto';
import { AppError } from '../../errors.ts';
import type { FileReader, PlcTarget } from '../../targets/target.ts';
import { checkFilePath } from './file-path.ts';

export interface FileContent {
  path: string;
  size: number;
  contentBase64: string;
}

export interface FileWritten {
  path: string;
  size: number;
}

export interface DirListing {
  dir: string;
  entries: Array<{ name: string; type: 'file' | 'dir'; size: number; modified: string }>;
}

/** The largest base64 text that can carry `maxBytes`. */
export function base64Length(maxBytes: number): number {
  return Math.ceil(maxBytes / 3) * 4;
}

export function tooLarge(what: string, maxBytes: number): AppError {
  return new AppError('PAYLOAD_TOO_LARGE', `${what} is larger than Files.MaxBytes (${maxBytes} bytes).`);
}

/** How a download is answered: the spec's JSON envelope (base64) or the raw bytes. */
export type DownloadForm = 'json' | 'octet-stream';

export interface DownloadLimits {
  /** Files.MaxBytes: no download is larger, in either form. */
  readonly maxBytes: number;
  /** Files.MaxJsonBytes: the largest file answered as JSON. */
  readonly maxJsonBytes: number;
}

/** An opened download: the checked path and the reader to stream or collect (the caller closes it). */
export interface OpenedDownload {
  readonly path: string;
  readonly reader: FileReader;
}

/** Bytes asked of the PLC per read: one ADS file chunk. */
export const downloadChunkBytes = 64 * 1024;

/**
 * Opens a file to download after checking its size: PAYLOAD_TOO_LARGE past Files.MaxBytes, and for the JSON
 * form FILE_TOO_LARGE_FOR_JSON past Files.MaxJsonBytes, so no large file is ever turned into a string.
 */
export async function openDownload(
  target: PlcTarget,
  path: string,
  form: DownloadForm,
  limits: DownloadLimits,
): Promise<OpenedDownload> {
  const name = checkFilePath(path);
  const reader = await target.files.openRead(name);
  const jsonLimit = Math.min(limits.maxJsonBytes, limits.maxBytes);
  try {
    if (reader.size > limits.maxBytes) throw tooLarge(`File '${name}'`, limits.maxBytes);
    if (form === 'json' && reader.size > jsonLimit) {
      throw new AppError(
        'FILE_TOO_LARGE_FOR_JSON',
        `File '${name}' has ${reader.size} bytes, more than Files.MaxJsonBytes (${jsonLimit}) for a JSON ` +
          'answer: ask for it with Accept: application/octet-stream.',
      );
    }
  } catch (err) {
    await reader.close();
    throw err;
  }
  return { path: name, reader };
}

/** The whole of a small opened file as the JSON answer; the reader is closed. */
export async function collectDownload(download: OpenedDownload): Promise<FileContent> {
  const { reader } = download;
  try {
    const parts: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = await reader.read(downloadChunkBytes);
      if (chunk.length === 0) break;
      parts.push(chunk);
      total += chunk.length;
    }
    const content = Buffer.concat(parts, total);
    return { path: download.path, size: content.length, contentBase64: content.toString('base64') };
  } finally {
    await reader.close();
  }
}

export async function writeFile(target: PlcTarget, path: string, content: Buffer): Promise<FileWritten> {
  const name = checkFilePath(path);
  await target.files.write(name, content);
  return { path: name, size: content.length };
}

export async function listDir(target: PlcTarget, dir: string): Promise<DirListing> {
  const name = checkFilePath(dir, true);
  const entries = await target.files.list(name);
  return {
    dir: name,
    entries: entries.map((e) => ({
      name: e.name,
      type: e.type,
      size: e.size,
      modified: e.modified.toISOString(),
    })),
  };
}

/** The bytes of a PUT body: raw bytes as sent, or the `contentBase64` of a JSON body (strict base64). */
export function uploadedBytes(body: unknown, maxBytes: number): Buffer {
  if (Buffer.isBuffer(body)) {
    if (body.length > maxBytes) throw tooLarge('The upload', maxBytes);
    return body;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new AppError(
      'VALIDATION_ERROR',
      'Send the file as application/octet-stream, or as JSON { "contentBase64": "..." }.',
    );
  }
  const extra = Object.keys(body).filter((k) => k !== 'contentBase64');
  const text = (body as { contentBase64?: unknown }).contentBase64;
  if (typeof text !== 'string' || extra.length > 0) {
    throw new AppError('VALIDATION_ERROR', 'The JSON body must be exactly { "contentBase64": "<base64>" }.');
  }
  if (text.length > base64Length(maxBytes)) throw tooLarge('The upload', maxBytes);
  if (text.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(text)) {
    throw new AppError('VALIDATION_ERROR', 'contentBase64 is not valid base64 (RFC 4648, with padding).');
  }
  const bytes = Buffer.from(text, 'base64');
  if (bytes.length > maxBytes) throw tooLarge('The upload', maxBytes);
  return bytes;
}

/** What the audit trail keeps of an upload: its size and digest, never its content. */
export function uploadDigest(content: Buffer): { size: number; sha256: string } {
  return { size: content.length, sha256: createHash('sha256').update(content).digest('hex') };
}
