// EtherCAT (flag EtherCatDiagnostics): one PLC's buses as topologies, master then slaves in bus order with
// their states, error flags, links and CRC counters, kept live from the PLC's notification stream.
import { api, describeError } from '../api/http.ts';
import type { PlcSummary } from '../api/types.ts';
import { HealthBadge } from '../components/badges.tsx';
import { BusTopology } from '../components/bus-topology.tsx';
import { useEtherCat, type BusFeedStatus } from '../live/ethercat-feed.ts';
import { usePoll } from '../live/use-live.ts';
import { href } from '../router.ts';
import type { View } from './view.ts';

const statusText: Record<BusFeedStatus, string> = {
  loading: 'Reading the buses…',
  live: 'Live',
  reconnecting: 'Stream lost: reconnecting; the states shown may be behind',
  polling: 'Polling every 2 s (no EtherCAT stream for this PLC)',
  'plc-down': 'PLC disconnected: the states shown are the last known',
  stopped: 'Stopped',
};

function Buses({ plcId }: { plcId: string }) {
  const feed = useEtherCat(plcId);
  return (
    <>
      <div class="view-head">
        <p role="status" data-testid="ethercat-status">
          {statusText[feed.status]}
          {feed.status === 'live' && ` (${feed.changes} change${feed.changes === 1 ? '' : 's'} received)`}
        </p>
        {feed.health !== undefined && (
          <p data-testid="bus-health">
            Bus status: <HealthBadge status={feed.health} />
          </p>
        )}
      </div>
      {feed.error !== undefined && (
        <p role="alert" class="error-text">
          {feed.error}
        </p>
      )}
      {feed.buses?.length === 0 && <p>This PLC has no EtherCAT masters.</p>}
      {feed.buses?.map((bus) => (
        <BusTopology key={bus.master.deviceId} bus={bus} />
      ))}
    </>
  );
}

function EtherCat({ plcId }: { plcId: string | undefined }) {
  const plcs = usePoll(() => api.get<PlcSummary[]>('/api/plcs'), 30_000, 'plcs');
  return (
    <section aria-labelledby="ethercat-title">
      <h1 id="ethercat-title">EtherCAT</h1>
      {plcs.error !== undefined && (
        <p role="alert" class="error-text">
          {describeError(plcs.error)}
        </p>
      )}
      <nav aria-label="PLCs" class="row">
        {plcs.data?.map((p) => (
          <a
            key={p.plcId}
            href={href('ethercat', p.plcId)}
            aria-current={p.plcId === plcId ? 'page' : undefined}
          >
            {p.displayName || p.plcId}
          </a>
        ))}
      </nav>
      {plcId === undefined ? (
        <p class="muted">Pick a PLC to see its EtherCAT buses.</p>
      ) : (
        <Buses key={plcId} plcId={plcId} />
      )}
    </section>
  );
}

export const etherCatView: View = {
  id: 'ethercat',
  title: 'EtherCAT',
  nav: true,
  allowed: (s, features) => s.permissions.read && features.EtherCatDiagnostics === true,
  render: ([plcId]) => <EtherCat plcId={plcId} />,
};
