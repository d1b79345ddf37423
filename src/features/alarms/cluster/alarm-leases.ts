// Alarm monitoring across replicas: the source of each monitored PLC (see LeasedAlarmSource), the one pump
// of their journal streams, the lease figures, and who holds each lease for the `cluster` readiness check.
import type { Registry } from 'prom-client';
import type { AlarmSourceFactory } from '../alarm-source.ts';
import type { AlarmLog } from '../monitor.ts';
import { AlarmLeaseMetrics } from './alarm-lease-metrics.ts';
import { alarmKeys } from './alarm-scripts.ts';
import type { Cluster } from '../../../cluster/cluster.ts';
import { JournalPump } from './journal-pump.ts';
import { LeaseRounds } from '../../../cluster/lease-rounds.ts';
import { LeasedAlarmSource } from './leased-alarm-source.ts';

export class AlarmLeases {
  readonly #cluster: Cluster;
  readonly #pump: JournalPump;
  readonly #rounds: LeaseRounds;
  readonly #metrics: AlarmLeaseMetrics;
  readonly #plcIds = new Set<string>();

  constructor(cluster: Cluster, registry: Registry, log: AlarmLog) {
    this.#cluster = cluster;
    this.#pump = new JournalPump(cluster.link, log);
    this.#rounds = new LeaseRounds(cluster, log, { name: 'alarm', offer: true });
    this.#metrics = new AlarmLeaseMetrics(registry);
  }

  /** The alarm service's sources in cluster mode. */
  sources(deps: { log: AlarmLog; now: () => number }): AlarmSourceFactory {
    return (target, settings) => {
      this.#plcIds.add(target.id);
      return new LeasedAlarmSource(target, settings, {
        cluster: this.#cluster,
        pump: this.#pump,
        rounds: this.#rounds,
        metrics: this.#metrics,
        ...deps,
      });
    };
  }

  /** plcId -> the ReplicaId holding its lease, for monitored PLCs whose lease is held. */
  async holders(): Promise<Record<string, string>> {
    const ids = [...this.#plcIds].sort();
    if (ids.length === 0) return {};
    const values = await this.#cluster.link.run('alarm-lease', (r) =>
      r.mget(ids.map((id) => alarmKeys(id).lease)),
    );
    const holders: Record<string, string> = {};
    ids.forEach((id, i) => {
      const value = values[i];
      if (value) holders[id] = value.slice(value.indexOf('|') + 1);
    });
    return holders;
  }

  async stop(): Promise<void> {
    await this.#rounds.stop();
    await this.#pump.stop();
  }
}
