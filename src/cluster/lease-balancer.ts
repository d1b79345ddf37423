// Drives every alarm lease of this replica in one round, five times per lease time, and spreads the leases over
// the replicas: each round marks this replica in a sorted set of the replicas taking part, learns how many did
// within the lease's time to live, and lets this replica take free leases only up to its fair share,
// ceil(PLCs / replicas), and free leases beyond it only once they have stayed free for a grace time (no other
// replica took them: the others cannot reach the PLC). One holding more offers one lease per round and keeps
// watching until a replica below its share takes it over (fencing it) and goes on from the stored journal, so
// nothing is raised twice or missed and no lease is left unwatched. A replica that dies leaves the set as its
// leases expire, so the survivors' shares grow in time to take them within the lease time.
import type { AlarmLease } from './alarm-lease.ts';
import { leaseTimes, type LeaseShare } from './alarm-lease.ts';
import { leaseRound } from './alarm-scripts.ts';
import { clusterKey, type Cluster } from './cluster.ts';
import type { ClusterLog } from './redis-link.ts';

const membersKey = clusterKey('alarm-members');

class FairShare implements LeaseShare {
  #room: number;

  constructor(room: number) {
    this.#room = room;
  }

  get room(): number {
    return this.#room;
  }

  claim(): boolean {
    if (this.#room <= 0) return false;
    this.#room -= 1;
    return true;
  }

  unclaim(): void {
    this.#room += 1;
  }
}

export class LeaseBalancer {
  readonly #cluster: Cluster;
  readonly #log: ClusterLog;
  readonly #tickMs: number;
  /** A member counts while its last round is this recent: a little less than a lease lives. */
  readonly #windowMs: number;
  readonly #leases: AlarmLease[] = [];
  #replicas = 1;
  #timer: NodeJS.Timeout | undefined;
  #soon: NodeJS.Immediate | undefined;
  #running: Promise<void> | undefined;
  #stopped = false;

  constructor(cluster: Cluster, log: ClusterLog) {
    this.#cluster = cluster;
    this.#log = log;
    const { ttlMs, tickMs } = leaseTimes(cluster.leaseMs);
    this.#tickMs = tickMs;
    this.#windowMs = ttlMs - Math.round(tickMs / 2);
  }

  /** Takes part in the rounds from the next one (which comes at once). */
  add(lease: AlarmLease): void {
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
  async remove(lease: AlarmLease): Promise<void> {
    const i = this.#leases.indexOf(lease);
    if (i >= 0) this.#leases.splice(i, 1);
    await lease.stop();
  }

  /** One round over every lease; concurrent calls share one. */
  round(): Promise<void> {
    this.#running ??= this.#round().finally(() => (this.#running = undefined));
    return this.#running;
  }

  /** Stops the rounds, releases every lease and leaves the set, so the others share the leases at once. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#timer);
    if (this.#soon !== undefined) clearImmediate(this.#soon);
    await this.#running;
    await Promise.all(this.#leases.map((lease) => lease.stop()));
    await this.#cluster.link
      .run('alarm-lease', (r) => r.zrem(membersKey, this.#cluster.replicaId))
      .catch(() => undefined);
  }

  async #round(): Promise<void> {
    if (this.#stopped) return;
    try {
      const replicas = (await this.#cluster.link.eval(
        'alarm-lease',
        leaseRound,
        [membersKey],
        [this.#cluster.replicaId, this.#windowMs],
      )) as number;
      this.#replicas = Math.max(1, replicas);
    } catch (err) {
      // The lease rounds below fail the same way and say so; the last count stands meanwhile.
      this.#log.warn({ err: (err as Error).message }, 'alarm lease members not counted');
    }
    const fair = Math.ceil(this.#leases.length / this.#replicas);
    const held = this.#leases.filter((lease) => lease.held).length;
    const offered = held > fair ? this.#leases.findLast((lease) => lease.held) : undefined;
    const share = new FairShare(fair - Math.min(held, fair));
    const rounds = this.#leases.filter((l) => l.held).map((lease) => lease.tick(share, lease === offered));
    // While there is room, one lease after the other, so a lease that is not free gives its place back before
    // the next one tries; then the rest only look (and wait out the grace time).
    for (const lease of this.#leases.filter((l) => !l.held)) {
      if (share.room > 0) await lease.tick(share);
      else rounds.push(lease.tick(share));
    }
    await Promise.all(rounds);
  }
}
