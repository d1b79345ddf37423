// The PlcTarget port: the only way features reach a PLC, real or simulated. Values crossing it are
// JSON-safe (64-bit integers as decimal strings, DATE/DT as ISO strings, TIME/TOD as milliseconds).

import type { AdsStateName } from '../plc/ads/index.ts';
import type {
  FileEntry,
  FileReader,
  MethodArguments,
  MethodResult,
  PlcValue,
  SymbolNode,
} from '../plc/index.ts';
import type { EtherCatPort } from './ethercat-port.ts';
import type { ProgramChangeListener, TypeChangedNotice } from './program-change.ts';

// The value, tree and file shapes belong to the PLC model that the drivers and the simulator share.
export type { FileEntry, FileReader, MethodArguments, MethodResult, PlcValue, SymbolNode };
export type {
  AffectedSymbol,
  ProgramChange,
  ProgramChangeKind,
  ProgramChangeListener,
  SymbolImpact,
  SymbolPlacement,
  TypeChangedNotice,
} from './program-change.ts';
export { adsStateNames as adsStates } from '../plc/ads/index.ts';
/** ADS state names; the index in `adsStates` is the numeric ADS state. */
export type AdsState = AdsStateName;

export type ConnectionState = 'Connected' | 'Connecting' | 'Disconnected';
export type TargetMode = 'Real' | 'Simulated';

interface EnumMember {
  name: string;
  value: number;
}

export interface EnumMembers {
  typeName: string;
  /** In declaration order, never sorted or renumbered. */
  members: EnumMember[];
}

export interface DeviceInfo {
  deviceName: string;
  version: string;
  adsState: AdsState;
}

export interface DeviceState {
  state: AdsState;
  timestamp: Date;
}

export interface ReadResult {
  symbol: string;
  value: PlcValue;
  typeName: string;
  /** When the value was sampled (PLC time where the driver has it). */
  timestamp: Date;
}

/** One element of a batch answer: a value, or the error for that path alone. */
export type BatchReadItem = ReadResult | { symbol: string; error: { code: string; message: string } };
export type BatchWriteItem =
  { symbol: string } | { symbol: string; error: { code: string; message: string } };

export interface ChangeEvent {
  symbol: string;
  value: PlcValue;
  typeName: string;
  timestamp: Date;
}

/** How a subscription delivers: each change (checked every cycle), or the value every cycle, changed or not. */
export type SubscriptionMode = 'on-change' | 'cyclic';

export interface SubscribeOptions {
  /** How often the PLC samples for changes (on-change) or sends the value (cyclic), in milliseconds. */
  cycleTimeMs: number;
  /** Default on-change. */
  mode?: SubscriptionMode;
  onChange(event: ChangeEvent): void;
  /** The symbol became unusable (for example removed by a program download): code SYMBOL_INVALIDATED. */
  onError?(error: { symbol: string; code: string; message: string }): void;
  /**
   * A program change gave the symbol another type or size; the subscription goes on in the new type. Without
   * this callback the values simply arrive in the new type (their `typeName` tells).
   */
  onTypeChanged?(notice: TypeChangedNotice): void;
}

export interface Subscription {
  readonly symbol: string;
  close(): Promise<void>;
}

export interface PlcFiles {
  read(path: string): Promise<Buffer>;
  /** Opens a file to read it in chunks (downloads stream through it); FILE_NOT_FOUND when there is none. */
  openRead(path: string): Promise<FileReader>;
  /** Atomic: a reader sees the old content or the new, never a mix. */
  write(path: string, content: Buffer): Promise<void>;
  list(dir: string): Promise<FileEntry[]>;
}

type SimulationStateName = 'Stopped' | 'Running' | 'Paused' | 'Faulted';

export interface SimulationState {
  state: SimulationStateName;
  cycleCount: number;
  elapsedMs: number;
  scanMs: number;
  error: string | null;
}

/** Present only on simulated targets that have a Scenario. */
export interface SimulationControl {
  state(): SimulationState;
  step(cycles: number): SimulationState;
  run(): SimulationState;
  pause(): SimulationState;
  reset(): SimulationState;
}

export type ConnectionListener = (state: ConnectionState) => void;

/** One subscribed symbol as the PLC connection watches it, shared by `clients` subscribers. */
export interface WatchedSymbol {
  symbol: string;
  /** The sampling cycle asked of the PLC (polled: the period asked for; the poll runs at the fastest one). */
  cycleMs: number;
  /** ADS transmission mode: on change, or every cycle. */
  mode: SubscriptionMode;
  clients: number;
  /** Since when it is watched this way. */
  since: Date;
}

/** Why a symbol is polled instead of notified: the gateway's budget is spent, or the PLC refused a notification. */
export type PollReason = 'budget' | 'refused';

/** How a Real target watches its subscriptions: ADS notifications up to the budget, sum-read polling beyond. */
export interface SubscriptionReport {
  notificationBudget: number;
  /** Notifications the PLC held when it last refused one on this connection; null: no refusal. */
  plcCapacity: number | null;
  /** Refusals since the target started. */
  refusals: number;
  /** When the PLC is next asked for a notification after a refusal. */
  nextRetryAt: Date | null;
  /** The polling period in use; null when nothing is polled. */
  pollPeriodMs: number | null;
  notifications: WatchedSymbol[];
  polled: Array<WatchedSymbol & { reason: PollReason }>;
  /** Subscribed while the PLC is not connected: bound again on the next connection. */
  waiting: WatchedSymbol[];
}

/** The notification budget of a Real target, for the admin listing and /metrics. */
export interface NotificationBudgetPort {
  /** Cheap figures for every scrape. */
  counts(): { notifications: number; polled: number; refusals: number };
  report(): SubscriptionReport;
}

/** Why a target is not connected: the catalog code, a message naming the cause, and since when. */
export interface TargetError {
  code: string;
  message: string;
  since: Date;
}

/**
 * Where a target reports what the operator should know but no caller is told (pino's signature: pino's and
 * fastify's loggers fit). A target logs on a child bound to its plcId.
 */
export interface TargetLog {
  warn(fields: Record<string, unknown>, message: string): void;
  info(fields: Record<string, unknown>, message: string): void;
  child(bindings: Record<string, unknown>): TargetLog;
}

/**
 * One configured PLC. Operations throw AppError (src/errors.ts): PLC_UNAVAILABLE when not connected,
 * SYMBOL_NOT_FOUND, TYPE_NOT_FOUND, TYPE_MISMATCH (write validated before it reaches the PLC),
 * ADS_ERROR, ADS_TIMEOUT.
 */
export interface PlcTarget {
  readonly id: string;
  readonly displayName: string;
  readonly mode: TargetMode;

  /** Connects (or starts the simulation). Never throws for an unreachable PLC: it keeps retrying. */
  start(): Promise<void>;
  /** Releases every handle and subscription and disconnects. */
  close(): Promise<void>;

  connectionState(): ConnectionState;
  /** The failure that keeps the target from connecting, while not Connected; undefined otherwise. */
  lastError(): TargetError | undefined;
  /** Returns a function that removes the listener. */
  onConnectionState(listener: ConnectionListener): () => void;

  deviceInfo(): Promise<DeviceInfo>;
  deviceState(): Promise<DeviceState>;
  /** Lifecycle: Run, Stop or Reset; answers the ADS state read back afterwards. */
  setAdsState(state: 'Run' | 'Stop' | 'Reset'): Promise<AdsState>;

  /** Top-level symbols, each with its children recursively. */
  symbols(): Promise<SymbolNode[]>;
  /** Cached for the life of the connection. TYPE_NOT_FOUND, or VALIDATION_ERROR when not an enum. */
  enumMembers(typeName: string): Promise<EnumMembers>;

  read(path: string): Promise<ReadResult>;
  readMany(paths: readonly string[]): Promise<BatchReadItem[]>;
  write(path: string, value: unknown): Promise<void>;
  writeMany(values: ReadonlyArray<{ symbol: string; value: unknown }>): Promise<BatchWriteItem[]>;

  /** Calls `instancePath#method` with positional or named parameters. */
  invoke(instancePath: string, method: string, parameters: MethodArguments): Promise<MethodResult>;

  /**
   * On-change notifications of `path`; the current value comes first. Kept across a lost connection: once it is
   * Connected again, each live subscription delivers its current value once (a re-registered ADS notification's
   * first sample), so callers never read it again themselves.
   */
  subscribe(path: string, options: SubscribeOptions): Promise<Subscription>;

  readonly files: PlcFiles;
  /** EtherCAT diagnostics through the PLC's I/O server and masters. */
  readonly etherCat: EtherCatPort;
  readonly simulation?: SimulationControl;
  /**
   * Real targets: told after each program change (download or online change) once the held symbols are
   * re-resolved, with what the change did to them. Returns a function that removes the listener.
   */
  onProgramChange?(listener: ProgramChangeListener): () => void;
  /** Present on Real (ADS) targets only: a simulated target holds no ADS notifications. */
  readonly notificationBudget?: NotificationBudgetPort;
}
