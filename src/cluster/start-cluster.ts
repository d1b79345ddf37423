// Cluster mode (`Cluster.Redis` set): joins the replicas and hands the app the shared implementations of what
// would otherwise live in this process: the limiter store, the audit store, the stream ledger and the health check.
import type { Registry } from 'prom-client';
import type { AuditStore } from '../audit/store.ts';
import type { Settings } from '../config/schema.ts';
import type { Clock } from '../guards/rate-limit/limiter.ts';
import type { LimiterFactory } from '../guards/rate-limit/rate-limits.ts';
import type { StreamLedger } from '../http/streams/stream-ledger.ts';
import { Cluster } from './cluster.ts';
import { clusterCheck, type ClusterCheck, type LeaseHolders, type OwnLeases } from './health.ts';
import type { ClusterLog } from './redis-link.ts';
import { SharedAuditStore } from './shared-audit-store.ts';
import { sharedLimiterFactory } from './shared-limits.ts';
import { SharedStreams } from './shared-streams.ts';

export interface ClusterServices {
  readonly cluster: Cluster;
  readonly limiterStore: LimiterFactory;
  readonly auditStore: AuditStore;
  readonly streamLedger: StreamLedger;
  /** Adds a feature's lease holders to the `cluster` check (the alarm feature's one lease per PLC). */
  reportLeases(holders: LeaseHolders): void;
  /** Adds the leases this replica holds under `field` of the `cluster` check (the MQTT feature's `mqttLeases`). */
  reportOwnLeases(field: string, held: () => readonly string[]): void;
  /** The `cluster` readiness check. */
  check(): Promise<ClusterCheck>;
  close(): Promise<void>;
}

export interface ClusterDeps {
  readonly log: ClusterLog;
  readonly metrics: Registry;
  readonly now: Clock;
  /** The port this replica listens on, for the default ReplicaId. */
  readonly port?: number | undefined;
}

/** Undefined without `Cluster.Redis`: one process, everything in memory. */
export async function startCluster(
  settings: Settings,
  deps: ClusterDeps,
): Promise<ClusterServices | undefined> {
  const url = settings.Cluster.Redis;
  if (url === undefined) return undefined;
  const cluster = new Cluster({ ...settings.Cluster, Redis: url }, deps);
  const streamLedger = new SharedStreams(cluster, deps.log);
  await cluster.start();
  const leaseHolders: LeaseHolders[] = [];
  const ownLeases: OwnLeases[] = [];
  return {
    cluster,
    limiterStore: sharedLimiterFactory(cluster.link, deps.log, deps.metrics, deps.now),
    auditStore: new SharedAuditStore(
      cluster.link,
      {
        changes: settings.Audit.Length,
        refusals: settings.Audit.RefusalLength,
      },
      deps.log,
    ),
    streamLedger,
    reportLeases: (holders) => void leaseHolders.push(holders),
    reportOwnLeases: (field, held) => void ownLeases.push({ field, held }),
    check: () => clusterCheck(cluster, leaseHolders, ownLeases),
    close: () => cluster.close(),
  };
}
