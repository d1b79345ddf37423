// Deletes samples, gaps and alarm transitions older than RetentionDays in the background, in chunks that keep
// each store call short so writes go on between them; notes the store's disk use per sample after each pass.
import { Gauge, type Registry } from 'prom-client';
import type { HistoryStore } from './store/types.ts';

/** Samples deleted per store call. */
export const retentionChunk = 10_000;
const dayMs = 86_400_000;

export class Retention {
  readonly #store: HistoryStore;
  readonly #days: number;
  readonly #now: () => number;
  readonly #bytesPerSample: Gauge;
  readonly #samples: Gauge;
  #running: Promise<number> | undefined;

  constructor(store: HistoryStore, days: number, now: () => number, metrics: Registry) {
    this.#store = store;
    this.#days = days;
    this.#now = now;
    this.#bytesPerSample = new Gauge({
      name: 'history_bytes_per_sample',
      help: 'Disk the history store uses per stored sample (after the last retention pass).',
      registers: [metrics],
    });
    this.#samples = new Gauge({
      name: 'history_stored_samples',
      help: 'Samples held by the history store (after the last retention pass).',
      registers: [metrics],
    });
  }

  /** One pass: deletes everything past retention chunk by chunk; answers how many samples went. */
  run(): Promise<number> {
    this.#running ??= this.#pass().finally(() => (this.#running = undefined));
    return this.#running;
  }

  async #pass(): Promise<number> {
    const before = this.#now() - this.#days * dayMs;
    let total = 0;
    for (;;) {
      const deleted = await this.#store.deleteBefore(before, retentionChunk);
      total += deleted;
      if (deleted < retentionChunk) break;
      // Lets the writer's flush (and everything else) run between chunks.
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    const { samples, bytes } = await this.#store.usage();
    this.#samples.set(samples);
    this.#bytesPerSample.set(samples === 0 ? 0 : bytes / samples);
    return total;
  }
}
