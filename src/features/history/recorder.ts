// Records the configured symbols of one PLC: each rides on the shared subscription clients use, is filtered by
// its mode (deadband, cycle, longest interval) and handed to the writer with the PLC's notification time; while
// the PLC is unreachable the interval is stored as a gap, and a symbol that vanished is picked up again.
import type { HistorySymbolConfig } from '../../config/schema.ts';
import { isAppError } from '../../errors.ts';
import { ValueFilter } from '../../feature-kit/value-filter.ts';
import type { ChangeEvent, ConnectionState, PlcTarget, PlcValue } from '../../targets/target.ts';
import type { HistoryStore, ValueKind } from './store/types.ts';
import { resolvePaths } from './symbol-paths.ts';
import { encode, kindOf } from './values.ts';
import type { HistoryWriter } from './writer.ts';

/** What the recorder needs of the shared subscriptions (the notifications feature's service). */
export interface ObserveSymbols {
  observe(
    target: PlcTarget,
    path: string,
    observer: {
      change(event: ChangeEvent): void;
      invalidated(error: { symbol: string; code: string; message: string }): void;
    },
  ): { ready: Promise<void>; release(): Promise<void> };
}

export interface RecorderLog {
  warn(fields: object, message: string): void;
  info(fields: object, message: string): void;
}

/** How long after a symbol vanished (or could not be subscribed) it is tried again. */
const retryMs = 5000;

interface Recorded {
  readonly symbol: string;
  readonly settings: HistorySymbolConfig;
  observation: { release(): Promise<void> } | undefined;
  kind: ValueKind | undefined;
  series: number | undefined;
  /** Made once per symbol: the series row is created on the first value. */
  seriesPending: Promise<void> | undefined;
  /** The newest value seen (recorded or not), for Cyclic and MaxIntervalSeconds. */
  current: ChangeEvent | undefined;
  /** The last value recorded and when: the deadband (an unchanged value is not recorded) and MaxIntervalSeconds. */
  readonly recorded: ValueFilter;
  /** When to try subscribing again; undefined while subscribed. */
  retryAt: number | undefined;
}

export class PlcRecorder {
  readonly #target: PlcTarget;
  readonly #entries: readonly HistorySymbolConfig[];
  readonly #observe: ObserveSymbols;
  readonly #store: HistoryStore;
  readonly #writer: HistoryWriter;
  readonly #now: () => number;
  readonly #log: RecorderLog;
  #symbols: Recorded[] | undefined;
  #up = false;
  #offState: (() => void) | undefined;
  #stopped = false;

  constructor(
    target: PlcTarget,
    entries: readonly HistorySymbolConfig[],
    deps: {
      observe: ObserveSymbols;
      store: HistoryStore;
      writer: HistoryWriter;
      now: () => number;
      log: RecorderLog;
    },
  ) {
    this.#target = target;
    this.#entries = entries;
    this.#observe = deps.observe;
    this.#store = deps.store;
    this.#writer = deps.writer;
    this.#now = deps.now;
    this.#log = deps.log;
  }

  get plcId(): string {
    return this.#target.id;
  }

  /**
   * Resolves the configured paths when the PLC is connected and answers their problems (start-up refuses to run
   * with any); a PLC not connected yet is resolved when it connects, and its problems are logged then.
   */
  async start(): Promise<string[]> {
    this.#offState = this.#target.onConnectionState((s) => this.#onState(s));
    this.#up = this.#target.connectionState() === 'Connected';
    if (!this.#up) {
      this.#writer.gap({ plcId: this.plcId, from: this.#now(), to: null, reason: 'unreachable' });
      return [];
    }
    this.#writer.closeGap(this.plcId, this.#now());
    const problems = await this.#resolve();
    if (problems.length === 0) this.#subscribeAll();
    return problems;
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#offState?.();
    await Promise.all((this.#symbols ?? []).map((s) => s.observation?.release() ?? Promise.resolve()));
  }

  /** Records cyclic symbols, repeats quiet ones (MaxIntervalSeconds) and retries vanished ones. */
  tick(): void {
    if (!this.#up || this.#symbols === undefined) return;
    const now = this.#now();
    for (const s of this.#symbols) {
      if (s.retryAt !== undefined) {
        if (now >= s.retryAt) this.#subscribe(s);
        continue;
      }
      const { Mode, CycleTimeMs, MaxIntervalSeconds } = s.settings;
      if (s.current === undefined) continue;
      if (Mode === 'Cyclic' && now - s.recorded.sentAt >= CycleTimeMs) this.#record(s, s.current.value, now);
      else if (MaxIntervalSeconds > 0 && s.recorded.due(now)) this.#record(s, s.current.value, now);
    }
  }

  async #resolve(): Promise<string[]> {
    const tree = await this.#target.symbols();
    const { found, problems } = resolvePaths(
      this.#entries.map((e) => e.Path),
      tree,
    );
    const bySymbol = new Map<string, Recorded>();
    found.forEach(({ path, symbols }) => {
      const settings = this.#entries.find((e) => e.Path === path);
      if (!settings) return;
      for (const symbol of symbols) {
        if (bySymbol.has(symbol.toUpperCase())) continue;
        bySymbol.set(symbol.toUpperCase(), {
          symbol,
          settings,
          observation: undefined,
          kind: undefined,
          series: undefined,
          seriesPending: undefined,
          current: undefined,
          recorded: new ValueFilter({
            deadband: settings.Deadband,
            maxIntervalMs: settings.MaxIntervalSeconds * 1000,
            skipEqual: true,
          }),
          retryAt: undefined,
        });
      }
    });
    this.#symbols = [...bySymbol.values()];
    return problems.map((p) => `History.Targets.${this.plcId}.Symbols: ${p}`);
  }

  #subscribeAll(): void {
    for (const s of this.#symbols ?? []) this.#subscribe(s);
  }

  #subscribe(s: Recorded): void {
    if (this.#stopped) return;
    s.retryAt = undefined;
    const observation = this.#observe.observe(this.#target, s.symbol, {
      change: (e) => this.#onChange(s, e),
      invalidated: (err) => {
        s.observation = undefined;
        // When it returns, its value is recorded again, whatever it was before.
        s.recorded.reset();
        s.current = undefined;
        s.retryAt = this.#now() + retryMs;
        this.#log.warn(
          { plcId: this.plcId, symbol: s.symbol, code: err.code },
          'recorded symbol vanished; recorded again when it returns',
        );
      },
    });
    s.observation = observation;
    observation.ready.catch((err: unknown) => {
      s.observation = undefined;
      s.retryAt = this.#now() + retryMs;
      const code = isAppError(err) ? err.code : 'INTERNAL_ERROR';
      if (code !== 'PLC_UNAVAILABLE') {
        this.#log.warn({ plcId: this.plcId, symbol: s.symbol, code }, 'recorded symbol cannot be subscribed');
      }
    });
  }

  #onChange(s: Recorded, e: ChangeEvent): void {
    s.current = e;
    if (s.kind === undefined) {
      const kind = kindOf(e.typeName, e.value);
      if (kind === undefined) {
        this.#log.warn(
          { plcId: this.plcId, symbol: s.symbol, type: e.typeName },
          'symbol type not recordable',
        );
        s.retryAt = Infinity;
        void s.observation?.release();
        return;
      }
      s.kind = kind;
    }
    if (s.settings.Mode === 'Cyclic') return;
    if (!s.recorded.passes(e.typeName, e.value)) return;
    this.#record(s, e.value, e.timestamp.getTime());
  }

  #record(s: Recorded, value: PlcValue, t: number): void {
    const kind = s.kind;
    if (kind === undefined) return;
    s.recorded.mark(s.current?.typeName ?? '', value, this.#now());
    if (s.series !== undefined) {
      const sample = encode(s.series, t, kind, value);
      if (sample) this.#writer.add(this.plcId, sample);
      return;
    }
    // The first value waits for its series row (one store round trip).
    s.seriesPending ??= this.#store
      .series(this.plcId, s.symbol, kind, s.current?.typeName ?? '', JSON.stringify(s.settings))
      .then((id) => {
        s.series = id;
      })
      .catch((err: unknown) => {
        s.seriesPending = undefined;
        this.#log.warn(
          { plcId: this.plcId, symbol: s.symbol, err: (err as Error).message },
          'history series',
        );
      });
    void s.seriesPending.then(() => {
      if (s.series === undefined) return;
      const sample = encode(s.series, t, kind, value);
      if (sample) this.#writer.add(this.plcId, sample);
    });
  }

  #onState(state: ConnectionState): void {
    const up = state === 'Connected';
    if (up === this.#up || this.#stopped) return;
    this.#up = up;
    const now = this.#now();
    if (!up) {
      this.#writer.gap({ plcId: this.plcId, from: now, to: null, reason: 'unreachable' });
      for (const s of this.#symbols ?? []) s.current = undefined;
      return;
    }
    this.#writer.closeGap(this.plcId, now);
    if (this.#symbols === undefined) {
      void this.#resolve().then(
        (problems) => {
          for (const p of problems) this.#log.warn({ plcId: this.plcId }, p);
          this.#subscribeAll();
        },
        (err: unknown) =>
          this.#log.warn({ plcId: this.plcId, err: (err as Error).message }, 'history symbols'),
      );
      return;
    }
    // A value changed while down is new again: the first notification after reconnecting is recorded.
    for (const s of this.#symbols) {
      s.recorded.reset();
      if (s.observation === undefined && s.retryAt !== Infinity) this.#subscribe(s);
    }
  }
}
