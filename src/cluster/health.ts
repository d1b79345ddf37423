// The `cluster` readiness check: Redis reachable and the replicas alive. Redis away
// is Degraded, not Unhealthy: reads, writes and this replica's streams keep working (limits fail open).
import type { HealthCheck } from '../features/health/service.ts';
import type { Cluster } from './cluster.ts';

export interface ClusterCheckData {
  readonly replica: string;
  readonly redis: 'Reachable' | 'Unreachable';
  /** Live replicas by ReplicaId, sorted (empty while Redis is unreachable). */
  readonly replicas: string[];
}

export async function clusterCheck(cluster: Cluster): Promise<HealthCheck> {
  const replica = cluster.replicaId;
  try {
    if (!cluster.link.reachable) throw new Error('unreachable');
    const replicas = await cluster.liveReplicas();
    const data: ClusterCheckData = { replica, redis: 'Reachable', replicas };
    const description = `Redis reachable; ${replicas.length} replica(s) alive.`;
    return { name: 'cluster', status: 'Healthy', description, data: { ...data } };
  } catch {
    const data: ClusterCheckData = { replica, redis: 'Unreachable', replicas: [] };
    return {
      name: 'cluster',
      status: 'Degraded',
      description:
        'Redis is unreachable: limits fail open, Lifecycle is refused, streams count this replica only.',
      data: { ...data },
    };
  }
}
