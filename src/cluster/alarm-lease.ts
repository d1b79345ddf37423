// One PLC's alarm lease as seen from this replica: tried for while the replica reaches the PLC, renewed while
// held, released when the PLC is out of reach or the replica stops, and reported lost as soon as Redis says
// another replica holds it (or Redis has been unreachable for the lease's whole time to live).
import { acquireLease, releaseLease, renewLease, type AlarmKeys } from './alarm-scripts.ts';
import type { ClusterLog, RedisLink } from './redis-link.ts';

export interface LeaseHandlers {
  /** Whether this replica may hold the lease now (it reaches the PLC). */
  canHold(): boolean;
  /** The lease is this replica's; `previous`: the replica whose lease expired, and its last renewal (Redis ms). */
  acquired(value: string, previous: { holder: string; renewedMs: number } | undefined): Promise<void>;
  lost(reason: string): Promise<void>;
  /** The journal's epoch as Redis holds it (undefined: none), read at every tick. */
  epoch(epoch: number | undefined): void;
}

export class AlarmLease {
  readonly #link: RedisLink;
  readonly #keys: AlarmKeys;
  readonly #replicaId: string;
  readonly #ttlMs: number;
  readonly #tickMs: number;
  readonly #handlers: LeaseHandlers;
  readonly #log: ClusterLog;
  #value: string | undefined;
  #renewedAt = 0;
  #timer: NodeJS.Timeout | undefined;
  #ticking: Promise<void> | undefined;

  /**
   * `leaseMs`: Cluster.LeaseSeconds. The key lives three quarters of it and is renewed five times in it, so a
   * dead holder's lease expires and is taken within the lease time, and a slow renewal or two is harmless.
   */
  constructor(
    link: RedisLink,
    keys: AlarmKeys,
    replicaId: string,
    leaseMs: number,
    handlers: LeaseHandlers,
    log: ClusterLog,
  ) {
    this.#link = link;
    this.#keys = keys;
    this.#replicaId = replicaId;
    this.#ttlMs = Math.round((leaseMs * 3) / 4);
    this.#tickMs = Math.round(leaseMs / 5);
    this.#handlers = handlers;
    this.#log = log;
  }

  get held(): boolean {
    return this.#value !== undefined;
  }

  start(): void {
    this.#timer = setInterval(() => void this.tick(), this.#tickMs);
    this.#timer.unref();
    void this.tick();
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    await this.#ticking;
    await this.release('stopping');
  }

  /** Gives the lease up (the holder's watch failed); the next tick may take it again from the stored state. */
  async drop(reason: string): Promise<void> {
    if (this.#value === undefined) return;
    this.#value = undefined;
    await this.#handlers.lost(reason);
  }

  /** One round: renew or try to take; concurrent calls share one round. */
  tick(): Promise<void> {
    this.#ticking ??= this.#round()
      .catch((err: unknown) =>
        this.#log.warn({ key: this.#keys.lease, err: (err as Error).message }, 'alarm lease round failed'),
      )
      .finally(() => (this.#ticking = undefined));
    return this.#ticking;
  }

  async #round(): Promise<void> {
    const value = this.#value;
    if (value !== undefined) {
      if (!this.#handlers.canHold()) {
        await this.release('the PLC is out of reach');
        return;
      }
      let answer: [number, string];
      try {
        answer = (await this.#link.eval(
          'alarm-lease',
          renewLease,
          [this.#keys.lease, this.#keys.state],
          [value, this.#ttlMs],
        )) as [number, string];
      } catch (err) {
        if (Date.now() - this.#renewedAt > this.#ttlMs)
          await this.drop('Redis unreachable for the lease time');
        throw err;
      }
      this.#handlers.epoch(epochOf(answer[1]));
      if (answer[0] === 1) this.#renewedAt = Date.now();
      else await this.drop('another replica holds the lease');
      return;
    }
    if (!this.#handlers.canHold()) {
      const epoch = await this.#link.run('alarm-lease', (r) => r.hget(this.#keys.state, 'epoch'));
      this.#handlers.epoch(epochOf(epoch ?? ''));
      return;
    }
    const [token, epoch, holder, renewed] = (await this.#link.eval(
      'alarm-lease',
      acquireLease,
      [this.#keys.lease, this.#keys.fence, this.#keys.state],
      [this.#replicaId, this.#ttlMs],
    )) as [number, string, string, string];
    this.#handlers.epoch(epochOf(epoch));
    if (token === 0) return;
    this.#value = `${token}|${this.#replicaId}`;
    this.#renewedAt = Date.now();
    const previous =
      holder !== '' && holder !== this.#replicaId ? { holder, renewedMs: Number(renewed) } : undefined;
    await this.#handlers.acquired(this.#value, previous);
  }

  /** Gives the lease up and deletes it, so another replica takes over at once. */
  async release(reason: string): Promise<void> {
    const value = this.#value;
    if (value === undefined) return;
    await this.drop(reason);
    await this.#link.eval('alarm-lease', releaseLease, [this.#keys.lease], [value]).catch(() => undefined);
  }
}

function epochOf(text: string): number | undefined {
  return text === '' ? undefined : Number(text);
}
