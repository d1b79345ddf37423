// A file store backed by a real folder (FileRoot): writes go through a temp file and a rename, folders are
// created one at a time once the path up to them is known to stay inside the root, and listings never follow a
// link out of it.
import { randomBytes } from 'node:crypto';
import {
  lstat,
  mkdir,
  open,
  readFile,
  readdir,
  realpath,
  rename,
  rm,
  rmdir,
  stat,
  writeFile,
} from 'node:fs/promises';
import type { Stats } from 'node:fs';
import { dirname, join, relative, isAbsolute } from 'node:path';
import { AppError } from '../../errors.ts';
import type { FileReader } from '../../plc/index.ts';
import { fileNotFound, splitFilePath, type FileEntry, type FileStore } from '../../simulator/engine/index.ts';

export class DiskFileStore implements FileStore {
  readonly root: string;
  readonly #maxBytes: number;

  /**
   * `root` must be absolute (the config loader resolves FileRoot against the content root); a file larger
   * than `maxBytes` is refused with PAYLOAD_TOO_LARGE before it is read into memory.
   */
  constructor(root: string, maxBytes = Number.POSITIVE_INFINITY) {
    this.root = root;
    this.#maxBytes = maxBytes;
  }

  async read(path: string): Promise<Buffer> {
    const full = await this.#existing(path, false);
    try {
      const { size } = await stat(full);
      if (size > this.#maxBytes) {
        throw new AppError('PAYLOAD_TOO_LARGE', `File '${path}' is larger than ${this.#maxBytes} bytes.`);
      }
      return await readFile(full);
    } catch (err) {
      throw mapError(err, path);
    }
  }

  async openRead(path: string): Promise<FileReader> {
    const full = await this.#existing(path, false);
    try {
      const handle = await open(full, 'r');
      try {
        const s = await handle.stat();
        if (s.isDirectory()) throw new AppError('VALIDATION_ERROR', `'${path}' is a folder.`);
        const size = s.size;
        let position = 0;
        let closed = false;
        return {
          size,
          // Never past the size announced: a file growing meanwhile is cut there.
          read: async (max: number) => {
            const length = Math.min(Math.max(0, max), size - position);
            if (closed || length === 0) return Buffer.alloc(0);
            const buffer = Buffer.alloc(length);
            const { bytesRead } = await handle.read(buffer, 0, length, position);
            position += bytesRead;
            return bytesRead === length ? buffer : buffer.subarray(0, bytesRead);
          },
          close: async () => {
            if (closed) return;
            closed = true;
            await handle.close();
          },
        };
      } catch (err) {
        await handle.close();
        throw err;
      }
    } catch (err) {
      throw mapError(err, path);
    }
  }

  async write(path: string, content: Buffer): Promise<void> {
    const segments = splitFilePath(path);
    const full = this.#join(segments);
    const dir = dirname(full);
    try {
      await this.#makeDirs(segments.slice(0, -1), path);
      await this.#checkInside(await realpath(dir), path);
      await this.#refuseOutgoingLink(full, path);
      const temp = join(dir, `.${randomBytes(6).toString('hex')}.tmp`);
      try {
        await writeFile(temp, content);
        await rename(temp, full);
      } catch (err) {
        await rm(temp, { force: true });
        throw err;
      }
    } catch (err) {
      throw mapError(err, path);
    }
  }

  async list(dir: string): Promise<FileEntry[]> {
    const segments = splitFilePath(dir, true);
    if (segments.length === 0) await mkdir(this.root, { recursive: true });
    const full = await this.#existing(dir, true);
    try {
      const names = (await readdir(full)).filter((n) => !/^\.[0-9a-f]{12}\.tmp$/.test(n)).sort();
      const entries: FileEntry[] = [];
      for (const name of names) {
        const s = await this.#statInside(join(full, name));
        if (!s) continue;
        entries.push({
          name,
          type: s.isDirectory() ? 'dir' : 'file',
          size: s.isDirectory() ? 0 : s.size,
          modified: s.mtime,
        });
      }
      return entries;
    } catch (err) {
      throw mapError(err, dir);
    }
  }

  async remove(path: string): Promise<void> {
    const full = await this.#existing(path, false);
    try {
      const s = await stat(full);
      if (s.isDirectory()) await rmdir(full);
      else await rm(full);
    } catch (err) {
      throw mapError(err, path);
    }
  }

  async rename(from: string, to: string): Promise<void> {
    const source = await this.#existing(from, false);
    const target = this.#join(splitFilePath(to));
    try {
      if ((await stat(source)).isDirectory())
        throw new AppError('VALIDATION_ERROR', `'${from}' is a folder.`);
      await this.#makeDirs(splitFilePath(to).slice(0, -1), to);
      await this.#checkInside(await realpath(dirname(target)), to);
      await this.#refuseOutgoingLink(target, to);
      await rename(source, target);
    } catch (err) {
      throw mapError(err, to);
    }
  }

  #join(segments: string[]): string {
    return segments.length ? join(this.root, ...segments) : this.root;
  }

  /**
   * Creates the folders `segments` one by one under the root. Each existing component is checked first (a link
   * must stay inside the root), so no folder is ever made through a link that leads out.
   */
  async #makeDirs(segments: readonly string[], path: string): Promise<void> {
    await mkdir(this.root, { recursive: true });
    let current = this.root;
    for (const segment of segments) {
      current = join(current, segment);
      const s = await lstat(current).catch((err: NodeJS.ErrnoException) => {
        if (err.code === 'ENOENT') return undefined;
        throw err;
      });
      if (s === undefined) {
        await mkdir(current);
        continue;
      }
      if (s.isSymbolicLink()) {
        const real = await realpath(current).catch((err: unknown) => {
          throw mapError(err, path);
        });
        await this.#checkInside(real, path);
        if (!(await stat(real)).isDirectory()) throw notAFolder(segment, path);
      } else if (!s.isDirectory()) throw notAFolder(segment, path);
    }
  }

  /** What a listing shows of an entry: a link is followed only when it stays inside the root; else nothing. */
  async #statInside(full: string): Promise<Stats | undefined> {
    const own = await lstat(full).catch(() => undefined);
    if (!own?.isSymbolicLink()) return own;
    const real = await realpath(full).catch(() => undefined);
    if (real === undefined) return undefined;
    try {
      await this.#checkInside(real, full);
    } catch {
      return undefined;
    }
    return stat(real).catch(() => undefined);
  }

  /** The real path of an existing entry, refused when a link leads it outside the root. */
  async #existing(path: string, allowRoot: boolean): Promise<string> {
    const full = this.#join(splitFilePath(path, allowRoot));
    let real: string;
    try {
      real = await realpath(full);
    } catch (err) {
      throw mapError(err, path);
    }
    await this.#checkInside(real, path);
    return real;
  }

  /** Renaming over a link would replace the link; one that leads out of the root is refused instead. */
  async #refuseOutgoingLink(full: string, path: string): Promise<void> {
    if ((await lstat(full).catch(() => undefined))?.isSymbolicLink()) await this.#existing(path, false);
  }

  async #checkInside(real: string, path: string): Promise<void> {
    const root = await realpath(this.root).catch(() => this.root);
    const rel = relative(root, real);
    if (rel.startsWith('..') || isAbsolute(rel)) {
      throw new AppError('VALIDATION_ERROR', `Invalid file path '${path}': it leaves the file root.`);
    }
  }
}

function notAFolder(segment: string, path: string): AppError {
  return new AppError('VALIDATION_ERROR', `'${segment}' in '${path}' is a file.`);
}

function mapError(err: unknown, path: string): Error {
  if (err instanceof AppError) return err;
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOENT' || code === 'ENOTDIR') return fileNotFound(path);
  if (code === 'EISDIR') return new AppError('VALIDATION_ERROR', `'${path}' is a folder.`);
  if (code === 'EEXIST') return new AppError('VALIDATION_ERROR', `A file is in the way of '${path}'.`);
  if (code === 'ENOTEMPTY') return new AppError('VALIDATION_ERROR', `Folder '${path}' is not empty.`);
  return err instanceof Error ? err : new Error(String(err));
}
