// File services of the system service port (FOPEN, FCLOSE, FREAD, FWRITE, FDELETE, FRENAME, FFILEFIND) over
// the engine's file store. Open files are buffered per client and stored on close.

import type { FileStore } from '../engine/index.ts';
import { isAppError } from '../../errors.ts';
import {
  IndexGroup,
  AdsError,
  AdsErrorCode,
  decodeFileName,
  decodeFileNamePair,
  encodeFindRecord,
  FileOpenMode,
} from '../../plc/ads/index.ts';

const MAX_FILE_BYTES = 64 * 1024 * 1024;

interface OpenFile {
  path: string;
  content: Buffer;
  length: number;
  position: number;
  readable: boolean;
  writable: boolean;
  dirty: boolean;
}

interface FindEntry {
  name: string;
  isDirectory: boolean;
  size: number;
  modified: Date;
}

/** Open files and directory listings in progress of one client. */
export class FileHandleTable {
  readonly open = new Map<number, OpenFile>();
  readonly finds = new Map<number, { entries: FindEntry[]; next: number }>();
  #next = 1;

  constructor(readonly limit: number) {}

  allocate(): number {
    if (this.open.size + this.finds.size >= this.limit) {
      throw new AdsError(AdsErrorCode.NoMemory, `No more than ${this.limit} open files per client`);
    }
    return this.#next++;
  }

  file(handle: number): OpenFile {
    const f = this.open.get(handle);
    if (!f) throw new AdsError(AdsErrorCode.NotFound, `File handle ${handle} is not open`);
    return f;
  }
}

/**
 * TwinCAT clients send Windows paths (`C:\TwinCAT\Boot\x.csv`); the store has relative `/` paths, so
 * the drive and leading separators are dropped and backslashes become slashes.
 */
function toStorePath(name: string): string {
  return name
    .replace(/\\/g, '/')
    .replace(/^[A-Za-z]:/, '')
    .replace(/^\/+/, '')
    .replace(/\/{2,}/g, '/');
}

/**
 * `*` and `?` wildcards, case-insensitive, in O(name x pattern) time: a regular expression with many
 * `.*` backtracks exponentially on a long name, and a client chooses both the pattern and the names.
 */
export function globMatches(glob: string, name: string): boolean {
  const p = glob.toLowerCase();
  const n = name.toLowerCase();
  let pi = 0;
  let ni = 0;
  let star = -1;
  let resume = 0;
  while (ni < n.length) {
    if (pi < p.length && (p[pi] === '?' || p[pi] === n[ni])) {
      pi++;
      ni++;
    } else if (pi < p.length && p[pi] === '*') {
      star = pi++;
      resume = ni;
    } else if (star >= 0) {
      pi = star + 1;
      ni = ++resume;
    } else {
      return false;
    }
  }
  while (p[pi] === '*') pi++;
  return pi === p.length;
}

function u32(value: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(value >>> 0, 0);
  return b;
}

async function storeCall<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (isAppError(err) && err.code === 'FILE_NOT_FOUND')
      throw new AdsError(AdsErrorCode.NotFound, err.message);
    // A store out of room answers as a PLC out of memory does.
    if (isAppError(err) && err.code === 'FILE_QUOTA_EXCEEDED')
      throw new AdsError(AdsErrorCode.NoMemory, err.message);
    if (isAppError(err)) throw new AdsError(AdsErrorCode.InvalidParameter, err.message);
    throw err;
  }
}

export class FileService {
  constructor(private readonly store: FileStore) {}

  handles(ig: number): boolean {
    return (
      ig === IndexGroup.FileOpen ||
      ig === IndexGroup.FileClose ||
      ig === IndexGroup.FileRead ||
      ig === IndexGroup.FileWrite ||
      ig === IndexGroup.FileDelete ||
      ig === IndexGroup.FileRename ||
      ig === IndexGroup.FileFind
    );
  }

  /** One file request; Read, Write and ReadWrite commands all land here with their data and read length. */
  async call(
    ig: number,
    io: number,
    readLength: number,
    data: Buffer,
    session: { readonly files: FileHandleTable },
  ): Promise<Buffer> {
    const table = session.files;
    switch (ig) {
      case IndexGroup.FileOpen:
        return u32(await this.#open(io, decodeFileName(data), table));
      case IndexGroup.FileClose:
        await this.#close(io, table);
        return Buffer.alloc(0);
      case IndexGroup.FileRead: {
        const f = table.file(io);
        if (!f.readable) throw new AdsError(AdsErrorCode.InvalidAccess, 'The file is not open for reading');
        const end = Math.min(f.length, f.position + readLength);
        const out = Buffer.from(f.content.subarray(f.position, end));
        f.position = Math.max(f.position, end);
        return out;
      }
      case IndexGroup.FileWrite:
        this.#write(table.file(io), data);
        return Buffer.alloc(0);
      case IndexGroup.FileDelete:
        await storeCall(() => this.store.remove(toStorePath(decodeFileName(data))));
        return Buffer.alloc(0);
      case IndexGroup.FileRename: {
        const [from, to] = decodeFileNamePair(data);
        await storeCall(() => this.store.rename(toStorePath(from), toStorePath(to)));
        return Buffer.alloc(0);
      }
      case IndexGroup.FileFind:
        return data.length > 0 ? this.#findFirst(decodeFileName(data), table) : this.#findNext(io, table);
      default:
        throw new AdsError(AdsErrorCode.InvalidIndexGroup, `Unknown file service ${ig}`);
    }
  }

  async #open(io: number, name: string, table: FileHandleTable): Promise<number> {
    const mode = io & 0xffff;
    const path = toStorePath(name);
    if (path === '') throw new AdsError(AdsErrorCode.InvalidParameter, 'A file name is required');
    const write = (mode & FileOpenMode.Write) !== 0;
    const append = (mode & FileOpenMode.Append) !== 0;
    const plus = (mode & FileOpenMode.Plus) !== 0;
    const read = (mode & FileOpenMode.Read) !== 0;
    if (!read && !write && !append)
      throw new AdsError(AdsErrorCode.InvalidParameter, `Invalid open mode 0x${mode.toString(16)}`);
    let content: Buffer = Buffer.alloc(0);
    if (read || append) {
      try {
        content = await storeCall(() => this.store.read(path));
      } catch (err) {
        if (read || !(err instanceof AdsError) || err.code !== AdsErrorCode.NotFound) throw err;
      }
    }
    const handle = table.allocate();
    table.open.set(handle, {
      path,
      content: write && !append ? Buffer.alloc(0) : content,
      length: write && !append ? 0 : content.length,
      position: append ? content.length : 0,
      readable: read || plus,
      writable: write || append || plus,
      // "w" creates the file even when nothing is written before closing.
      dirty: write || append,
    });
    return handle;
  }

  #write(f: OpenFile, data: Buffer): void {
    if (!f.writable) throw new AdsError(AdsErrorCode.InvalidAccess, 'The file is not open for writing');
    const end = f.position + data.length;
    if (end > MAX_FILE_BYTES)
      throw new AdsError(AdsErrorCode.NoMemory, `Files are limited to ${MAX_FILE_BYTES} bytes`);
    if (end > f.content.length) {
      const grown = Buffer.alloc(Math.max(end, f.content.length * 2));
      f.content.copy(grown, 0, 0, f.length);
      f.content = grown;
    }
    data.copy(f.content, f.position);
    f.position = end;
    f.length = Math.max(f.length, end);
    f.dirty = true;
  }

  async #close(handle: number, table: FileHandleTable): Promise<void> {
    if (table.finds.delete(handle)) return;
    const f = table.file(handle);
    table.open.delete(handle);
    if (f.dirty) await storeCall(() => this.store.write(f.path, f.content.subarray(0, f.length)));
  }

  async #findFirst(name: string, table: FileHandleTable): Promise<Buffer> {
    const path = toStorePath(name);
    if (path === '') throw new AdsError(AdsErrorCode.InvalidParameter, 'A path or pattern is required');
    const slash = path.lastIndexOf('/');
    const dir = slash < 0 ? '' : path.slice(0, slash);
    const last = slash < 0 ? path : path.slice(slash + 1);
    const listing = await storeCall(() => this.store.list(dir));
    const matches = /[*?]/.test(last)
      ? listing.filter((e) => globMatches(last, e.name))
      : listing.filter((e) => e.name.toLowerCase() === last.toLowerCase());
    const entries = matches.map((e) => ({
      name: e.name,
      isDirectory: e.type === 'dir',
      size: e.size,
      modified: e.modified,
    }));
    if (entries.length === 0) throw new AdsError(AdsErrorCode.NotFound, `Nothing matches '${name}'`);
    const handle = table.allocate();
    table.finds.set(handle, { entries, next: 0 });
    return this.#findNext(handle, table);
  }

  #findNext(handle: number, table: FileHandleTable): Buffer {
    const find = table.finds.get(handle);
    const entry = find?.entries[find.next];
    if (!find || !entry) {
      // The end of a listing is reported as "not found", and ends the listing.
      table.finds.delete(handle);
      throw new AdsError(AdsErrorCode.NotFound, 'No more files');
    }
    find.next++;
    return encodeFindRecord({ handle, ...entry });
  }
}
