// The simulated PLC's file store: the interface every store implements, and an in-memory store.
import { AppError } from '../../errors.ts';
import { fileNotFound, splitFilePath } from '../../plc/index.ts';
import type { FileEntry } from '../../plc/index.ts';

/** File services of a simulated PLC; paths are relative, `/`-separated. */
export interface FileStore {
  read(path: string): Promise<Buffer>;
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

/** Files and folders in memory; content is copied in and out so callers cannot alias it. */
export class MemoryFileStore implements FileStore {
  readonly #root: DirNode;
  readonly #clock: () => number;

  constructor(clock: () => number = Date.now) {
    this.#clock = clock;
    this.#root = { kind: 'dir', children: new Map(), modified: clock() };
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
      const dir = this.#ensureDir(segments, path);
      const now = this.#clock();
      if (dir.children.get(name)?.kind === 'dir') {
        throw new AppError('VALIDATION_ERROR', `'${path}' is a folder.`);
      }
      // One map assignment: a reader sees the old node or the new one, never a mix.
      dir.children.set(name, { kind: 'file', content: Buffer.from(content), modified: now });
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
      parent.modified = this.#clock();
    });
  }

  rename(from: string, to: string): Promise<void> {
    return settle(() => {
      const { parent: sourceParent, name: sourceName, node } = this.#entry(from);
      if (node.kind !== 'file') throw new AppError('VALIDATION_ERROR', `'${from}' is a folder.`);
      const target = splitFilePath(to);
      const targetName = target.pop() ?? '';
      const targetParent = this.#ensureDir(target, to);
      if (targetParent.children.get(targetName)?.kind === 'dir') {
        throw new AppError('VALIDATION_ERROR', `'${to}' is a folder.`);
      }
      const now = this.#clock();
      // Set before delete: a reader sees the old file at `to` or the new one, never nothing.
      targetParent.children.set(targetName, node);
      if (sourceParent !== targetParent || sourceName !== targetName)
        sourceParent.children.delete(sourceName);
      sourceParent.modified = now;
      targetParent.modified = now;
    });
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
