// The alarm monitor of one PLC: one subscription to the alarm array at CycleTimeMs, the last good snapshot,
// transitions into the journal and out to listeners, and the scope's failure while it is not Connected.
import type { AlarmTargetConfig } from '../../config/schema.ts';
import { isAppError } from '../../errors.ts';
import type { ChangeEvent, ConnectionState, PlcTarget, Subscription } from '../../targets/target.ts';
import { SnapshotDecoder, type SnapshotAnomalies } from './decode-snapshot.ts';
import type { AlarmSource, ScopeFailure, TransitionListener } from './alarm-source.ts';
import { AlarmJournal, type JournalEntry, type TransitionJournal } from './journal.ts';
import type { AlarmReading } from './reading.ts';
import { diffStates, type AlarmState } from './transitions.ts';

/** The structured logger the monitor writes to (pino's call shape). */
export interface AlarmLog {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

export type { ScopeFailure, TransitionListener } from './alarm-source.ts';

export interface MonitorOptions {
  readonly log: AlarmLog;
  /** Gateway clock in milliseconds. */
  readonly now: () => number;
  /** Retry period while the array cannot be subscribed although the PLC is connected. */
  readonly retryMs?: number;
  /** Journal of the transitions; default: one in memory of JournalLength entries. */
  readonly journal?: TransitionJournal;
  /** Called after every snapshot read, with its transitions (none when nothing changed). */
  readonly onApplied?: (entries: readonly JournalEntry[]) => void;
}

const emptyState: AlarmState = { readings: new Map(), outstanding: [] };

const reasons: Record<Exclude<ScopeFailure['state'], 'Stale'>, string> = {
  Connecting: 'The gateway is connecting to the PLC.',
  Disconnected: 'The PLC connection is lost.',
};
/** How long an acknowledge request waits for its `acknowledged` transition to claim it. */
const ackClaimMs = 60_000;
/** Distinct anomalies logged per target before the monitor stops noting new ones (a bounded memory). */
const maxLogged = 1000;

export class AlarmMonitor implements AlarmSource {
  readonly plcId: string;
  readonly settings: AlarmTargetConfig;
  readonly journal: TransitionJournal;
  readonly #target: PlcTarget;
  readonly #log: AlarmLog;
  readonly #now: () => number;
  readonly #retryMs: number;
  readonly #onApplied: ((entries: readonly JournalEntry[]) => void) | undefined;
  readonly #listeners = new Set<TransitionListener>();
  readonly #pendingAcks = new Map<string, { sub: string; at: number }>();
  readonly #logged = new Set<string>();
  readonly #decoder: SnapshotDecoder;
  #state: AlarmState = emptyState;
  #fresh = true;
  #failure: ScopeFailure | undefined;
  #subscription: Subscription | undefined;
  #resolving = false;
  #retry: NodeJS.Timeout | undefined;
  #stopped = false;
  #offState: (() => void) | undefined;
  #lastProblem: string | undefined;

  constructor(target: PlcTarget, settings: AlarmTargetConfig, options: MonitorOptions) {
    this.plcId = target.id;
    this.settings = settings;
    this.#target = target;
    this.#log = options.log;
    this.#now = options.now;
    this.#retryMs = options.retryMs ?? 5000;
    this.journal = options.journal ?? new AlarmJournal(settings.JournalLength, options.now());
    this.#onApplied = options.onApplied;
    this.#decoder = new SnapshotDecoder(settings.PlcClock);
  }

  /** The instance path of the function block that owns acknowledgement. */
  get acknowledgeInstancePath(): string {
    const path = this.settings.SymbolPath;
    return this.settings.AcknowledgeInstancePath ?? path.slice(0, Math.max(0, path.lastIndexOf('.')));
  }

  /** Starts watching; a PLC that is not connected yet is picked up when it connects. */
  async start(): Promise<void> {
    this.#offState = this.#target.onConnectionState((state) => this.#onState(state));
    const state = this.#target.connectionState();
    if (state === 'Connected') await this.#resolve();
    else this.#onState(state);
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#offState?.();
    clearTimeout(this.#retry);
    this.#listeners.clear();
    await this.#subscription?.close().catch(() => undefined);
    this.#subscription = undefined;
  }

  /**
   * Takes `outstanding` as the last snapshot before the first one read, so that first one is compared with it
   * (a replica taking over from another) instead of raising everything outstanding. Before start() only.
   */
  seed(outstanding: readonly AlarmReading[]): void {
    const ordered = [...outstanding].sort((a, b) => a.slotIndex - b.slotIndex);
    this.#state = { readings: new Map(ordered.map((r) => [r.key, r])), outstanding: ordered };
    this.#fresh = false;
  }

  /** Outstanding alarms of the last good snapshot, in slot order; the same array until one of them changes. */
  outstanding(): readonly AlarmReading[] {
    return this.#state.outstanding;
  }

  reading(key: string): AlarmReading | undefined {
    return this.#state.readings.get(key);
  }

  /** Why the scope cannot be read fresh, or undefined while Connected. */
  failure(): ScopeFailure | undefined {
    return this.#failure;
  }

  onTransitions(listener: TransitionListener): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  /** A journal held in this process never restarts while the monitor runs. */
  onResync(): () => void {
    return () => undefined;
  }

  /** Remembers who asked, so the `acknowledged` transition that follows carries their sub. */
  noteAcknowledge(key: string, sub: string): void {
    const now = this.#now();
    for (const [k, p] of this.#pendingAcks) if (now - p.at > ackClaimMs) this.#pendingAcks.delete(k);
    this.#pendingAcks.set(key, { sub, at: now });
  }

  forgetAcknowledge(key: string): void {
    this.#pendingAcks.delete(key);
  }

  #onState(state: ConnectionState): void {
    if (this.#stopped) return;
    if (state === 'Connected') {
      this.#failure = undefined;
      // A driver restores a live subscription itself; one that never existed is made now.
      if (this.#subscription === undefined) void this.#resolve();
      return;
    }
    this.#fresh = true;
    this.#failure = {
      state,
      reason: reasons[state],
      since: this.#failure?.since ?? new Date(this.#now()).toISOString(),
    };
  }

  async #resolve(): Promise<void> {
    if (this.#resolving || this.#stopped) return;
    this.#resolving = true;
    clearTimeout(this.#retry);
    const path = this.settings.SymbolPath;
    try {
      const old = this.#subscription;
      this.#subscription = undefined;
      if (old) await old.close().catch(() => undefined);
      const subscription = await this.#target.subscribe(path, {
        cycleTimeMs: this.settings.CycleTimeMs,
        onChange: (event) => this.#onSnapshot(event),
        onError: (error) => {
          this.#log.warn(
            { plcId: this.plcId, symbol: path, reason: error.message },
            'alarm array re-resolved',
          );
          this.#subscription = undefined;
          void this.#resolve();
        },
      });
      if (this.#stopped) await subscription.close();
      else this.#subscription = subscription;
    } catch (err) {
      this.#notSubscribed(err);
    } finally {
      this.#resolving = false;
    }
    if (this.#subscription === undefined && !this.#stopped && this.#failure === undefined)
      this.#scheduleRetry();
  }

  #notSubscribed(err: unknown): void {
    const path = this.settings.SymbolPath;
    if (isAppError(err) && err.code === 'SYMBOL_NOT_FOUND') {
      // Indistinguishable from a quiet PLC (spec rule 7); a later download may add the symbol.
      this.#logOnce(`missing:${path}`, () =>
        this.#log.warn({ plcId: this.plcId, symbol: path }, 'alarm SymbolPath resolves to nothing'),
      );
      this.#apply(emptyState);
      return;
    }
    if (isAppError(err) && err.code === 'PLC_UNAVAILABLE') return;
    this.#log.warn(
      { plcId: this.plcId, symbol: path, err: (err as Error).message },
      'alarm subscription failed',
    );
  }

  #scheduleRetry(): void {
    clearTimeout(this.#retry);
    this.#retry = setTimeout(() => void this.#resolve(), this.#retryMs);
    this.#retry.unref();
  }

  #onSnapshot(event: ChangeEvent): void {
    if (this.#stopped) return;
    const decoded = this.#decoder.decode(event.value, event.typeName);
    if (!decoded.ok) {
      // Spec rule 5: the last good snapshot stays; logged once per distinct problem, not at every cycle.
      if (decoded.problem !== this.#lastProblem) {
        this.#lastProblem = decoded.problem;
        this.#log.error(
          { plcId: this.plcId, symbol: this.settings.SymbolPath, problem: decoded.problem },
          'alarm entry type no longer matches ST_ErrorEntry; snapshot dropped, last good reading kept',
        );
      }
      return;
    }
    this.#lastProblem = undefined;
    this.#logAnomalies(decoded.anomalies);
    this.#apply(decoded.state);
  }

  #apply(next: AlarmState): void {
    const transitions = diffStates(this.#state.outstanding, next, this.#fresh);
    this.#fresh = false;
    this.#state = next;
    if (transitions.length === 0) {
      this.#onApplied?.([]);
      return;
    }
    const at = new Date(this.#now()).toISOString();
    const entries = transitions.map(({ kind, reading }) => {
      const pending = kind === 'acknowledged' ? this.#pendingAcks.get(reading.key) : undefined;
      if (pending) this.#pendingAcks.delete(reading.key);
      return this.journal.append({ at, kind, reading, ...(pending ? { user: pending.sub } : {}) });
    });
    for (const listener of [...this.#listeners]) {
      try {
        listener(entries);
      } catch (err) {
        this.#log.error(
          { plcId: this.plcId, err: (err as Error).message },
          'alarm transition listener failed',
        );
      }
    }
    this.#onApplied?.(entries);
  }

  #logAnomalies(a: SnapshotAnomalies): void {
    for (const value of a.unknownTypes) {
      this.#logOnce(`type:${value}`, () =>
        this.#log.warn({ plcId: this.plcId, errorType: value }, 'unrecognised ErrorType kept as UNKNOWN'),
      );
    }
    for (const { slotIndex, key } of a.invalidTimes) {
      this.#logOnce(`time:${slotIndex}:${key}`, () =>
        this.#log.warn(
          { plcId: this.plcId, slotIndex, key },
          'alarm PLCTimeStamp is not a real date; its time fields are left out',
        ),
      );
    }
    for (const key of a.duplicateKeys) {
      this.#logOnce(`dup:${key}`, () =>
        this.#log.warn(
          { plcId: this.plcId, key },
          'alarm key held by more than one slot; one slot is listed',
        ),
      );
    }
  }

  #logOnce(id: string, write: () => void): void {
    if (this.#logged.has(id) || this.#logged.size >= maxLogged) return;
    this.#logged.add(id);
    write();
  }
}
