// Small status labels: always text plus colour, never colour alone.
import type { ConnectionState, HealthStatus } from '../api/types.ts';
import type { LiveStatus } from '../live/hub.ts';

export function ConnectionBadge({ state }: { state: ConnectionState | 'Unknown' }) {
  const tone = state === 'Connected' ? 'ok' : state === 'Connecting' ? 'warn' : 'bad';
  return <span class={`badge ${tone}`}>{state}</span>;
}

const liveText: Record<LiveStatus, string> = {
  connecting: 'connecting',
  live: 'live',
  'plc-down': 'PLC disconnected',
  lost: 'stream lost, reconnecting',
  error: 'error',
};

export function LiveBadge({ status }: { status: LiveStatus }) {
  const tone = status === 'live' ? 'ok' : status === 'connecting' ? 'muted' : 'bad';
  return <span class={`badge ${tone}`}>{liveText[status]}</span>;
}

export const severityNames = ['NONE', 'INFO', 'WARNING', 'ERROR'] as const;

export function SeverityBadge({ severity, label }: { severity: number; label: string }) {
  const tone =
    severity >= 3 ? 'sev-error' : severity === 2 ? 'sev-warning' : severity === 1 ? 'sev-info' : 'muted';
  return <span class={`badge ${tone}`}>{label}</span>;
}

export function HealthBadge({ status }: { status: HealthStatus }) {
  const tone = status === 'Healthy' ? 'ok' : status === 'Degraded' ? 'warn' : 'bad';
  return <span class={`badge ${tone}`}>{status}</span>;
}
