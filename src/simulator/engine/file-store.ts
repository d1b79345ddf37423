// The simulated PLC's file store: the interface every store implements, and an in-memory store with quotas.
import { AppError } from '../../errors.ts';
import { fileNotFound, splitFilePath } from '../../plc/index.ts';
import type { FileEntry, FileReader } from '../../plc/index.ts';

/** File services of a simulated PLC; paths are relative, `/`-separated. */
export interface FileStore {
  read(path: string): Promise<Buffer>;
  /** Opens a file to read it in chunks; FILE_NOT_FOUND when there is none. */
  openRead(path: string): Promise<FileReader>;
  /** Atomic replace; missing parent folders are created. */
  write(path: string, content: Buffer): Promise<void>;
  /** Entries of a folder ('' = the root), sorted by name. */
  list(dir: string): Promise<FileEntry[]>;
  /** Deletes a file or an empty folder. */
  remove(path: string): Promise<void>;
  /** Moves a file, atomically replacing a file at `to`; missing parent folders of `to` are created. */
  rename(from: string, to: string): Promise<void>;
}

interface FileNode {
  kind: 'file';
  content: Buffer;
  modified: number;
}
interface DirNode {
  kind: 'dir';
  children: Map<string, FileNode | DirNode>;
  modified: number;
}

/** What an in-memory store may hold: every byte of it is the gateway's own memory. */
export interface FileQuota {
  /** Bytes of all files together. */
  readonly maxTotalBytes: number;
  /** Files and folders together (each folder costs memory too, and a path may create many). */
  readonly maxFileCount: number;
}

export const defaultFileQuota: FileQuota = { maxTotalBytes: 64 * 1024 * 1024, maxFileCount: 1000 };

/**
 * Files and folders in memory; content is copied in and out so callers cannot alias it. A write or rename that
 * would take the store past its quota is refused with FILE_QUOTA_EXCEEDED before anything changes.
 */
export class MemoryFileStore implements FileStore {
  readonly #root: DirNode;
  readonly #clock: () => number;
  readonly #quota: FileQuota;
  #totalBytes = 0;
  #count = 0;

  constructor(clock: () => number = Date.now, quota: FileQuota = defaultFileQuota) {
    this.#clock = clock;
    this.#quota = quota;
    this.#root = { kind: 'dir', children: new Map(), modified: clock() };
  }

  /** Bytes and entries (files and folders) held now. */
  get usage(): { totalBytes: number; count: number } {
    return { totalBytes: this.#totalBytes, count: this.#count };
  }

  openRead(path: string): Promise<FileReader> {
    return settle(() => {
      const node = this.#find(splitFilePath(path));
      if (!node || node.kind !== 'file') throw fileNotFound(path);
      // A write replaces the node and never changes a buffer in place: the reader keeps the content it opened.
      const content = node.content;
      let position = 0;
      return {
        size: content.length,
        read: (max: number) => {
          const end = Math.min(content.length, position + Math.max(0, max));
          const chunk = Buffer.from(content.subarray(position, end));
          position = end;
          return Promise.resolve(chunk);
        },
        close: () => Promise.resolve(),
      };
    });
  }

  read(path: string): Promise<Buffer> {
    return settle(() => {
      const node = this.#find(splitFilePath(path));
      if (!node || node.kind !== 'file') throw fileNotFound(path);
      return Buffer.from(node.content);
    });
  }

  write(path: string, content: Buffer): Promise<void> {
    return settle(() => {
      const segments = splitFilePath(path);
      const name = segments.pop() ?? '';
      // Checked before the first folder is created: a refused write leaves nothing behind.
      const { missing, dir: existing } = this.#walk(segments, path);
      const old = existing?.children.get(name);
      if (old?.kind === 'dir') throw new AppError('VALIDATION_ERROR', `'${path}' is a folder.`);
      const oldSize = old?.kind === 'file' ? old.content.length : 0;
      this.#admit(path, missing + (old ? 0 : 1), content.length - oldSize);
      const dir = this.#ensureDir(segments, path);
      const now = this.#clock();
      // One map assignment: a reader sees the old node or the new one, never a mix.
      dir.children.set(name, { kind: 'file', content: Buffer.from(content), modified: now });
      if (!old) this.#count += 1;
      this.#totalBytes += content.length - oldSize;
      dir.modified = now;
    });
  }

  list(dir: string): Promise<FileEntry[]> {
    return settle(() => {
      const node = this.#find(splitFilePath(dir, true));
      if (!node) throw fileNotFound(dir);
      if (node.kind !== 'dir') throw new AppError('VALIDATION_ERROR', `'${dir}' is not a folder.`);
      return [...node.children.entries()]
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([name, n]) => ({
          name,
          type: n.kind,
          size: n.kind === 'file' ? n.content.length : 0,
          modified: new Date(n.modified),
        }));
    });
  }

  remove(path: string): Promise<void> {
    return settle(() => {
      const { parent, name, node } = this.#entry(path);
      if (node.kind === 'dir' && node.children.size > 0) {
        throw new AppError('VALIDATION_ERROR', `Folder '${path}' is not empty.`);
      }
      parent.children.delete(name);
      this.#count -= 1;
      if (node.kind === 'file') this.#totalBytes -= node.content.length;
      parent.modified = this.#clock();
    });
  }

  rename(from: string, to: string): Promise<void> {
    return settle(() => {
      const { parent: sourceParent, name: sourceName, node } = this.#entry(from);
      if (node.kind !== 'file') throw new AppError('VALIDATION_ERROR', `'${from}' is a folder.`);
      const target = splitFilePath(to);
      const targetName = target.pop() ?? '';
      const { missing, dir: existing } = this.#walk(target, to);
      const replaced = existing?.children.get(targetName);
      if (replaced?.kind === 'dir') throw new AppError('VALIDATION_ERROR', `'${to}' is a folder.`);
      // New folders on the way count; the file moves, and a file it replaces frees its entry and bytes.
      this.#admit(to, missing, 0);
      const targetParent = this.#ensureDir(target, to);
      const now = this.#clock();
      // Set before delete: a reader sees the old file at `to` or the new one, never nothing.
      targetParent.children.set(targetName, node);
      if (sourceParent !== targetParent || sourceName !== targetName) {
        sourceParent.children.delete(sourceName);
        if (replaced?.kind === 'file') {
          this.#count -= 1;
          this.#totalBytes -= replaced.content.length;
        }
      }
      sourceParent.modified = now;
      targetParent.modified = now;
    });
  }

  /**
   * How many folders of `segments` are missing, and the deepest one when none is (VALIDATION_ERROR when a file
   * is in the way). Changes nothing.
   */
  #walk(segments: readonly string[], path: string): { missing: number; dir: DirNode | undefined } {
    let dir: DirNode = this.#root;
    for (const [i, s] of segments.entries()) {
      const next = dir.children.get(s);
      if (!next) return { missing: segments.length - i, dir: undefined };
      if (next.kind !== 'dir') throw new AppError('VALIDATION_ERROR', `'${s}' in '${path}' is a file.`);
      dir = next;
    }
    return { missing: 0, dir };
  }

  /** FILE_QUOTA_EXCEEDED when `entries` more entries and `bytes` more bytes would not fit. */
  #admit(path: string, entries: number, bytes: number): void {
    const { maxFileCount, maxTotalBytes } = this.#quota;
    if (this.#count + entries > maxFileCount) {
      throw new AppError(
        'FILE_QUOTA_EXCEEDED',
        `Writing '${path}' would take the PLC's file store past ${maxFileCount} files and folders ` +
          `(Files.MaxFileCount; ${this.#count} in use); nothing was written.`,
      );
    }
    if (this.#totalBytes + bytes > maxTotalBytes) {
      throw new AppError(
        'FILE_QUOTA_EXCEEDED',
        `Writing '${path}' would take the PLC's file store past ${maxTotalBytes} bytes ` +
          `(Files.MaxTotalBytes; ${this.#totalBytes} in use); nothing was written.`,
      );
    }
  }

  /** The folder at `segments`, created with its parents where missing. */
  #ensureDir(segments: readonly string[], path: string): DirNode {
    let dir = this.#root;
    for (const s of segments) {
      let next = dir.children.get(s);
      if (!next) {
        next = { kind: 'dir', children: new Map(), modified: this.#clock() };
        dir.children.set(s, next);
        dir.modified = next.modified;
        this.#count += 1;
      }
      if (next.kind !== 'dir') throw new AppError('VALIDATION_ERROR', `'${s}' in '${path}' is a file.`);
      dir = next;
    }
    return dir;
  }

  /** The file or folder at `path` with the folder holding it; FILE_NOT_FOUND when there is none. */
  #entry(path: string): { parent: DirNode; name: string; node: FileNode | DirNode } {
    const segments = splitFilePath(path);
    const name = segments.pop() ?? '';
    const parent = this.#find(segments);
    const node = parent?.kind === 'dir' ? parent.children.get(name) : undefined;
    if (!parent || parent.kind !== 'dir' || !node) throw fileNotFound(path);
    return { parent, name, node };
  }

  #find(segments: readonly string[]): FileNode | DirNode | undefined {
    let node: FileNode | DirNode = this.#root;
    for (const s of segments) {
      if (node.kind !== 'dir') return undefined;
      const next: FileNode | DirNode | undefined = node.children.get(s);
      if (!next) return undefined;
      node = next;
    }
    return node;
  }
}

function settle<T>(fn: () => T): Promise<T> {
  try {
    return Promise.resolve(fn());
  } catch (err) {
    return Promise.reject(err instanceof Error ? err : new Error(String(err)));
  }
}
