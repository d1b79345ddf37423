// A minimal in-memory PlcTarget for HTTP tests: connection state and ADS state are set by the test;
// symbol, variable, method and file operations answer as a PLC with no such symbols would.
import { AppError } from '../../src/errors.ts';
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
  Subscription,
  SymbolNode,
  TargetError,
  TargetMode,
} from '../../src/targets/target.ts';
import type { EtherCatPort } from '../../src/targets/ethercat-port.ts';

export interface FakeTargetOptions {
  displayName?: string;
  mode?: TargetMode;
  state?: ConnectionState;
  adsState?: AdsState;
}

export class FakeTarget implements PlcTarget {
  readonly displayName: string;
  readonly mode: TargetMode;
  /** Set to make deviceState() fail (for example with ADS_TIMEOUT). */
  deviceStateError: Error | null = null;
  adsState: AdsState;
  private state: ConnectionState;
  private readonly listeners = new Set<ConnectionListener>();

  constructor(
    readonly id: string,
    options: FakeTargetOptions = {},
  ) {
    this.displayName = options.displayName ?? id;
    this.mode = options.mode ?? 'Simulated';
    this.state = options.state ?? 'Connected';
    this.adsState = options.adsState ?? 'Run';
  }

  setConnectionState(state: ConnectionState): void {
    this.state = state;
    for (const l of this.listeners) l(state);
  }

  start(): Promise<void> {
    return Promise.resolve();
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
  connectionState(): ConnectionState {
    return this.state;
  }
  /** Set by the test while the target is not connected. */
  failure: TargetError | undefined;
  lastError(): TargetError | undefined {
    return this.state === 'Connected' ? undefined : this.failure;
  }
  onConnectionState(listener: ConnectionListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Resolves to the value, or rejects like a PLC that is not connected. */
  private whenConnected<T>(value: () => T): Promise<T> {
    // A throw inside the executor rejects the promise, as an async driver call would.
    return new Promise((resolve) => {
      if (this.state !== 'Connected') throw new AppError('PLC_UNAVAILABLE');
      resolve(value());
    });
  }

  deviceInfo(): Promise<DeviceInfo> {
    return this.whenConnected(() => ({
      deviceName: `fake-${this.id}`,
      version: '3.1.4024',
      adsState: this.adsState,
    }));
  }
  deviceState(): Promise<DeviceState> {
    return this.whenConnected(() => {
      if (this.deviceStateError) throw this.deviceStateError;
      return { state: this.adsState, timestamp: new Date() };
    });
  }
  setAdsState(state: 'Run' | 'Stop' | 'Reset'): Promise<AdsState> {
    return this.whenConnected(() => (this.adsState = state === 'Reset' ? 'Stop' : state));
  }
  symbols(): Promise<SymbolNode[]> {
    return this.whenConnected(() => []);
  }
  enumMembers(typeName: string): Promise<EnumMembers> {
    return Promise.reject(new AppError('TYPE_NOT_FOUND', `No type ${typeName}.`));
  }
  read(path: string): Promise<ReadResult> {
    return Promise.reject(noSymbol(path));
  }
  readMany(paths: readonly string[]): Promise<BatchReadItem[]> {
    return Promise.resolve(paths.map((symbol) => ({ symbol, error: noSymbolBody })));
  }
  write(path: string): Promise<void> {
    return Promise.reject(noSymbol(path));
  }
  writeMany(values: ReadonlyArray<{ symbol: string }>): Promise<BatchWriteItem[]> {
    return Promise.resolve(values.map(({ symbol }) => ({ symbol, error: noSymbolBody })));
  }
  invoke(instancePath: string, method: string): Promise<MethodResult> {
    return Promise.reject(noSymbol(`${instancePath}#${method}`));
  }
  subscribe(path: string): Promise<Subscription> {
    return Promise.reject(noSymbol(path));
  }
  readonly files: PlcFiles = {
    read: (path) => Promise.reject(new AppError('FILE_NOT_FOUND', `No file ${path}.`)),
    openRead: (path) => Promise.reject(new AppError('FILE_NOT_FOUND', `No file ${path}.`)),
    write: () => Promise.reject(new AppError('FILE_NOT_FOUND', 'No file root.')),
    list: () => Promise.resolve([]),
  };
  /** A PLC whose I/O server lists no EtherCAT master. */
  readonly etherCat: EtherCatPort = {
    masters: () => Promise.resolve([]),
    read: (m) => Promise.reject(new AppError('MASTER_NOT_FOUND', `No master ${m.deviceId}.`)),
    resetErrorCounters: (m) => Promise.reject(new AppError('MASTER_NOT_FOUND', `No master ${m.deviceId}.`)),
  };
}

const noSymbolBody = { code: 'SYMBOL_NOT_FOUND', message: 'No such symbol.' };

function noSymbol(path: string): AppError {
  return new AppError('SYMBOL_NOT_FOUND', `No symbol ${path}.`);
}
