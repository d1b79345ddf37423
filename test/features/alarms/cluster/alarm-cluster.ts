// What the cluster alarm tests share: a plant of replicas watching one PLC's alarms, writing an alarm slot through
// a replica's HTTP API, matching transitions on an SSE stream, and reading which replica holds each PLC's lease.
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import type { SseEvent } from '../../notifications/clients.ts';
import { startReplica, startSimAds, type CliProcess } from '../../../helpers/cluster-plant.ts';
import { RedisServer } from '../../../helpers/redis-server.ts';
import { bearer, mintToken } from '../../../helpers/tokens.ts';

export const arrayPath = 'GVL_HMI.fbAlarms.aAlarms';

/** A redis-server, a stopped sim-ads PLC `line1` of the alarm scenario, and replicas watching its alarm array. */
export interface AlarmPlant {
  readonly redis: RedisServer;
  readonly replicas: CliProcess[];
  /** Starts one more replica (`index`: its rank, from 1) and adds it to `replicas`. */
  add(replicaId: string, index: number): Promise<CliProcess>;
  stop(): Promise<void>;
}

export async function startAlarmPlant(replicaIds: readonly string[]): Promise<AlarmPlant> {
  const redis = await RedisServer.start();
  const sim = await startSimAds(resolve('test/features/alarms/scenario'), ['--stopped']);
  const replicas: CliProcess[] = [];
  const add = async (replicaId: string, index: number): Promise<CliProcess> => {
    const replica = await startReplica({
      redisUrl: redis.url,
      simPort: sim.port,
      replicaId,
      index,
      settings: {
        Features: { Alarms: true, Variables: true },
        RateLimiting: { NotificationConnections: 100 },
        PlcAlarms: { Targets: { line1: { SymbolPath: arrayPath, CycleTimeMs: 100 } } },
      },
    });
    replicas.push(replica);
    return replica;
  };
  for (const [i, id] of replicaIds.entries()) await add(id, i + 1);
  return {
    redis,
    replicas,
    add,
    stop: async () => {
      await Promise.all(replicas.map((r) => r.stop()));
      await sim.process.stop();
      await redis.kill();
    },
  };
}

export interface Transition {
  kind: string;
  alarm: { code: string };
}

/** Writes slot `slot` of `plcId`'s alarm array through the replica `via`. */
export async function writeSlot(
  via: Pick<CliProcess, 'url'>,
  headers: Record<string, string>,
  slot: number,
  value: Record<string, unknown>,
  plcId = 'line1',
): Promise<void> {
  const path = encodeURIComponent(`${arrayPath}[${slot}]`);
  const res = await fetch(`${via.url}/api/plcs/${plcId}/variables/${path}`, {
    method: 'PUT',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ value }),
  });
  assert.equal(res.status, 200, await res.text());
}

/** Matches the SSE `alarm` event of transition `kind` of alarm `code`. */
export const alarmEvent =
  (kind: string, code: string) =>
  (e: SseEvent): boolean =>
    e.event === 'alarm' && (e.data as Transition).kind === kind && (e.data as Transition).alarm.code === code;

/** plcId -> holder, as the cluster check of the replica's /health/ready lists them. */
export async function leasesOf(replica: CliProcess): Promise<Record<string, string>> {
  // Lease holders are details: an admin token for every PLC sees them.
  const headers = bearer(await mintToken({ sub: 'health-reader' }));
  const report = (await (await fetch(`${replica.url}/health/ready`, { headers })).json()) as {
    checks: Array<{ name: string; data: { leases?: Record<string, string> } }>;
  };
  return report.checks.find((c) => c.name === 'cluster')?.data.leases ?? {};
}
