// The live values one PLC publishes: its symbol entries expanded while it is connected, each symbol held on the
// shared notification subscriptions (a symbol a stream client also watches costs the PLC one notification), the
// entry's rule applied (OnChange with Deadband and MaxIntervalSeconds, or Cyclic), and the PLC's coming and going
// reported as a birth with every value and a death.
import type { MqttSymbolEntryConfig } from '../../config/schema.ts';
import type { StreamEvent } from '../../http/streams/outbox.ts';
import { ValueFilter } from '../../feature-kit/value-filter.ts';
import type { PlcTarget, PlcValue } from '../../targets/target.ts';
import type { Membership, SharedSubscriptions, SymbolClient } from '../notifications/index.ts';
import { sparkplugTypeOf, type SparkplugType } from './datatypes.ts';
import { expandEntries } from './symbol-entries.ts';

export interface FeedMetric {
  /** The symbol path as the PLC's symbol tree spells it. */
  readonly path: string;
  readonly typeName: string;
  type: SparkplugType;
  readonly entry: MqttSymbolEntryConfig;
  value: PlcValue | undefined;
  /** Milliseconds since the epoch of the value (PLC time where the driver has it). */
  timestamp: number;
  /** What was last published, for the deadband and the longest interval (the entry's rule). */
  readonly published: ValueFilter;
}

export interface FeedChange {
  readonly metric: FeedMetric;
  readonly value: PlcValue;
  readonly timestamp: number;
}

export interface FeedSink {
  /** The PLC is reachable and every value was read (or the birth timeout passed): the full set. */
  online(metrics: readonly FeedMetric[]): void;
  changes(changes: readonly FeedChange[]): void;
  /** The PLC became unreachable after an `online`. */
  offline(): void;
}

export interface FeedLog {
  warn(fields: Record<string, unknown>, message: string): void;
}

export interface FeedOptions {
  readonly entries: readonly MqttSymbolEntryConfig[];
  readonly birthTimeoutMs: number;
  /** Most symbols one PLC publishes. */
  readonly maxSymbols: number;
  readonly now: () => number;
  readonly log: FeedLog;
}

let feeds = 0;

interface ChangeData {
  symbol: string;
  value: PlcValue;
  timestamp: string;
}

export class PlcFeed implements SymbolClient {
  // Negative: never equal to a stream session's id (those count up from 1).
  readonly receiverId = -++feeds;
  readonly #target: PlcTarget;
  readonly #shared: SharedSubscriptions;
  readonly #sink: FeedSink;
  readonly #options: FeedOptions;
  #metrics = new Map<string, FeedMetric>();
  #memberships: Membership[] = [];
  #timers: NodeJS.Timeout[] = [];
  /** Bumped at every (re)start and stop, so a birth still being prepared for an old one is dropped. */
  #generation = 0;
  #born = false;
  #stopConnection: (() => void) | undefined;
  /** While a birth waits for first values: told of each delivery. */
  #valueArrived: (() => void) | undefined;

  constructor(target: PlcTarget, shared: SharedSubscriptions, sink: FeedSink, options: FeedOptions) {
    this.#target = target;
    this.#shared = shared;
    this.#sink = sink;
    this.#options = options;
  }

  get plcId(): string {
    return this.#target.id;
  }

  get born(): boolean {
    return this.#born;
  }

  /** Metrics of the last birth, with their current values. */
  metrics(): readonly FeedMetric[] {
    return [...this.#metrics.values()];
  }

  start(): void {
    this.#stopConnection = this.#target.onConnectionState((state) => {
      if (state === 'Connected') void this.#begin();
      else this.#end();
    });
    if (this.#target.connectionState() === 'Connected') void this.#begin();
  }

  async stop(): Promise<void> {
    this.#stopConnection?.();
    this.#generation += 1;
    this.#born = false;
    await this.#release();
  }

  receive(events: readonly StreamEvent[]): void {
    const changes: FeedChange[] = [];
    for (const e of events) {
      if (e.name !== 'change') continue;
      const data = JSON.parse(e.data) as ChangeData;
      const metric = this.#metrics.get(data.symbol.toUpperCase());
      if (metric === undefined) continue;
      const timestamp = Date.parse(data.timestamp);
      if (metric.value === undefined) metric.type = sparkplugTypeOf(metric.typeName, data.value);
      metric.value = data.value;
      metric.timestamp = timestamp;
      if (!this.#born || metric.entry.Mode !== 'OnChange') continue;
      if (!metric.published.passes(metric.typeName, data.value)) continue;
      changes.push(this.#mark(metric, data.value, timestamp));
    }
    if (changes.length > 0) this.#sink.changes(changes);
    this.#valueArrived?.();
  }

  invalidated(): void {
    // A program download removed a symbol: the set is expanded again, and born again.
    if (this.#target.connectionState() === 'Connected') void this.#begin();
  }

  #mark(metric: FeedMetric, value: PlcValue, timestamp: number): FeedChange {
    metric.published.mark(metric.typeName, value, this.#options.now());
    return { metric, value, timestamp };
  }

  async #begin(): Promise<void> {
    const generation = ++this.#generation;
    if (this.#born) {
      this.#born = false;
      this.#sink.offline();
    }
    await this.#release();
    let tree;
    try {
      tree = await this.#target.symbols();
    } catch {
      return; // Down again: the next connection starts over.
    }
    if (generation !== this.#generation) return;
    const { symbols, unmatched, truncated } = expandEntries(
      this.#options.entries,
      tree,
      this.#options.maxSymbols,
    );
    const plcId = this.#target.id;
    if (unmatched.length > 0)
      this.#options.log.warn({ plcId, unmatched }, 'MQTT symbol entries match nothing');
    if (truncated) {
      this.#options.log.warn(
        { plcId, limit: this.#options.maxSymbols },
        'MQTT symbol entries select more symbols than the limit; the rest are not published',
      );
    }
    const metrics = new Map<string, FeedMetric>();
    for (const s of symbols) {
      metrics.set(s.path.toUpperCase(), {
        path: s.path,
        typeName: s.typeName,
        type: sparkplugTypeOf(s.typeName, undefined),
        entry: s.entry,
        value: undefined,
        timestamp: 0,
        published: new ValueFilter({
          deadband: s.entry.Deadband,
          maxIntervalMs: s.entry.MaxIntervalSeconds * 1000,
        }),
      });
    }
    this.#metrics = metrics;
    const ready: Array<Promise<void>> = [];
    for (const m of metrics.values()) {
      const joined = this.#shared.join(m.path, this);
      this.#memberships.push(joined.membership);
      ready.push(
        joined.ready.catch((err: unknown) => {
          metrics.delete(m.path.toUpperCase());
          this.#options.log.warn(
            { plcId, symbol: m.path, error: err instanceof Error ? err.message : String(err) },
            'MQTT symbol cannot be subscribed',
          );
        }),
      );
    }
    await Promise.all(ready);
    await this.#firstValues(metrics, generation);
    if (generation !== this.#generation || this.#target.connectionState() !== 'Connected') return;
    const now = this.#options.now();
    for (const m of metrics.values()) {
      if (m.value === undefined) m.published.reset();
      else m.published.mark(m.typeName, m.value, now);
    }
    this.#born = true;
    this.#sink.online([...metrics.values()]);
    this.#startTimers(generation);
  }

  /** Resolves once every metric holds a value, or after the birth timeout. */
  #firstValues(metrics: Map<string, FeedMetric>, generation: number): Promise<void> {
    const missing = (): boolean => [...metrics.values()].some((m) => m.value === undefined);
    if (!missing()) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.#valueArrived = undefined;
        resolve();
      };
      const timer = setTimeout(done, this.#options.birthTimeoutMs);
      timer.unref();
      this.#valueArrived = () => {
        if (!missing() || generation !== this.#generation) done();
      };
    });
  }

  #startTimers(generation: number): void {
    const cyclic = new Map<number, FeedMetric[]>();
    const heartbeat: FeedMetric[] = [];
    for (const m of this.#metrics.values()) {
      if (m.entry.Mode === 'Cyclic') {
        const list = cyclic.get(m.entry.CycleTimeMs) ?? [];
        list.push(m);
        cyclic.set(m.entry.CycleTimeMs, list);
      } else if (m.entry.MaxIntervalSeconds > 0) heartbeat.push(m);
    }
    const live = (): boolean => generation === this.#generation && this.#born;
    for (const [cycleMs, list] of cyclic) {
      const timer = setInterval(() => {
        if (!live()) return;
        const now = this.#options.now();
        const out = list.flatMap((m) => (m.value === undefined ? [] : [this.#mark(m, m.value, now)]));
        if (out.length > 0) this.#sink.changes(out);
      }, cycleMs);
      timer.unref();
      this.#timers.push(timer);
    }
    if (heartbeat.length > 0) {
      const timer = setInterval(() => {
        if (!live()) return;
        const now = this.#options.now();
        const due = heartbeat.filter((m) => m.value !== undefined && m.published.due(now));
        const out = due.map((m) => this.#mark(m, m.value as PlcValue, now));
        if (out.length > 0) this.#sink.changes(out);
      }, 250);
      timer.unref();
      this.#timers.push(timer);
    }
  }

  #end(): void {
    this.#generation += 1;
    this.#valueArrived?.();
    if (this.#born) {
      this.#born = false;
      this.#sink.offline();
    }
    void this.#release();
  }

  async #release(): Promise<void> {
    for (const t of this.#timers) clearInterval(t);
    this.#timers = [];
    const held = this.#memberships;
    this.#memberships = [];
    await Promise.all(held.map((m) => m.release().catch(() => undefined)));
  }
}
