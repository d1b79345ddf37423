// The `cluster` readiness check: Redis reachable and the replicas alive. Redis away
// is Degraded, not Unhealthy: reads, writes and this replica's streams keep working (limits fail open).
import type { Cluster } from './cluster.ts';

/** The check as the readiness report lists it (the health feature's HealthCheck, which this layer cannot import). */
export interface ClusterCheck {
  readonly name: 'cluster';
  readonly status: 'Healthy' | 'Degraded';
  readonly description: string;
  readonly data: Record<string, unknown>;
}

/** lease name (a plcId for the alarm leases) -> the ReplicaId holding it, for the leases that are held. */
export type LeaseHolders = () => Promise<Record<string, string>>;

/**
 * Leases this replica holds, named by a feature (e.g. the MQTT publish leases: `mqttLeases`), each a list of lease
 * names (plcIds) from the replica's own state, so they are listed while Redis is out of reach too.
 */
export interface OwnLeases {
  readonly field: string;
  readonly held: () => readonly string[];
}

interface ClusterCheckData {
  readonly replica: string;
  readonly redis: 'Reachable' | 'Unreachable';
  /** Live replicas by ReplicaId, sorted (empty while Redis is unreachable). */
  readonly replicas: string[];
  /** plcId -> the ReplicaId watching its alarm array (empty while Redis is unreachable). */
  readonly leases: Record<string, string>;
}

export async function clusterCheck(
  cluster: Cluster,
  leaseHolders: readonly LeaseHolders[],
  ownLeases: readonly OwnLeases[] = [],
): Promise<ClusterCheck> {
  const replica = cluster.replicaId;
  const own = Object.fromEntries(ownLeases.map((o) => [o.field, [...o.held()].sort()]));
  try {
    if (!cluster.link.reachable) throw new Error('unreachable');
    const [replicas, held] = await Promise.all([
      cluster.liveReplicas(),
      Promise.all(leaseHolders.map((holders) => holders())),
    ]);
    const leases = Object.assign({}, ...held) as Record<string, string>;
    const data: ClusterCheckData = { replica, redis: 'Reachable', replicas, leases };
    const description = `Redis reachable; ${replicas.length} replica(s) alive.`;
    return { name: 'cluster', status: 'Healthy', description, data: { ...data, ...own } };
  } catch {
    const data: ClusterCheckData = { replica, redis: 'Unreachable', replicas: [], leases: {} };
    return {
      name: 'cluster',
      status: 'Degraded',
      description:
        'Redis is unreachable: limits fail open, Lifecycle is refused, streams count this replica only.',
      data: { ...data, ...own },
    };
  }
}
