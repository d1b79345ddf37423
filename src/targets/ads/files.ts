// PlcFiles over the system service: reads and writes in chunks (a download reads one FREAD at a time, as the
// client takes it), handles always closed, writes atomic by writing a temporary file and renaming it over the
// target.
import { randomBytes } from 'node:crypto';
import type { Client } from 'ads-client';
import { AppError } from '../../errors.ts';
import { splitFilePath } from '../../plc/index.ts';
import type { FileEntry, FileReader, PlcFiles } from '../target.ts';
import {
  AdsErrorCode,
  AdsPort,
  IndexGroup,
  FIND_RECORD_LENGTH,
  FileOpenMode,
  decodeFindRecord,
  encodeFileName,
  encodeFileNamePair,
  fileOffset,
  type FindRecord,
} from '../../plc/ads/index.ts';
import { adsCodeOf } from './ads-errors.ts';

/** Runs ADS calls on the live connection (PLC_UNAVAILABLE otherwise); `what` names the operation. */
export type RunOnLink = <T>(
  what: string,
  fn: (client: Client, link: LinkFileState) => Promise<T>,
) => Promise<T>;

/** Per-connection knowledge about the PLC's file service. */
export interface LinkFileState {
  /** Unknown until the first atomic write tried FRENAME. */
  renameSupported?: boolean;
}

/** Bytes per FREAD/FWRITE. */
const FILE_CHUNK = 64 * 1024;
const system = { adsPort: AdsPort.SystemService };
const tempPattern = /^\.[0-9a-f]{12}\.tmp$/;

export class AdsFiles implements PlcFiles {
  readonly #run: RunOnLink;
  readonly #maxBytes: number;

  constructor(run: RunOnLink, maxBytes: number) {
    // A path the PLC refuses as a parameter (a name it cannot hold, a link out of its root) is the caller's error.
    this.#run = (what, fn) =>
      run(what, (client, link) =>
        fn(client, link).catch((err: unknown) => {
          if (!isRefusedParameter(err)) throw err;
          throw new AppError(
            'VALIDATION_ERROR',
            `${what}: the PLC refused the path (ADS error ${adsCodeOf(err) ?? 0}).`,
          );
        }),
      );
    this.#maxBytes = maxBytes;
  }

  async read(path: string): Promise<Buffer> {
    const name = splitFilePath(path).join('/');
    return this.#run(`Reading file '${path}'`, async (client) => {
      const handle = await open(client, name, FileOpenMode.Read | FileOpenMode.Binary, path);
      try {
        const parts: Buffer[] = [];
        let total = 0;
        for (;;) {
          const chunk = await client.readRaw(IndexGroup.FileRead, handle, FILE_CHUNK, system);
          parts.push(chunk);
          total += chunk.length;
          if (total > this.#maxBytes) {
            throw new AppError('PAYLOAD_TOO_LARGE', `File '${path}' is larger than ${this.#maxBytes} bytes.`);
          }
          if (chunk.length < FILE_CHUNK) break;
        }
        return Buffer.concat(parts, total);
      } finally {
        await close(client, handle);
      }
    });
  }

  async openRead(path: string): Promise<FileReader> {
    const segments = splitFilePath(path);
    const name = segments.join('/');
    const what = `Reading file '${path}'`;
    const { handle, size, opened } = await this.#run(what, async (client) => {
      const handle = await open(client, name, FileOpenMode.Read | FileOpenMode.Binary, path);
      try {
        // FREAD tells no size: the file's own FFILEFIND record does, so the answer can carry a length.
        const records = await findAll(client, name);
        const last = (segments.at(-1) ?? '').toLowerCase();
        const record = records.find((r) => r.name.toLowerCase() === last) ?? records[0];
        if (!record) throw new AppError('FILE_NOT_FOUND', `File '${path}' not found.`);
        if (record.isDirectory) throw new AppError('VALIDATION_ERROR', `'${path}' is a folder.`);
        return { handle, size: record.size, opened: client };
      } catch (err) {
        await close(client, handle);
        throw err;
      }
    });
    let position = 0;
    let closed = false;
    // A handle belongs to the connection that opened it: after a reconnect the same number may name another file.
    const sameLink = (client: Client): void => {
      if (client !== opened) throw new AppError('PLC_UNAVAILABLE', `${what}: the connection was renewed.`);
    };
    return {
      size,
      read: (max) => {
        const length = Math.min(Math.max(0, max), FILE_CHUNK, size - position);
        if (closed || length <= 0) return Promise.resolve(Buffer.alloc(0));
        return this.#run(what, async (client) => {
          sameLink(client);
          const chunk = await client.readRaw(IndexGroup.FileRead, handle, length, system);
          position += chunk.length;
          // A file that shrank since it was opened ends early.
          if (chunk.length < length) position = size;
          return chunk;
        });
      },
      close: async () => {
        if (closed) return;
        closed = true;
        await this.#run(what, async (client) => {
          if (client === opened) await close(client, handle);
        }).catch(() => undefined);
      },
    };
  }

  async write(path: string, content: Buffer): Promise<void> {
    const segments = splitFilePath(path);
    const name = segments.join('/');
    const temp = [...segments.slice(0, -1), `.${randomBytes(6).toString('hex')}.tmp`].join('/');
    return this.#run(`Writing file '${path}'`, async (client, link) => {
      // Without FRENAME a file can only be overwritten in place, which a failure would leave half written.
      if (link.renameSupported === false) throw noRename(path);
      try {
        await writeWhole(client, temp, content, path);
      } catch (err) {
        // A partly written temporary file must not stay behind on the PLC.
        await remove(client, temp);
        if (adsCodeOf(err) === AdsErrorCode.NoMemory) {
          throw new AppError(
            'FILE_QUOTA_EXCEEDED',
            `The PLC has no room for '${path}' (ADS error ${AdsErrorCode.NoMemory}); nothing was written.`,
          );
        }
        throw err;
      }
      try {
        await rename(client, temp, name);
        link.renameSupported = true;
      } catch (err) {
        if (isUnsupported(err)) {
          link.renameSupported = false;
          await remove(client, temp);
          throw noRename(path);
        }
        if (isRefusedParameter(err)) {
          await remove(client, temp);
          throw err;
        }
        // Some systems refuse to rename over an existing file: replace it, then retry once.
        await remove(client, name);
        try {
          await rename(client, temp, name);
        } catch (again) {
          await remove(client, temp);
          throw again;
        }
      }
    });
  }

  async list(dir: string): Promise<FileEntry[]> {
    const segments = splitFilePath(dir, true);
    const prefix = segments.length ? `${segments.join('/')}/` : '';
    return this.#run(`Listing '${dir}'`, async (client) => {
      let records: FindRecord[];
      try {
        records = await findAll(client, `${prefix}*`);
      } catch (err) {
        // A folder the PLC refuses to look into (a link out of its root) is refused, not looked up as missing.
        if (err instanceof AppError || isRefusedParameter(err)) throw err;
        if (segments.length === 0) {
          if (isNotFound(err)) return [];
          throw err;
        }
        // An empty folder and a missing one answer alike: look the folder itself up to tell them apart.
        const self = await findAll(client, segments.join('/')).catch(() => []);
        const entry = self[0];
        if (!entry) throw new AppError('FILE_NOT_FOUND', `File '${dir}' not found.`);
        if (!entry.isDirectory) throw new AppError('VALIDATION_ERROR', `'${dir}' is not a folder.`);
        if (isNotFound(err)) return [];
        throw err;
      }
      return records
        .filter((r) => r.name !== '.' && r.name !== '..' && !tempPattern.test(r.name))
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
        .map((r) => ({
          name: r.name,
          type: r.isDirectory ? 'dir' : 'file',
          size: r.isDirectory ? 0 : r.size,
          modified: r.modified,
        }));
    });
  }
}

function isNotFound(err: unknown): boolean {
  return adsCodeOf(err) === AdsErrorCode.NotFound;
}

function isRefusedParameter(err: unknown): boolean {
  const code = adsCodeOf(err);
  return code === AdsErrorCode.InvalidData || code === AdsErrorCode.InvalidParameter;
}

/** The PLC does not offer the command at all (no such service, or no such index group). */
function isUnsupported(err: unknown): boolean {
  const code = adsCodeOf(err);
  return code === AdsErrorCode.ServiceNotSupported || code === AdsErrorCode.InvalidIndexGroup;
}

function noFileService(err: unknown): AppError {
  return new AppError(
    'ADS_ERROR',
    `The PLC offers no file service (ADS error ${adsCodeOf(err) ?? 0}): files cannot be read, written or listed on it.`,
  );
}

function noRename(path: string): AppError {
  return new AppError(
    'ADS_ERROR',
    `The PLC's file service cannot rename files (no FRENAME), so '${path}' cannot be replaced atomically; ` +
      'nothing was written.',
  );
}

async function open(client: Client, name: string, mode: number, shown: string): Promise<number> {
  try {
    const data = await client.readWriteRaw(
      IndexGroup.FileOpen,
      fileOffset(mode),
      4,
      encodeFileName(name),
      system,
    );
    return data.readUInt32LE(0);
  } catch (err) {
    if (isNotFound(err)) throw new AppError('FILE_NOT_FOUND', `File '${shown}' not found.`);
    if (isUnsupported(err)) throw noFileService(err);
    throw err;
  }
}

async function close(client: Client, handle: number): Promise<void> {
  await client.readWriteRaw(IndexGroup.FileClose, handle, 0, Buffer.alloc(0), system).catch(() => undefined);
}

async function writeWhole(client: Client, name: string, content: Buffer, shown: string): Promise<void> {
  const handle = await open(
    client,
    name,
    FileOpenMode.Write | FileOpenMode.Binary | FileOpenMode.EnsureDir,
    shown,
  );
  let closed = false;
  try {
    for (let pos = 0; pos < content.length; pos += FILE_CHUNK) {
      await client.readWriteRaw(
        IndexGroup.FileWrite,
        handle,
        0,
        content.subarray(pos, pos + FILE_CHUNK),
        system,
      );
    }
    // Closing is what commits the file: its failure is the write's failure.
    closed = true;
    await client.readWriteRaw(IndexGroup.FileClose, handle, 0, Buffer.alloc(0), system);
  } finally {
    if (!closed) await close(client, handle);
  }
}

async function rename(client: Client, from: string, to: string): Promise<void> {
  await client.readWriteRaw(IndexGroup.FileRename, fileOffset(0), 0, encodeFileNamePair(from, to), system);
}

async function remove(client: Client, name: string): Promise<void> {
  await client
    .readWriteRaw(IndexGroup.FileDelete, fileOffset(0), 0, encodeFileName(name), system)
    .catch(() => undefined);
}

/** Every FFILEFIND record of a pattern; the find handle is closed even when the listing stops early. */
async function findAll(client: Client, pattern: string): Promise<FindRecord[]> {
  const records: FindRecord[] = [];
  const first = decodeFindRecord(
    await client
      .readWriteRaw(IndexGroup.FileFind, fileOffset(0), FIND_RECORD_LENGTH, encodeFileName(pattern), system)
      .catch((err: unknown) => {
        throw isUnsupported(err) ? noFileService(err) : err;
      }),
  );
  if (!first) return records;
  records.push(first);
  const handle = first.handle;
  let finished = false;
  try {
    for (let i = 0; i < 100_000; i++) {
      let data: Buffer;
      try {
        data = await client.readWriteRaw(
          IndexGroup.FileFind,
          handle,
          FIND_RECORD_LENGTH,
          Buffer.alloc(0),
          system,
        );
      } catch (err) {
        if (!isNotFound(err)) throw err;
        finished = true;
        break;
      }
      const next = decodeFindRecord(data);
      if (!next) break;
      records.push(next);
    }
  } finally {
    if (!finished) await close(client, handle);
  }
  return records;
}
