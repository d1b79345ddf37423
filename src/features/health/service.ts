// Health reports: liveness, and readiness from PLC connectivity (the `plc-connectivity` check).
import { ServiceKey } from '../../http/service-directory.ts';
import type { ConnectionState, PlcTarget } from '../../targets/target.ts';

export type HealthStatus = 'Healthy' | 'Degraded' | 'Unhealthy';

export interface HealthCheck {
  name: string;
  status: HealthStatus;
  description: string;
  /** plc-connectivity: `<plcId>` the connection state, `<plcId>.lastError` `<code>: <message>` while not connected. */
  data: Record<string, unknown>;
}

export interface HealthReport {
  status: HealthStatus;
  checks: HealthCheck[];
}

/** 503 only for Unhealthy: a Degraded gateway still serves the PLCs it reaches. */
export function httpStatusOf(status: HealthStatus): 200 | 503 {
  return status === 'Unhealthy' ? 503 : 200;
}

/**
 * Healthy when every target is connected, Degraded when some are, Unhealthy when none is. With no target
 * configured there is nothing to be unreachable, so the gateway is Healthy.
 */
export function plcConnectivity(targets: readonly PlcTarget[]): HealthCheck {
  const data: Record<string, string> = {};
  let connected = 0;
  for (const t of targets) {
    const state: ConnectionState = t.connectionState();
    data[t.id] = state;
    if (state === 'Connected') connected++;
    const failure = t.lastError();
    if (failure && state !== 'Connected') data[`${t.id}.lastError`] = `${failure.code}: ${failure.message}`;
  }
  const total = targets.length;
  const status: HealthStatus = connected === total ? 'Healthy' : connected === 0 ? 'Unhealthy' : 'Degraded';
  const description =
    total === 0 ? 'No PLC targets are configured.' : `${connected} of ${total} PLC targets connected.`;
  return { name: 'plc-connectivity', status, description, data };
}

const rank: Readonly<Record<HealthStatus, number>> = { Healthy: 0, Degraded: 1, Unhealthy: 2 };

/** The worst status of the checks; PLC connectivity first, then any others (the cluster). */
export function readiness(targets: readonly PlcTarget[], others: readonly HealthCheck[] = []): HealthReport {
  const checks = [plcConnectivity(targets), ...others];
  const status = checks.reduce<HealthStatus>(
    (worst, c) => (rank[c.status] > rank[worst] ? c.status : worst),
    'Healthy',
  );
  return { status, checks };
}

/** Readiness checks other features add (the MQTT broker connection); asked at every /health/ready. */
export class ReadinessChecks {
  readonly #checks: Array<() => HealthCheck> = [];

  add(check: () => HealthCheck): void {
    this.#checks.push(check);
  }

  run(): HealthCheck[] {
    return this.#checks.map((c) => c());
  }
}

/** The health routes' ReadinessChecks, published for features registered after them. */
export const readinessChecksKey = new ServiceKey<ReadinessChecks>('readiness checks');
