// Drives every lease of one kind (alarm, mqtt) of this replica in one round, five times per lease time, and gathers the leases on one
// replica: what coordination costs grows with the number of holders, not of PLCs (each holder runs an append script
// every journal round and Redis pushes its message to every replica), so one holder costs the cluster least. Each
// round marks this replica in the lease members and learns its rank among the live ones by seniority (when each
// joined). The senior (rank 0) takes every free lease and every lease offered to it; any other replica takes a
// free lease only once it has stayed free for `rank` grace times (the replicas above it cannot reach that PLC), so
// a PLC goes to the most senior replica that reaches it, and offers the leases it holds to the senior, which takes
// them over (fencing it) once it reaches those PLCs; the offering replica keeps watching until then and the senior
// goes on from the stored journal, so nothing is raised twice or missed and no lease is left unwatched. A replica
// that dies leaves the members as its leases expire, so the next in rank is the senior in time to take them within
// the lease time; one that comes back joins as the most junior, so the leases do not move back and forth. Without
// `offer` (a holder must not overlap with the next one, as when both would publish), a lease stays with its holder
// until it dies, stops or cannot hold it, and only free leases gather on the senior.
import type { Lease } from './lease.ts';
import { leaseTimes } from './lease.ts';
import { leaseRound } from './lease-scripts.ts';
import { clusterKey, type Cluster } from './cluster.ts';
import type { ClusterLog } from './redis-link.ts';

export interface LeaseRoundsOptions {
  /** The kind of lease: `alarm`, `mqtt` (its members keys, Redis command figures and log lines). */
  readonly name: string;
  /** Whether a replica below the senior offers the leases it holds to the senior. */
  readonly offer: boolean;
}

export class LeaseRounds {
  readonly #cluster: Cluster;
  readonly #log: ClusterLog;
  readonly #tickMs: number;
  /** A member counts while its last round is this recent: a little less than a lease lives. */
  readonly #windowMs: number;
  readonly #leases: Lease[] = [];
  readonly #name: string;
  readonly #offer: boolean;
  readonly #members: readonly [string, string, string];
  /** Live members that joined before this replica, as of the last round that counted them. */
  #rank: number | undefined;
  #timer: NodeJS.Timeout | undefined;
  #soon: NodeJS.Immediate | undefined;
  #running: Promise<void> | undefined;
  #stopped = false;

  constructor(cluster: Cluster, log: ClusterLog, options: LeaseRoundsOptions) {
    this.#cluster = cluster;
    this.#log = log;
    this.#name = options.name;
    this.#offer = options.offer;
    const members = `${options.name}-members`;
    this.#members = [clusterKey(members), clusterKey(members, 'joined'), clusterKey(members, 'joins')];
    const { ttlMs, tickMs } = leaseTimes(cluster.leaseMs);
    this.#tickMs = tickMs;
    this.#windowMs = ttlMs - Math.round(tickMs / 2);
  }

  /** Takes part in the rounds from the next one (which comes at once). */
  add(lease: Lease): void {
    this.#leases.push(lease);
    if (this.#timer === undefined) {
      this.#timer = setInterval(() => void this.round(), this.#tickMs);
      this.#timer.unref();
    }
    // Sources starting together share their first round.
    this.#soon ??= setImmediate(() => {
      this.#soon = undefined;
      void this.round();
    });
  }

  /** Leaves the rounds (the source stops): the lease is released. */
  async remove(lease: Lease): Promise<void> {
    const i = this.#leases.indexOf(lease);
    if (i >= 0) this.#leases.splice(i, 1);
    await lease.stop();
  }

  /** One round over every lease; concurrent calls share one. */
  round(): Promise<void> {
    this.#running ??= this.#round().finally(() => (this.#running = undefined));
    return this.#running;
  }

  /** Stops the rounds, releases every lease and leaves the members, so the next in rank takes them at once. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#timer);
    if (this.#soon !== undefined) clearImmediate(this.#soon);
    await this.#running;
    const [membersKey, joinedKey] = this.#members;
    await this.#cluster.link
      .run(`${this.#name}-lease`, (r) =>
        r.multi().zrem(membersKey, this.#cluster.replicaId).zrem(joinedKey, this.#cluster.replicaId).exec(),
      )
      .catch(() => undefined);
    await Promise.all(this.#leases.map((lease) => lease.stop()));
  }

  async #round(): Promise<void> {
    if (this.#stopped) return;
    try {
      const rank = (await this.#cluster.link.eval(
        `${this.#name}-lease`,
        leaseRound,
        [...this.#members],
        [this.#cluster.replicaId, this.#windowMs],
      )) as number;
      if (rank !== this.#rank)
        this.#log.info(
          { rank },
          rank === 0
            ? `${this.#name} leases gather on this replica (the senior of the lease members)`
            : `${this.#name} leases: this replica takes a PLC only when the replicas above it cannot reach it`,
        );
      this.#rank = rank;
    } catch (err) {
      // The lease rounds below fail the same way and say so; the last rank stands meanwhile.
      this.#log.warn({ err: (err as Error).message }, `${this.#name} lease members not counted`);
    }
    // Until a round has counted the members, as the senior: free leases are free, offered ones have a holder.
    const rank = this.#rank ?? 0;
    const standing = { senior: rank === 0, graceMs: rank * 2 * this.#tickMs };
    // Below the senior, a held lease is offered to it at every renewal (where leases are offered).
    await Promise.all(this.#leases.map((lease) => lease.tick(standing, this.#offer && rank > 0)));
  }
}
