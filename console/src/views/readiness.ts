// What the overview says of readiness: when it is not Healthy, which checks make it so and why (the failing PLCs,
// EtherCAT buses or the cluster), from the /health/ready report, worst first.
import type { HealthReport, HealthStatus } from '../api/types.ts';

type Check = HealthReport['checks'][number];

const rank: Readonly<Record<HealthStatus, number>> = { Healthy: 0, Degraded: 1, Unhealthy: 2 };

const labels: Readonly<Record<string, string>> = {
  'plc-connectivity': 'PLC connectivity',
  ethercat: 'EtherCAT bus',
  cluster: 'Cluster',
};

/** The PLCs plc-connectivity finds not connected, each with its state and last error. */
function disconnected(check: Check): string[] {
  // An anonymous or narrowly scoped caller gets no per-PLC data: then there is nothing to name.
  const data = check.data ?? {};
  return Object.entries(data)
    .filter(([key, state]) => !key.endsWith('.lastError') && state !== 'Connected')
    .map(([plcId, state]) => {
      const lastError = data[`${plcId}.lastError`];
      return `${plcId} ${String(state)}${typeof lastError === 'string' ? ` (${lastError})` : ''}`;
    });
}

/** One reason per check that is not Healthy: "EtherCAT bus: cell3: slave 1003 in SAFEOP". */
export function readinessReasons(report: HealthReport): string[] {
  return report.checks
    .filter((check) => check.status !== 'Healthy')
    .sort((a, b) => rank[b.status] - rank[a.status])
    .map((check) => {
      const label = labels[check.name] ?? check.name;
      if (check.name === 'plc-connectivity') {
        const down = disconnected(check);
        return `${label}: ${check.description}${down.length > 0 ? ` Not connected: ${down.join(', ')}.` : ''}`;
      }
      return `${label}: ${check.description}`;
    });
}

/** The text after the status word: the reasons when not Healthy, else the PLC connectivity summary. */
export function readinessText(report: HealthReport): string {
  const reasons = readinessReasons(report);
  if (reasons.length > 0) return reasons.join(' · ');
  return report.checks.find((c) => c.name === 'plc-connectivity')?.description ?? '';
}
