// The in-process simulated target: the PlcTarget port over a SimulatedPlc, with a "connection" of its own.
import { AppError } from '../../errors.ts';
import { perItem } from '../batch-item.ts';
import { NonMemberNotes } from '../enum-notes.ts';
import { silentLog } from '../failure-log.ts';
import {
  decode,
  type PreparedWrite,
  type SimulatedPlc,
  type TypeRegistry,
  type Watch,
} from '../../simulator/engine/index.ts';
import { IncrementalDecoder } from '../../plc/index.ts';
import type { EtherCatPort } from '../ethercat-port.ts';
import { SimulatedEtherCat } from './simulated-ethercat.ts';
import type {
  AdsState,
  BatchReadItem,
  BatchWriteItem,
  ConnectionListener,
  ConnectionState,
  DeviceInfo,
  DeviceState,
  EnumMembers,
  MethodResult,
  PlcFiles,
  PlcTarget,
  ReadResult,
  SimulationControl,
  SubscribeOptions,
  Subscription,
  SymbolNode,
  MethodArguments,
  TargetLog,
} from '../target.ts';
import { fromPlcClock, toPlcClock, type PlcClock } from '../plc-clock.ts';

export class SimulatedTarget implements PlcTarget {
  readonly id: string;
  readonly displayName: string;
  readonly mode = 'Simulated' as const;
  /** The simulated PLC itself, for the scenario runtime and the ADS server. */
  readonly plc: SimulatedPlc;
  readonly files: PlcFiles;
  readonly etherCat: EtherCatPort;
  /** Set by a scenario runtime when the target has a Scenario. */
  simulation?: SimulationControl;

  readonly #listeners = new Set<ConnectionListener>();
  /** Each live subscription with what re-registers it after a reconnect. */
  readonly #subscriptions = new Map<Subscription, () => void>();
  #state: ConnectionState = 'Disconnected';
  #typeSnapshot: TypeRegistry | undefined;
  readonly #enumCache = new Map<string, EnumMembers>();
  readonly #clock: PlcClock;
  readonly #log: TargetLog;

  /** `log` is bound to the target's plcId here; `plcClock` says what DATE/DT fields mean (default Utc). */
  constructor(
    id: string,
    displayName: string,
    plc: SimulatedPlc,
    options: { log?: TargetLog; plcClock?: PlcClock } = {},
  ) {
    this.id = id;
    this.#clock = options.plcClock ?? 'Utc';
    this.displayName = displayName;
    this.plc = plc;
    this.#log = (options.log ?? silentLog).child({ plcId: id });
    // Files answer PLC_UNAVAILABLE while disconnected, like every other operation.
    this.files = {
      read: (path) => this.#connected().then(() => plc.files.read(path)),
      openRead: async (path) => {
        await this.#connected();
        const reader = await plc.files.openRead(path);
        // A download cut by a disconnect fails like any other operation would.
        return {
          size: reader.size,
          read: (max) => this.#connected().then(() => reader.read(max)),
          close: () => reader.close(),
        };
      },
      write: (path, content) => this.#connected().then(() => plc.files.write(path, content)),
      list: (dir) => this.#connected().then(() => plc.files.list(dir)),
    };
    this.etherCat = new SimulatedEtherCat(plc.ethercat, (fn) => this.#run(fn));
  }

  start(): Promise<void> {
    if (this.#state !== 'Connected') {
      this.#setState('Connecting');
      this.#setState('Connected');
    }
    return Promise.resolve();
  }

  async close(): Promise<void> {
    await Promise.all([...this.#subscriptions.keys()].map((s) => s.close()));
    this.#dropCaches();
    this.#setState('Disconnected');
  }

  /** Simulates losing the connection: operations fail with PLC_UNAVAILABLE, caches are dropped. */
  disconnect(): void {
    this.#dropCaches();
    this.#setState('Disconnected');
  }

  /**
   * Simulates re-establishing the connection (Disconnected -> Connecting -> Connected); like restored
   * ADS notifications, every subscription is registered again and receives its current value, once.
   */
  reconnect(): void {
    this.#dropCaches();
    this.#setState('Disconnected');
    this.#setState('Connecting');
    this.#setState('Connected');
    for (const restore of [...this.#subscriptions.values()]) restore();
  }

  connectionState(): ConnectionState {
    return this.#state;
  }

  /** An in-process simulation has no link to fail. */
  lastError(): undefined {
    return undefined;
  }

  onConnectionState(listener: ConnectionListener): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  deviceInfo(): Promise<DeviceInfo> {
    return this.#run(() => {
      const info = this.plc.deviceInfo();
      return { deviceName: info.deviceName, version: info.version, adsState: info.adsState };
    });
  }

  deviceState(): Promise<DeviceState> {
    return this.#run(() => ({ state: this.plc.adsState, timestamp: new Date(this.plc.now()) }));
  }

  setAdsState(state: 'Run' | 'Stop' | 'Reset'): Promise<AdsState> {
    return this.#run(() => this.plc.setState(state));
  }

  symbols(): Promise<SymbolNode[]> {
    return this.#run(() => this.plc.program.symbolTree());
  }

  /** The first call snapshots the type system; answers stay until the connection is re-established. */
  enumMembers(typeName: string): Promise<EnumMembers> {
    return this.#run(() => {
      const key = typeName.trim().toUpperCase();
      const hit = this.#enumCache.get(key);
      if (hit) return copyEnum(hit);
      this.#typeSnapshot ??= this.plc.program.types;
      const type = this.#typeSnapshot.resolve(typeName);
      if (type.kind !== 'enum') throw new AppError('VALIDATION_ERROR', `${type.name} is not an enum.`);
      const result: EnumMembers = { typeName: type.name, members: type.members.map((m) => ({ ...m })) };
      this.#enumCache.set(key, result);
      return copyEnum(result);
    });
  }

  read(path: string): Promise<ReadResult> {
    return this.#run(() => this.#read(path));
  }

  readMany(paths: readonly string[]): Promise<BatchReadItem[]> {
    return this.#run(() =>
      paths.map((p) => {
        const r = perItem(p, () => this.#read(p));
        return 'error' in r ? r : r.value;
      }),
    );
  }

  write(path: string, value: unknown): Promise<void> {
    return this.#run(() => {
      const notes = new NonMemberNotes();
      this.plc.commit([this.plc.prepareWrite(path, this.#toPlc(path, value), notes.sink)]);
      this.plc.sample({ immediate: true });
      notes.report(this.#log);
    });
  }

  /** Each item is validated before anything is written; a bad item fails alone. */
  writeMany(values: ReadonlyArray<{ symbol: string; value: unknown }>): Promise<BatchWriteItem[]> {
    return this.#run(() => {
      const prepared: PreparedWrite[] = [];
      const written: NonMemberNotes[] = [];
      const results = values.map(({ symbol, value }) => {
        const r = perItem(symbol, () => {
          // Notes of an item that fails validation are dropped with it: nothing of it is written.
          const notes = new NonMemberNotes();
          prepared.push(this.plc.prepareWrite(symbol, this.#toPlc(symbol, value), notes.sink));
          written.push(notes);
        });
        return 'error' in r ? r : { symbol };
      });
      this.plc.commit(prepared);
      this.plc.sample({ immediate: true });
      for (const notes of written) notes.report(this.#log);
      return results;
    });
  }

  invoke(instancePath: string, method: string, parameters: MethodArguments): Promise<MethodResult> {
    return this.#run(() => {
      const result = this.plc.invoke(instancePath, method, parameters);
      this.plc.sample({ immediate: true });
      return result;
    });
  }

  subscribe(path: string, options: SubscribeOptions): Promise<Subscription> {
    return this.#run(() => {
      let open = true;
      const emit = (value: ReturnType<typeof decode>, typeName: string): void => {
        if (open && this.#state === 'Connected') {
          options.onChange({ symbol: path, value, typeName, timestamp: new Date(this.plc.now()) });
        }
      };
      const invalidated = (reason: string): void => {
        if (!open) return;
        subscription.close().catch(() => undefined);
        options.onError?.({ symbol: path, code: 'SYMBOL_INVALIDATED', message: reason });
      };
      // Registered like an ADS notification: its snapshot starts at the current value, which is sent first.
      const register = (at: string): Watch => {
        // Only the elements of a large array that changed since the last notification are decoded again.
        const decoder = new IncrementalDecoder();
        return this.plc.watch(
          at,
          (change) => {
            if (!change.type) return;
            const value = decoder.decode(change.type, change.data);
            emit(fromPlcClock(change.type, value, this.#clock), change.type.name);
          },
          {
            cycleTimeMs: options.cycleTimeMs,
            cyclic: options.mode === 'cyclic',
            onInvalidated: invalidated,
          },
        );
      };
      let watch = register(path);
      const subscription: Subscription = {
        symbol: path,
        close: () => {
          open = false;
          watch.close();
          this.#subscriptions.delete(subscription);
          return Promise.resolve();
        },
      };
      const emitCurrent = (): void => {
        if (!open || watch.path === undefined) return;
        try {
          const r = this.plc.program.resolve(watch.path);
          emit(fromPlcClock(r.type, decode(r.type, this.plc.memory, r.offset), this.#clock), r.type.name);
        } catch {
          // The path vanished with a download; onInvalidated has reported it.
        }
      };
      // A restored connection registers the notification again: the old snapshot (from before the loss) would
      // report as a change the value just sent as the current one.
      const restore = (): void => {
        if (!open || watch.path === undefined) return;
        const at = watch.path;
        watch.close();
        try {
          watch = register(at);
        } catch (err) {
          invalidated(err instanceof Error ? err.message : String(err));
          return;
        }
        emitCurrent();
      };
      this.#subscriptions.set(subscription, restore);
      // Like an ADS on-change notification, the current value arrives first.
      queueMicrotask(emitCurrent);
      return subscription;
    });
  }

  #read(path: string): ReadResult {
    const r = this.plc.resolve(path);
    return {
      symbol: path,
      value: fromPlcClock(r.type, decode(r.type, this.plc.memory, r.offset), this.#clock),
      typeName: r.type.name,
      timestamp: new Date(this.plc.now()),
    };
  }

  /** A value in the PLC clock's fields (SYMBOL_NOT_FOUND surfaces from the write itself). */
  #toPlc(path: string, value: unknown): unknown {
    if (this.#clock !== 'Local') return value;
    try {
      return toPlcClock(this.plc.resolve(path).type, value, this.#clock);
    } catch {
      return value;
    }
  }

  #connected(): Promise<void> {
    return this.#run(() => undefined);
  }

  #run<T>(fn: () => T): Promise<T> {
    try {
      if (this.#state !== 'Connected') {
        throw new AppError('PLC_UNAVAILABLE', `PLC '${this.id}' is not connected.`);
      }
      return Promise.resolve(fn());
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
  }

  #dropCaches(): void {
    this.#typeSnapshot = undefined;
    this.#enumCache.clear();
  }

  #setState(state: ConnectionState): void {
    if (state === this.#state) return;
    this.#state = state;
    for (const l of [...this.#listeners]) l(state);
  }
}

function copyEnum(e: EnumMembers): EnumMembers {
  return { typeName: e.typeName, members: e.members.map((m) => ({ ...m })) };
}
