// The write side of the historian: a bounded buffer of samples, gaps and alarm transitions, flushed to the store
// in one batch at most FlushIntervalMs after a sample arrived. A slow or unreachable store never blocks the
// gateway: a sample that does not fit is dropped (the newest: what is held stays contiguous), counted, and stored
// as a gap once the store answers again.
import { Counter, Gauge, type Registry } from 'prom-client';
import type { AlarmRecord, GapRecord, HistoryStore, StoredSample, WriteBatch } from './store/types.ts';

export interface WriterLog {
  warn(fields: object, message: string): void;
  info(fields: object, message: string): void;
}

export interface WriterOptions {
  readonly store: HistoryStore;
  readonly flushIntervalMs: number;
  readonly bufferLength: number;
  readonly log: WriterLog;
  readonly metrics: Registry;
  /** Runs `flush` every `ms`; returns a stop. Tests flush by hand. */
  readonly every?: (flush: () => void, ms: number) => () => void;
}

const timer = (flush: () => void, ms: number): (() => void) => {
  const t = setInterval(flush, ms);
  t.unref();
  return () => clearInterval(t);
};

export class HistoryWriter {
  readonly #store: HistoryStore;
  readonly #bufferLength: number;
  readonly #log: WriterLog;
  readonly #stop: () => void;
  #samples: StoredSample[] = [];
  #samplePlcs: string[] = [];
  #gaps: GapRecord[] = [];
  #closeGaps: Array<{ plcId: string; at: number }> = [];
  #alarms: AlarmRecord[] = [];
  /** Per PLC: the span of samples dropped since the last flush, stored as an `overflow` gap. */
  readonly #overflow = new Map<string, { from: number; to: number }>();
  #writing: Promise<void> | undefined;
  /** Samples of the batch being written: they come back if the write fails, so they count against the bound. */
  #inFlight = 0;
  #failing = false;
  readonly #written: Counter;
  readonly #dropped: Counter;
  readonly #errors: Counter;
  readonly #buffered: Gauge;

  constructor(options: WriterOptions) {
    this.#store = options.store;
    this.#bufferLength = options.bufferLength;
    this.#log = options.log;
    const registers = [options.metrics];
    this.#written = new Counter({
      name: 'history_samples_written_total',
      help: 'Samples written to the history store.',
      registers,
    });
    this.#dropped = new Counter({
      name: 'history_samples_dropped_total',
      help: 'Samples dropped because the history buffer was full (the store slow or down); stored as gaps.',
      registers,
    });
    this.#errors = new Counter({
      name: 'history_store_errors_total',
      help: 'Failed writes to the history store (retried with the next flush).',
      registers,
    });
    this.#buffered = new Gauge({
      name: 'history_buffered_samples',
      help: 'Samples waiting in the history buffer.',
      registers,
      collect: () => this.#buffered.set(this.#samples.length),
    });
    this.#stop = (options.every ?? timer)(() => void this.flush(), options.flushIntervalMs);
  }

  /** Whether the last write failed (the store is down). */
  get failing(): boolean {
    return this.#failing;
  }

  add(plcId: string, sample: StoredSample): void {
    if (this.#samples.length + this.#inFlight >= this.#bufferLength) {
      this.#drop(plcId, sample.t, sample.t);
      return;
    }
    this.#samples.push(sample);
    this.#samplePlcs.push(plcId);
  }

  gap(gap: GapRecord): void {
    this.#gaps.push(gap);
  }

  closeGap(plcId: string, at: number): void {
    // A gap opened in this batch is closed in it; an older one is closed in the store.
    const open = this.#gaps.findIndex((g) => g.plcId === plcId && g.to === null);
    if (open >= 0) {
      const g = this.#gaps[open];
      if (g) this.#gaps[open] = { ...g, to: at };
      return;
    }
    this.#closeGaps.push({ plcId, at });
  }

  alarm(record: AlarmRecord): void {
    // Transitions are few; the bound only matters while the store is down for a long time.
    if (this.#alarms.length < this.#bufferLength) this.#alarms.push(record);
  }

  /** Writes what is buffered; resolves when it is written or has failed (then it is kept for the next flush). */
  flush(): Promise<void> {
    this.#writing ??= this.#write().finally(() => (this.#writing = undefined));
    return this.#writing;
  }

  /** Stops the timer and writes what is buffered (graceful shutdown). */
  async close(): Promise<void> {
    this.#stop();
    await this.#writing;
    await this.flush();
  }

  #drop(plcId: string, from: number, to: number): void {
    this.#dropped.inc();
    const span = this.#overflow.get(plcId);
    if (span === undefined) this.#overflow.set(plcId, { from, to });
    else this.#overflow.set(plcId, { from: Math.min(span.from, from), to: Math.max(span.to, to) });
  }

  async #write(): Promise<void> {
    const overflow = [...this.#overflow].map(([plcId, span]): GapRecord => ({
      plcId,
      from: span.from,
      to: span.to,
      reason: 'overflow',
    }));
    this.#overflow.clear();
    const batch: WriteBatch = {
      samples: this.#samples,
      gaps: [...this.#gaps, ...overflow],
      closeGaps: this.#closeGaps,
      alarms: this.#alarms,
    };
    const plcs = this.#samplePlcs;
    if (batch.samples.length + batch.gaps.length + batch.closeGaps.length + batch.alarms.length === 0) return;
    this.#samples = [];
    this.#samplePlcs = [];
    this.#gaps = [];
    this.#closeGaps = [];
    this.#alarms = [];
    this.#inFlight = batch.samples.length;
    try {
      await this.#store.write(batch);
      this.#written.inc(batch.samples.length);
      if (this.#failing) this.#log.info({}, 'history store writes again');
      this.#failing = false;
    } catch (err) {
      this.#errors.inc();
      if (!this.#failing)
        this.#log.warn({ err: (err as Error).message }, 'history store write failed; retrying');
      this.#failing = true;
      this.#requeue(batch, plcs);
    } finally {
      this.#inFlight = 0;
    }
  }

  /** Puts a failed batch back before what arrived meanwhile, dropping the oldest samples beyond the bound. */
  #requeue(batch: WriteBatch, plcs: readonly string[]): void {
    const samples = [...batch.samples, ...this.#samples];
    const owners = [...plcs, ...this.#samplePlcs];
    const excess = samples.length - this.#bufferLength;
    for (let i = 0; i < excess; i++) {
      const s = samples[i];
      const plcId = owners[i];
      if (s !== undefined && plcId !== undefined) this.#drop(plcId, s.t, s.t);
    }
    const keep = Math.max(0, excess);
    this.#samples = samples.slice(keep);
    this.#samplePlcs = owners.slice(keep);
    // Overflow gaps of the failed batch come back through #overflow's spans only when re-dropped: keep them.
    this.#gaps = [...batch.gaps, ...this.#gaps];
    this.#closeGaps = [...batch.closeGaps, ...this.#closeGaps];
    this.#alarms = [...batch.alarms, ...this.#alarms].slice(-this.#bufferLength);
  }
}
