// This replica's membership in the cluster: its id, the Redis link, the heartbeat that keeps its entries alive
// (they expire three heartbeats after it stops), the live replica list, and pub/sub channels.
import { hostname } from 'node:os';
import { Gauge, type Registry } from 'prom-client';
import type { Settings } from '../config/schema.ts';
import { RedisLink, type ClusterLog } from './redis-link.ts';

/** Every key and channel the gateway uses in Redis starts with this. */
const prefix = 'plc-gateway:';

export function clusterKey(...parts: readonly string[]): string {
  return prefix + parts.join(':');
}

export interface ClusterOptions {
  readonly log: ClusterLog;
  readonly metrics: Registry;
  /** Used for the default ReplicaId (host name and port) when the port is known at start-up. */
  readonly port?: number | undefined;
}

type Beat = () => Promise<void>;

/** `Cluster` settings with Redis set; CommandTimeoutMs defaults as in the schema. */
export type ClusterSettings = Omit<Settings['Cluster'], 'CommandTimeoutMs' | 'Redis'> & {
  readonly Redis: string;
  readonly CommandTimeoutMs?: number | undefined;
};

export class Cluster {
  readonly replicaId: string;
  readonly link: RedisLink;
  readonly heartbeatMs: number;
  readonly leaseMs: number;
  readonly #log: ClusterLog;
  readonly #beats = new Set<Beat>();
  readonly #channels = new Map<string, Set<(message: string) => void>>();
  #timer: NodeJS.Timeout | undefined;
  #beating: Promise<void> | undefined;

  constructor(settings: ClusterSettings, options: ClusterOptions) {
    this.replicaId = settings.ReplicaId ?? defaultReplicaId(options.port);
    this.heartbeatMs = settings.HeartbeatSeconds * 1000;
    this.leaseMs = settings.LeaseSeconds * 1000;
    this.#log = options.log;
    this.link = new RedisLink(
      {
        url: settings.Redis,
        username: settings.Username,
        password: settings.Password,
        tlsCaFile: settings.TlsCaFile,
        tlsCertFile: settings.TlsCertFile,
        tlsKeyFile: settings.TlsKeyFile,
        commandTimeoutMs: settings.CommandTimeoutMs,
      },
      options.log,
      options.metrics,
    );
    // As bytes: a listener for 'message' would have every message decoded, the alarm pushes (read as bytes) too.
    this.link.subscriber.on('messageBuffer', (channel: Buffer, message: Buffer) => {
      const listeners = this.#channels.get(channel.toString());
      if (listeners === undefined) return;
      const text = message.toString();
      for (const fn of listeners) fn(text);
    });
    const liveReplicas = () => this.liveReplicas();
    new Gauge({
      name: 'cluster_replicas_alive',
      help: 'Replicas whose heartbeat has not expired, as seen from this one (0 while Redis is unreachable).',
      registers: [options.metrics],
      async collect() {
        this.set(
          await liveReplicas().then(
            (ids) => ids.length,
            () => 0,
          ),
        );
      },
    });
    // Redis may come back empty: everything this replica owns is written again at once.
    this.link.onRestored(() => void this.heartbeat());
  }

  /** Entries a replica keeps alive by its heartbeat expire after this long without one. */
  get entryTtlMs(): number {
    return this.heartbeatMs * 3;
  }

  async start(): Promise<void> {
    await this.link.connect();
    await this.heartbeat();
    this.#timer = setInterval(() => void this.heartbeat(), this.heartbeatMs);
    this.#timer.unref();
    this.#log.info({ replicaId: this.replicaId }, 'cluster replica started');
  }

  /** Adds work to every heartbeat (re-writing what this replica owns); runs once right away when started. */
  onHeartbeat(beat: Beat): void {
    this.#beats.add(beat);
  }

  /** Marks this replica alive and runs the heartbeat work; concurrent calls share one run. */
  heartbeat(): Promise<void> {
    this.#beating ??= this.#beat().finally(() => {
      this.#beating = undefined;
    });
    return this.#beating;
  }

  /** Ids of replicas whose heartbeat has not expired, sorted. */
  async liveReplicas(): Promise<string[]> {
    const ids = await this.link.run('replicas', (r) => r.smembers(clusterKey('replicas')));
    if (ids.length === 0) return [];
    const alive = await this.link.run('replicas', (r) => {
      const pipeline = r.pipeline();
      for (const id of ids) pipeline.exists(clusterKey('alive', id));
      return pipeline.exec();
    });
    return ids.filter((_, i) => alive?.[i]?.[1] === 1).sort();
  }

  /** Calls `fn` with every message published on `channel` (by any replica, this one included). */
  async subscribe(channel: string, fn: (message: string) => void): Promise<void> {
    const key = clusterKey('channel', channel);
    let listeners = this.#channels.get(key);
    if (listeners === undefined) {
      listeners = new Set();
      this.#channels.set(key, listeners);
      await this.link.subscriber.subscribe(key).catch(() => undefined);
    }
    listeners.add(fn);
  }

  async publish(channel: string, message: string): Promise<number> {
    return this.link.run('publish', (r) => r.publish(clusterKey('channel', channel), message));
  }

  async close(): Promise<void> {
    clearInterval(this.#timer);
    await this.#beating;
    // Leaving on purpose: others need not wait for the entries to expire.
    await this.link
      .run('leave', (r) =>
        r
          .multi()
          .del(clusterKey('alive', this.replicaId))
          .srem(clusterKey('replicas'), this.replicaId)
          .exec(),
      )
      .catch(() => undefined);
    await this.link.close();
  }

  async #beat(): Promise<void> {
    try {
      await this.link.run('heartbeat', (r) =>
        r
          .multi()
          .set(clusterKey('alive', this.replicaId), String(Date.now()), 'PX', this.entryTtlMs)
          .sadd(clusterKey('replicas'), this.replicaId)
          .exec(),
      );
      for (const beat of [...this.#beats]) await beat();
    } catch (err) {
      // The link reports the outage; a heartbeat simply tries again next time.
      this.#log.warn({ err: (err as Error).message }, 'cluster heartbeat failed');
    }
  }
}

function defaultReplicaId(port: number | undefined): string {
  return port === undefined || port === 0 ? `${hostname()}:${process.pid}` : `${hostname()}:${port}`;
}
