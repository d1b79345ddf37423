// Plant overview: every PLC the token may see as a card (connection, mode, ADS state, outstanding alarms by
// severity, simulation state) and the gateway's readiness.
import { api, describeError, plcPath } from '../api/http.ts';
import type { AlarmList, HealthReport, PlcStatus, PlcSummary, SimulationState } from '../api/types.ts';
import { settings } from '../auth/session.ts';
import { ConnectionBadge, SeverityBadge } from '../components/badges.tsx';
import { usePoll } from '../live/use-live.ts';
import { href } from '../router.ts';
import type { View } from './view.ts';

interface Card {
  status: PlcStatus;
  simulation?: SimulationState;
}

interface Plant {
  cards: Card[];
  alarms?: AlarmList;
  alarmsError?: string;
}

async function loadPlant(): Promise<Plant> {
  const features = settings.value.features;
  const plcs = await api.get<PlcSummary[]>('/api/plcs');
  const cards = await Promise.all(
    plcs.map(async (plc): Promise<Card> => {
      const status = await api.get<PlcStatus>(plcPath(plc.plcId, 'status')).catch(() => plc);
      const simulation =
        features.Simulation === true && plc.mode === 'Simulated'
          ? await api.get<SimulationState>(plcPath(plc.plcId, 'sim', 'state')).catch(() => undefined)
          : undefined;
      return simulation ? { status, simulation } : { status };
    }),
  );
  if (features.Alarms !== true) return { cards };
  try {
    return { cards, alarms: await api.get<AlarmList>('/api/alarms') };
  } catch (err) {
    return { cards, alarmsError: describeError(err) };
  }
}

async function loadHealth(): Promise<HealthReport> {
  // 503 (Unhealthy) still carries the report.
  const response = await fetch('/health/ready', { cache: 'no-store' });
  return (await response.json()) as HealthReport;
}

function AlarmCounts({ plcId, alarms }: { plcId: string; alarms: AlarmList | undefined }) {
  if (alarms === undefined) return <span class="muted">not monitored</span>;
  const mine = alarms.items.filter((a) => a.scope === plcId);
  if (mine.length === 0) return <span class="muted">none outstanding</span>;
  const counts = new Map<string, { severity: number; n: number }>();
  for (const a of mine) {
    const c = counts.get(a.severityLabel) ?? { severity: a.severity, n: 0 };
    c.n++;
    counts.set(a.severityLabel, c);
  }
  return (
    <span class="counts">
      {[...counts.entries()]
        .sort((a, b) => b[1].severity - a[1].severity)
        .map(([label, c]) => (
          <SeverityBadge key={label} severity={c.severity} label={`${c.n} ${label}`} />
        ))}
    </span>
  );
}

function PlcCard({ card, alarms }: { card: Card; alarms: AlarmList | undefined }) {
  const { status, simulation } = card;
  const failed = alarms?.['x-ads-failed'].some((f) => f.peer === `ads:${status.plcId}`);
  return (
    <article class="card plc-card" aria-labelledby={`plc-${status.plcId}`} data-plc={status.plcId}>
      <h2 id={`plc-${status.plcId}`}>
        <a href={href('plc', status.plcId)}>{status.displayName || status.plcId}</a>{' '}
        <small class="muted">{status.plcId}</small>
      </h2>
      <dl>
        <dt>Connection</dt>
        <dd>
          <ConnectionBadge state={status.state} />
        </dd>
        <dt>Mode</dt>
        <dd>{status.mode}</dd>
        <dt>ADS state</dt>
        <dd>{status.adsState ?? '—'}</dd>
        <dt>Alarms</dt>
        <dd>
          <AlarmCounts plcId={status.plcId} alarms={alarms} />
          {failed && <span class="badge bad">stale</span>}
        </dd>
        <dt>Simulation</dt>
        <dd>
          {simulation ? (
            <a href={href('sim', status.plcId)}>
              {simulation.state}, cycle {simulation.cycleCount}
            </a>
          ) : (
            '—'
          )}
        </dd>
      </dl>
    </article>
  );
}

function Overview() {
  const plant = usePoll(loadPlant, 2000, 'plant');
  const health = usePoll(loadHealth, 5000, 'health');
  const check = health.data?.checks[0];
  return (
    <section aria-labelledby="overview-title">
      <div class="view-head">
        <h1 id="overview-title">Plant overview</h1>
        <p class="health" role="status">
          Readiness:{' '}
          {health.data ? (
            <>
              <span
                class={`badge ${health.data.status === 'Healthy' ? 'ok' : health.data.status === 'Degraded' ? 'warn' : 'bad'}`}
              >
                {health.data.status}
              </span>{' '}
              {check?.description}
            </>
          ) : (
            '…'
          )}
        </p>
      </div>
      {plant.error !== undefined && (
        <p role="alert" class="error-text">
          {describeError(plant.error)}
        </p>
      )}
      {plant.data?.alarmsError && <p class="error-text">Alarms: {plant.data.alarmsError}</p>}
      {plant.data === undefined ? (
        <p class="muted">Loading…</p>
      ) : plant.data.cards.length === 0 ? (
        <p>Your token permits no PLC.</p>
      ) : (
        <div class="cards">
          {plant.data.cards.map((card) => (
            <PlcCard key={card.status.plcId} card={card} alarms={plant.data?.alarms} />
          ))}
        </div>
      )}
    </section>
  );
}

export const overviewView: View = {
  id: '',
  title: 'Overview',
  nav: true,
  allowed: (s) => s.permissions.read,
  render: () => <Overview />,
};
