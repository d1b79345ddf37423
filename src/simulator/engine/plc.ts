// SimulatedPlc: the memory image of a Program, with typed and raw access, state, watches, methods and files.
import { AppError } from '../../errors.ts';
import type { AdsStateName } from '../../plc/ads/index.ts';
import { decode, encodeInto, encodeOver, type NonMemberSink } from '../../plc/index.ts';
import { MemoryFileStore, type FileStore } from './file-store.ts';
import { invokeMethod, type MethodResult } from './invoke.ts';
import type { ResolvedPath, PlcType, PlcValue, MethodArguments } from '../../plc/index.ts';
import type { Program } from './program.ts';
import type { EtherCatSystem } from '../ethercat/system.ts';
import { WatchSet, type Watch, type WatchChange, type WatchOptions } from './watch.ts';

export interface PlcDeviceInfo {
  deviceName: string;
  version: string;
  major: number;
  minor: number;
  build: number;
  adsState: AdsStateName;
}

export interface SimulatedPlcOptions {
  /** PLC clock, ms since the epoch. */
  clock?: () => number;
  files?: FileStore;
  deviceName?: string;
  /** `major.minor.build`. */
  version?: string;
  /** The system's EtherCAT masters, when it has any. */
  ethercat?: EtherCatSystem;
}

/** A write validated and encoded, ready to commit. */
export interface PreparedWrite {
  path: string;
  type: PlcType;
  offset: number;
  value: unknown;
  bytes: Buffer;
}

type Listener<A extends unknown[]> = (...args: A) => void;

export class SimulatedPlc {
  readonly files: FileStore;
  /** The EtherCAT masters of the simulated system (its I/O server), when it has any. */
  readonly ethercat: EtherCatSystem | undefined;
  readonly #clock: () => number;
  readonly #deviceName: string;
  readonly #version: string;
  readonly #watches = new WatchSet();
  readonly #writeListeners = new Set<Listener<[offset: number, size: number]>>();
  readonly #loadListeners = new Set<Listener<[program: Program, symbolVersion: number]>>();
  readonly #stateListeners = new Set<Listener<[state: AdsStateName]>>();
  #program: Program;
  #memory: Buffer;
  #symbolVersion = 1;
  #state: AdsStateName = 'Run';

  constructor(program: Program, options: SimulatedPlcOptions = {}) {
    this.#clock = options.clock ?? Date.now;
    this.files = options.files ?? new MemoryFileStore(this.#clock);
    this.ethercat = options.ethercat;
    this.#deviceName = options.deviceName ?? 'Plc30 App';
    this.#version = options.version ?? '3.1.4024';
    this.#program = program;
    this.#memory = program.createMemory();
  }

  get program(): Program {
    return this.#program;
  }

  /** The live data area. Replaced by load(): re-read it after a program download. */
  get memory(): Buffer {
    return this.#memory;
  }

  /** Bumped (u8, wrapping) by every load(). */
  get symbolVersion(): number {
    return this.#symbolVersion;
  }

  get adsState(): AdsStateName {
    return this.#state;
  }

  now(): number {
    return this.#clock();
  }

  deviceInfo(): PlcDeviceInfo {
    const [major = 0, minor = 0, build = 0] = this.#version.split('.').map(Number);
    return {
      deviceName: this.#deviceName,
      version: this.#version,
      major,
      minor,
      build,
      adsState: this.#state,
    };
  }

  /** Run -> Run, Stop -> Stop, Reset -> Stop (memory is kept). */
  setState(state: 'Run' | 'Stop' | 'Reset'): AdsStateName {
    const next: AdsStateName = state === 'Run' ? 'Run' : 'Stop';
    if (next !== this.#state) {
      this.#state = next;
      for (const l of this.#stateListeners) l(next);
    }
    return this.#state;
  }

  onStateChange(listener: (state: AdsStateName) => void): () => void {
    return subscribe(this.#stateListeners, listener);
  }

  /**
   * Program download: replaces program and memory, bumps the symbol version, rebinds path watches
   * whose path still resolves to the same type (the others are invalidated; raw watches always are).
   */
  load(program: Program): void {
    this.#program = program;
    this.#memory = program.createMemory();
    this.#symbolVersion = (this.#symbolVersion + 1) & 0xff;
    for (const w of [...this.#watches.entries()]) {
      const reason = this.#rebind(w);
      if (reason) {
        w.close();
        w.onInvalidated?.(reason);
      }
    }
    for (const l of this.#loadListeners) l(program, this.#symbolVersion);
  }

  onLoad(listener: (program: Program, symbolVersion: number) => void): () => void {
    return subscribe(this.#loadListeners, listener);
  }

  resolve(path: string): ResolvedPath {
    return this.#program.resolve(path);
  }

  read(path: string): PlcValue {
    const r = this.#program.resolve(path);
    return decode(r.type, this.#memory, r.offset);
  }

  /** Validates and encodes without writing: TYPE_MISMATCH or SYMBOL_NOT_FOUND leave memory untouched. */
  prepareWrite(path: string, value: unknown, onNonMember?: NonMemberSink): PreparedWrite {
    const r = this.#program.resolve(path);
    const current = this.#memory.subarray(r.offset, r.offset + r.size);
    return {
      path: r.path,
      type: r.type,
      offset: r.offset,
      value,
      bytes: encodeOver(r.type, current, value, r.path, onNonMember),
    };
  }

  /** Writes prepared values in order, then reports each range to the external-write listeners. */
  commit(writes: readonly PreparedWrite[]): void {
    for (const w of writes) {
      // Re-encoding in place keeps earlier writes of the same batch for members a partial object omits.
      if (w.type.kind === 'struct' || w.type.kind === 'array')
        encodeInto(w.type, w.value, w.path, this.#memory, w.offset);
      else w.bytes.copy(this.#memory, w.offset);
    }
    for (const w of writes) this.#emitWrite(w.offset, w.bytes.length);
  }

  write(path: string, value: unknown): void {
    this.commit([this.prepareWrite(path, value)]);
  }

  inRange(offset: number, size: number): boolean {
    return (
      Number.isInteger(offset) &&
      Number.isInteger(size) &&
      offset >= 0 &&
      size >= 0 &&
      offset + size <= this.#memory.length
    );
  }

  /** A copy of `size` bytes at `offset`; VALIDATION_ERROR outside the data area. */
  readRaw(offset: number, size: number): Buffer {
    this.#checkRange(offset, size);
    return Buffer.from(this.#memory.subarray(offset, offset + size));
  }

  writeRaw(offset: number, data: Buffer): void {
    this.#checkRange(offset, data.length);
    data.copy(this.#memory, offset);
    this.#emitWrite(offset, data.length);
  }

  /** Memory written from outside the program (write, commit, writeRaw): not the owner's direct writes. */
  onExternalWrite(listener: (offset: number, size: number) => void): () => void {
    return subscribe(this.#writeListeners, listener);
  }

  /** Watches a path (rebound across downloads) or a raw range; the snapshot starts at the current value. */
  watch(
    target: string | { offset: number; size: number },
    callback: (change: WatchChange) => void,
    options: WatchOptions = {},
  ): Watch {
    let path: string | undefined;
    let type: PlcType | undefined;
    let offset: number;
    let size: number;
    if (typeof target === 'string') {
      const r = this.#program.resolve(target);
      ({ path, type, offset, size } = r);
    } else {
      this.#checkRange(target.offset, target.size);
      ({ offset, size } = target);
    }
    return this.#watches.add({
      path,
      type,
      offset,
      size,
      snapshot: Buffer.from(this.#memory.subarray(offset, offset + size)),
      cycleTimeMs: Math.max(0, options.cycleTimeMs ?? 0),
      cyclic: options.cyclic === true,
      lastCheck: -Infinity,
      callback,
      onInvalidated: options.onInvalidated,
    });
  }

  /** Reports watches whose bytes changed; costs nothing without watches. */
  sample(options?: { immediate?: boolean }): void {
    if (this.#watches.size === 0) return;
    this.#watches.sample(this.#memory, this.#clock(), options?.immediate === true);
  }

  get watchCount(): number {
    return this.#watches.size;
  }

  invoke(instancePath: string, method: string, parameters: MethodArguments): MethodResult {
    return invokeMethod(this.program, this, instancePath, method, parameters);
  }

  #rebind(w: {
    path: string | undefined;
    type: PlcType | undefined;
    offset: number;
    size: number;
  }): string | undefined {
    if (w.path === undefined) return 'the program was downloaded again';
    let r: ResolvedPath;
    try {
      r = this.#program.resolve(w.path);
    } catch {
      return `${w.path} no longer exists`;
    }
    if (r.type.name !== w.type?.name || r.size !== w.size) return `${w.path} changed type`;
    w.offset = r.offset;
    w.type = r.type;
    return undefined;
  }

  #checkRange(offset: number, size: number): void {
    if (!this.inRange(offset, size)) {
      throw new AppError(
        'VALIDATION_ERROR',
        `Range ${offset}+${size} is outside the data area (${this.#memory.length} bytes).`,
      );
    }
  }

  #emitWrite(offset: number, size: number): void {
    for (const l of this.#writeListeners) l(offset, size);
  }
}

function subscribe<T>(set: Set<T>, listener: T): () => void {
  set.add(listener);
  return () => {
    set.delete(listener);
  };
}
