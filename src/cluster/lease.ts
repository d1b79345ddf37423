// One resource's lease (a PLC's alarm monitoring, a PLC's MQTT publishing) as seen from this replica: tried for
// while the replica can hold it (it reaches the PLC) and is the senior of the lease members (or when the lease has
// stayed free for its rank's grace time: the replicas above this one cannot reach the PLC), renewed while held,
// released when the PLC is out of reach or the replica stops, offered to the senior replica, and reported lost as
// soon as Redis says another replica holds it (or Redis has been unreachable for the lease's whole time to live).
// The rounds are driven by LeaseRounds.
import { acquireLease, releaseLease, renewLease, type LeaseKeys } from './lease-scripts.ts';
import type { ClusterLog, RedisLink } from './redis-link.ts';

export interface LeaseHandlers {
  /** Whether this replica may hold the lease now (it reaches the PLC). */
  canHold(): boolean;
  /** The lease is this replica's; `previous`: the replica whose lease expired, and its last renewal (Redis ms). */
  acquired(value: string, previous: { holder: string; renewedMs: number } | undefined): Promise<void>;
  lost(reason: string): Promise<void>;
  /** The `epoch` of the lease's state hash (the alarm journal's; undefined: none), read at every tick. */
  epoch?(epoch: number | undefined): void;
}

/** This replica's standing among the lease members, as of the current round. */
export interface LeaseStanding {
  /** The senior takes every free lease and every lease offered to it. */
  readonly senior: boolean;
  /** How long a lease must have been seen free before a replica that is not the senior takes it. */
  readonly graceMs: number;
}

/** The lease key lives three quarters of the lease time; rounds come five times in it. */
export function leaseTimes(leaseMs: number): { ttlMs: number; tickMs: number } {
  return { ttlMs: Math.round((leaseMs * 3) / 4), tickMs: Math.round(leaseMs / 5) };
}

export class Lease {
  readonly #link: RedisLink;
  readonly #keys: LeaseKeys;
  /** Names the lease in Redis command figures and the log: `alarm` -> `alarm-lease`. */
  readonly #name: string;
  readonly #replicaId: string;
  readonly #ttlMs: number;
  readonly #handlers: LeaseHandlers;
  readonly #log: ClusterLog;
  /** Local time (ms): renewals, the grace a free lease waits out, and `safeUntil` are counted in it. */
  readonly #now: () => number;
  #value: string | undefined;
  #renewedAt = 0;
  /** When the last successful renewal (or the take) was sent: the key lives at least its time to live from then. */
  #sentAt = 0;
  #ticking: Promise<void> | undefined;
  /** Since when this replica has seen the lease free without taking it (it is not the senior). */
  #freeSince: number | undefined;

  /**
   * `leaseMs`: Cluster.LeaseSeconds. The key lives three quarters of it and is renewed five times in it, so a
   * dead holder's lease expires and is taken within the lease time, and a slow renewal or two is harmless.
   * `name`: `alarm`, `mqtt`.
   */
  constructor(
    name: string,
    link: RedisLink,
    keys: LeaseKeys,
    replicaId: string,
    leaseMs: number,
    handlers: LeaseHandlers,
    log: ClusterLog,
    now: () => number = Date.now,
  ) {
    this.#name = name;
    this.#link = link;
    this.#keys = keys;
    this.#replicaId = replicaId;
    this.#ttlMs = leaseTimes(leaseMs).ttlMs;
    this.#handlers = handlers;
    this.#log = log;
    this.#now = now;
  }

  get held(): boolean {
    return this.#value !== undefined;
  }

  /**
   * While held: the local time (ms) until which no other replica can have taken the lease, the last successful
   * renewal's time to live counted from when it was sent. A holder that must not overlap with the next one (it
   * publishes what cannot be fenced in Redis) stops acting at this time unless a renewal came meanwhile.
   */
  get safeUntil(): number {
    return this.#value === undefined ? 0 : this.#sentAt + this.#ttlMs;
  }

  async stop(): Promise<void> {
    await this.#ticking;
    await this.release('stopping');
  }

  /** Gives the lease up (the holder's watch failed); the next tick may take it again from the stored state. */
  async drop(reason: string): Promise<void> {
    if (this.#value === undefined) return;
    this.#value = undefined;
    await this.#handlers.lost(reason);
  }

  /**
   * One round: renew (`offer`: and offer the lease to the senior replica, which takes it over at its next round;
   * until then this one keeps watching) or try to take; concurrent calls share one round.
   */
  tick(standing: LeaseStanding, offer = false): Promise<void> {
    this.#ticking ??= this.#round(standing, offer)
      .catch((err: unknown) =>
        this.#log.warn(
          { key: this.#keys.lease, err: (err as Error).message },
          `${this.#name} lease round failed`,
        ),
      )
      .finally(() => (this.#ticking = undefined));
    return this.#ticking;
  }

  async #round(standing: LeaseStanding, offer: boolean): Promise<void> {
    const value = this.#value;
    if (value !== undefined) {
      if (!this.#handlers.canHold()) {
        await this.release('the PLC is out of reach');
        return;
      }
      let answer: [number, string];
      const sentAt = this.#now();
      try {
        answer = (await this.#link.eval(
          `${this.#name}-lease`,
          renewLease,
          [this.#keys.lease, this.#keys.state, this.#keys.offer],
          [value, this.#ttlMs, offer ? '1' : '0'],
        )) as [number, string];
      } catch (err) {
        if (this.#now() - this.#renewedAt > this.#ttlMs)
          await this.drop('Redis unreachable for the lease time');
        throw err;
      }
      this.#handlers.epoch?.(epochOf(answer[1]));
      if (answer[0] === 1) {
        this.#renewedAt = this.#now();
        this.#sentAt = sentAt;
      } else await this.drop('another replica holds the lease');
      return;
    }
    if (!this.#handlers.canHold()) {
      this.#freeSince = undefined;
      if (this.#handlers.epoch === undefined) return;
      const epoch = await this.#link.run(`${this.#name}-lease`, (r) => r.hget(this.#keys.state, 'epoch'));
      this.#handlers.epoch(epochOf(epoch ?? ''));
      return;
    }
    const graceOver = this.#freeSince !== undefined && this.#now() - this.#freeSince >= standing.graceMs;
    const sentAt = this.#now();
    const [token, epoch, holder, renewed, available] = (await this.#link.eval(
      `${this.#name}-lease`,
      acquireLease,
      [this.#keys.lease, this.#keys.fence, this.#keys.state, this.#keys.offer],
      [this.#replicaId, this.#ttlMs, standing.senior ? 'senior' : graceOver ? 'grace' : 'look'],
    )) as [number, string, string, string, number];
    this.#handlers.epoch?.(epochOf(epoch));
    if (token === 0) {
      // Only a free lease waits out the grace time: an offered one is watched by its holder meanwhile.
      this.#freeSince = available === 1 ? (this.#freeSince ?? this.#now()) : undefined;
      return;
    }
    this.#value = `${token}|${this.#replicaId}`;
    this.#freeSince = undefined;
    this.#renewedAt = this.#now();
    this.#sentAt = sentAt;
    const previous =
      holder !== '' && holder !== this.#replicaId ? { holder, renewedMs: Number(renewed) } : undefined;
    try {
      await this.#handlers.acquired(this.#value, previous);
    } catch (err) {
      // A lease renewed without a watch behind it would leave the PLC unwatched for as long as this replica
      // lives: it is given back, and taken again (here or elsewhere) from the stored state.
      await this.release('the watch did not start');
      throw err;
    }
  }

  /** Gives the lease up and deletes it, so another replica takes over at once. */
  async release(reason: string): Promise<void> {
    const value = this.#value;
    if (value === undefined) return;
    await this.drop(reason);
    await this.#link
      .eval(`${this.#name}-lease`, releaseLease, [this.#keys.lease], [value])
      .catch(() => undefined);
  }
}

function epochOf(text: string): number | undefined {
  return text === '' ? undefined : Number(text);
}
