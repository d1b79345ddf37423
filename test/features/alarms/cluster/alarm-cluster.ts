// What the cluster alarm tests share: writing an alarm slot through a replica's HTTP API, matching transitions on
// an SSE stream, and reading which replica holds each PLC's lease.
import assert from 'node:assert/strict';
import type { SseEvent } from '../../notifications/clients.ts';
import type { CliProcess } from '../../../helpers/cluster-plant.ts';
import { bearer, mintToken } from '../../../helpers/tokens.ts';

export const arrayPath = 'GVL_HMI.fbAlarms.aAlarms';

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
