// Health reports: liveness, and readiness from PLC connectivity (the `plc-connectivity` check), in full or in the
// form an anonymous caller gets.
import { canAccessPlc, type Principal } from '../../guards/principal.ts';
import { satisfiesPolicy } from '../../guards/policies.ts';
import { ServiceKey } from '../../feature-kit/service-directory.ts';
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

/** A check as a caller without full details sees it: a fixed description, data of its own PLCs only. */
export interface PublicHealthCheck {
  name: string;
  status: HealthStatus;
  description: string;
  data?: Record<string, unknown>;
}

/**
 * Fixed descriptions per check and status for callers without full details: written here rather than derived from
 * what a check computed, so no PLC id, replica, lease holder or count can slip into them.
 */
const publicDescriptions: Readonly<Record<string, Readonly<Record<HealthStatus, string>>>> = {
  'plc-connectivity': {
    Healthy: 'Every configured PLC target is connected.',
    Degraded: 'Some PLC targets are not connected.',
    Unhealthy: 'No PLC target is connected.',
  },
  ethercat: {
    Healthy: 'Every EtherCAT master and slave is in OP.',
    Degraded: 'An EtherCAT bus reports a problem.',
    Unhealthy: 'An EtherCAT bus is down or cannot be read.',
  },
  cluster: {
    Healthy: 'Redis is reachable.',
    Degraded:
      'Redis is unreachable: limits fail open, Lifecycle is refused, streams count this replica only.',
    Unhealthy: 'The cluster is not usable.',
  },
};

const genericDescriptions: Readonly<Record<HealthStatus, string>> = {
  Healthy: 'The check passed.',
  Degraded: 'The check reports a problem; the gateway still serves.',
  Unhealthy: 'The check failed.',
};

/** Checks whose data is keyed by plcId (`<plcId>`, `<plcId>.<detail>`; plcIds have no dot). */
const perPlcChecks: ReadonlySet<string> = new Set(['plc-connectivity', 'ethercat']);

/**
 * What a caller sees of the readiness report:
 * - `full`: everything, with `Health.Detailed` on, or for an Admin whose plc_access reaches every PLC (the data
 *   names every PLC, the replicas and the lease holders);
 * - `own`: a ReadAccess caller: fixed descriptions, and the per-PLC data of the PLCs its plc_access permits;
 * - `public`: anyone else, anonymous probes included: status, check names, statuses and fixed descriptions.
 */
export type ReadinessView = 'full' | 'own' | 'public';

/** /health/ready's answer: the report, or its reduced form. */
export interface ReadinessAnswer {
  status: HealthStatus;
  checks: PublicHealthCheck[];
}

export function readinessView(detailedSetting: boolean, caller: Principal | null): ReadinessView {
  if (detailedSetting) return 'full';
  if (caller === null) return 'public';
  if (caller.plcAccess.all && satisfiesPolicy(caller, 'Admin')) return 'full';
  return satisfiesPolicy(caller, 'ReadAccess') ? 'own' : 'public';
}

/** The report as `view` shows it to `caller` (see ReadinessView). */
export function presentReadiness(
  report: HealthReport,
  view: ReadinessView,
  caller: Principal | null,
): ReadinessAnswer {
  if (view === 'full') return report;
  return {
    status: report.status,
    checks: report.checks.map((c) => {
      const check: PublicHealthCheck = {
        name: c.name,
        status: c.status,
        description: (publicDescriptions[c.name] ?? genericDescriptions)[c.status],
      };
      if (view === 'own' && caller !== null && perPlcChecks.has(c.name)) {
        check.data = Object.fromEntries(
          Object.entries(c.data).filter(([key]) => canAccessPlc(caller, key.split('.')[0] ?? '')),
        );
      }
      return check;
    }),
  };
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
