// MQTT in cluster mode: one replica publishes each PLC, the one holding the PLC's MQTT lease (the cluster's lease
// mechanism, as alarm monitoring uses it, without handing leases to the senior: a lease stays with its holder until
// it dies, stops or loses the PLC, so two replicas never publish one PLC at once). Each PLC's feed reports through a
// gate: the publisher sees the PLC online only while this replica holds the lease and the feed has its values, so
// taking the lease publishes a fresh birth and losing it a death. A holder whose lease was not renewed within its
// time to live (Redis out of reach) stops publishing before any other replica can have taken the lease.
import type { Cluster } from '../../../cluster/cluster.ts';
import { Lease } from '../../../cluster/lease.ts';
import { LeaseRounds } from '../../../cluster/lease-rounds.ts';
import { leaseKeys } from '../../../cluster/lease-scripts.ts';
import type { ClusterLog } from '../../../cluster/redis-link.ts';
import type { PlcTarget } from '../../../targets/target.ts';
import type { FeedChange, FeedMetric, FeedSink } from '../plc-feed.ts';

/** What the publisher does when this replica takes or gives up a PLC (JSON mode: its own MQTT session). */
export interface GateHooks {
  /** The lease is taken; called before the birth. */
  taken?(): Promise<void> | void;
  /** The lease is lost; `sink.offline()` was called first when the PLC had been born. */
  given?(): Promise<void> | void;
  /** Whether losing the lease publishes the PLC's death (Sparkplug DDEATH); JSON mode leaves `$state` alone. */
  readonly deathOnLoss: boolean;
}

/** The feed sink of one PLC in cluster mode: passes the feed on to `sink` while this replica holds the lease. */
export class LeaseGate implements FeedSink {
  readonly plcId: string;
  readonly #sink: FeedSink;
  readonly #hooks: GateHooks;
  readonly #log: ClusterLog;
  readonly lease: Lease;
  /** The feed's metrics while it is born (their values kept current by the feed). */
  #metrics: readonly FeedMetric[] | undefined;
  /** The publisher was told the PLC is online (and not since that it is offline). */
  #forwarded = false;
  #fence: NodeJS.Timeout | undefined;

  constructor(target: PlcTarget, cluster: Cluster, sink: FeedSink, hooks: GateHooks, log: ClusterLog) {
    this.plcId = target.id;
    this.#sink = sink;
    this.#hooks = hooks;
    this.#log = log;
    this.lease = new Lease(
      'mqtt',
      cluster.link,
      leaseKeys('mqtt', target.id),
      cluster.replicaId,
      cluster.leaseMs,
      {
        canHold: () => target.connectionState() === 'Connected',
        acquired: () => this.#acquired(),
        lost: (reason) => this.#lost(reason),
      },
      log,
    );
  }

  /** This replica publishes the PLC now (holds its lease and the PLC is born). */
  get publishing(): boolean {
    return this.#forwarded;
  }

  online(metrics: readonly FeedMetric[]): void {
    this.#metrics = metrics;
    if (this.lease.held && this.#safe()) this.#birth();
  }

  changes(changes: readonly FeedChange[]): void {
    if (this.#forwarded && this.#safe()) this.#sink.changes(changes);
  }

  offline(): void {
    this.#metrics = undefined;
    if (!this.#forwarded) return;
    this.#forwarded = false;
    this.#sink.offline();
  }

  #birth(): void {
    const metrics = this.#metrics;
    if (metrics === undefined) return;
    this.#forwarded = true;
    this.#sink.online(metrics);
  }

  async #acquired(): Promise<void> {
    this.#log.info({ plcId: this.plcId }, 'MQTT lease acquired: this replica publishes the PLC');
    await this.#hooks.taken?.();
    this.#birth();
    this.#watchFence();
  }

  async #lost(reason: string): Promise<void> {
    clearTimeout(this.#fence);
    this.#log.info({ plcId: this.plcId, reason }, 'MQTT lease given up: another replica may publish the PLC');
    if (this.#forwarded) {
      this.#forwarded = false;
      if (this.#hooks.deathOnLoss) this.#sink.offline();
    }
    await this.#hooks.given?.();
  }

  /**
   * Whether the lease is surely still this replica's. Past its time to live without a renewal another replica may
   * hold it: this one stops publishing at once (the lease is dropped; the next round takes it again when Redis
   * still names this replica).
   */
  #safe(): boolean {
    if (Date.now() < this.lease.safeUntil) return true;
    void this.lease.drop('the lease was not renewed within its time to live');
    return false;
  }

  /** Checks the lease when its time to live runs out, so a quiet PLC also stops being published in time. */
  #watchFence(): void {
    clearTimeout(this.#fence);
    if (!this.lease.held) return;
    const left = this.lease.safeUntil - Date.now();
    if (left > 0) {
      this.#fence = setTimeout(() => this.#watchFence(), left);
      this.#fence.unref();
    } else void this.lease.drop('the lease was not renewed within its time to live');
  }
}

/** Every PLC's MQTT lease of this replica, in one set of rounds. */
export class PublishLeases {
  readonly #cluster: Cluster;
  readonly #log: ClusterLog;
  readonly #rounds: LeaseRounds;
  readonly #gates: LeaseGate[] = [];

  constructor(cluster: Cluster, log: ClusterLog) {
    this.#cluster = cluster;
    this.#log = log;
    this.#rounds = new LeaseRounds(cluster, log, { name: 'mqtt', offer: false });
  }

  get replicaId(): string {
    return this.#cluster.replicaId;
  }

  gate(target: PlcTarget, sink: FeedSink, hooks: GateHooks): LeaseGate {
    const gate = new LeaseGate(target, this.#cluster, sink, hooks, this.#log);
    this.#gates.push(gate);
    return gate;
  }

  start(): void {
    for (const g of this.#gates) this.#rounds.add(g.lease);
  }

  /** Releases every lease (each PLC is born at once on the next replica) and leaves the lease members. */
  async stop(): Promise<void> {
    await this.#rounds.stop();
  }
}
