// How a download goes out: the form the client's Accept header asks for, the raw form as a stream that reads the
// file only as fast as the client takes it, and the cap on downloads in progress per user.
import { Readable } from 'node:stream';
import { AppError } from '../../errors.ts';
import type { FileReader } from '../../targets/target.ts';
import { downloadChunkBytes, type DownloadForm } from './service.ts';

const octetStream = 'application/octet-stream';

/**
 * The form the Accept header prefers: octet-stream when it names application/octet-stream with a higher quality
 * than what it grants JSON (application/json, application/* or * / *). Absent, or a tie: JSON, the spec's form.
 */
export function downloadForm(accept: string | undefined): DownloadForm {
  if (accept === undefined) return 'json';
  let octet = 0;
  let json = 0;
  for (const range of accept.split(',')) {
    const [type = '', ...params] = range.split(';').map((p) => p.trim().toLowerCase());
    const q = quality(params);
    if (type === octetStream) octet = Math.max(octet, q);
    if (type === 'application/json' || type === 'application/*' || type === '*/*') json = Math.max(json, q);
  }
  return octet > json ? 'octet-stream' : 'json';
}

function quality(params: readonly string[]): number {
  for (const p of params) {
    const m = /^q=([01](?:\.\d{0,3})?)$/.exec(p);
    if (m) return Number(m[1]);
  }
  return 1;
}

/**
 * The file as a byte stream with backpressure: the next chunk is read from the target only when the response has
 * taken the last one, so a client that stops reading holds at most a chunk or two, and the reader (a PLC file
 * handle) is closed when the stream ends or is destroyed.
 */
export function downloadStream(reader: FileReader): Readable {
  return new Readable({
    highWaterMark: downloadChunkBytes,
    read() {
      reader.read(downloadChunkBytes).then(
        (chunk) => this.push(chunk.length === 0 ? null : chunk),
        (err: unknown) => this.destroy(err instanceof Error ? err : new Error(String(err))),
      );
    },
    destroy(err, callback) {
      reader.close().then(
        () => callback(err),
        () => callback(err),
      );
    },
  });
}

/** `attachment` with the file's own name, ASCII-safe and RFC 6266 `filename*` for the rest. */
export function contentDisposition(path: string): string {
  const name = path.slice(path.lastIndexOf('/') + 1);
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

/** Downloads in progress per user, in this process; a slot is held until the response is closed. */
export class DownloadSlots {
  readonly #max: number;
  readonly #inUse = new Map<string, number>();

  constructor(max: number) {
    this.#max = max;
  }

  /** Takes a slot for `user` (DOWNLOAD_LIMIT when all are taken); the returned function frees it once. */
  acquire(user: string): () => void {
    const held = this.#inUse.get(user) ?? 0;
    if (held >= this.#max) {
      throw new AppError(
        'DOWNLOAD_LIMIT',
        `${held} file downloads of this user are in progress, the most Files.MaxConcurrentDownloadsPerUser ` +
          'allows: wait for one to finish.',
        { 'Retry-After': '1' },
      );
    }
    this.#inUse.set(user, held + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.#inUse.get(user) ?? 1) - 1;
      if (left > 0) this.#inUse.set(user, left);
      else this.#inUse.delete(user);
    };
  }
}
