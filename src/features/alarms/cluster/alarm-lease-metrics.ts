// Lease figures in /metrics: leases this replica holds, takeovers it made, and how long each took, from the
// previous holder's last renewal (its death, within a renewal period) to the new holder's first append; and the
// journal entries and snapshots read from Redis that this replica rejected (not of the shape the holder writes).
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

export class AlarmLeaseMetrics {
  readonly #held = new Set<string>();
  readonly #takeovers: Counter;
  readonly #takeoverSeconds: Histogram;
  readonly #rejected: Counter<'plcId' | 'kind'>;

  constructor(registry: Registry) {
    const held = this.#held;
    new Gauge({
      name: 'cluster_alarm_leases_held',
      help: 'Alarm leases this replica holds (PLCs whose alarm array it watches).',
      registers: [registry],
      collect() {
        this.set(held.size);
      },
    });
    this.#takeovers = new Counter({
      name: 'cluster_alarm_lease_takeovers_total',
      help: 'Alarm leases this replica took over from another replica whose lease expired.',
      registers: [registry],
    });
    this.#takeoverSeconds = new Histogram({
      name: 'cluster_alarm_takeover_seconds',
      help: "From the previous holder's last lease renewal to this replica's first journal append as the new holder.",
      buckets: [0.25, 0.5, 1, 2, 3, 5, 10, 30],
      registers: [registry],
    });
    this.#rejected = new Counter({
      name: 'alarm_journal_rejected_total',
      help: 'Alarm journal values read from Redis and rejected as not of the shape the holder writes, by kind: entry (left out of the journal) or snapshot (taken as absent).',
      labelNames: ['plcId', 'kind'],
      registers: [registry],
    });
  }

  /** PLCs whose lease this replica holds, sorted. */
  heldPlcs(): string[] {
    return [...this.#held].sort();
  }

  held(plcId: string, holding: boolean): void {
    if (holding) this.#held.add(plcId);
    else this.#held.delete(plcId);
  }

  rejected(plcId: string, kind: 'entry' | 'snapshot'): void {
    this.#rejected.inc({ plcId, kind });
  }

  tookOver(seconds: number): void {
    this.#takeovers.inc();
    this.#takeoverSeconds.observe(seconds);
  }
}
