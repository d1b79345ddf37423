// Plant overview: every PLC the token may see as a card (connection, mode, ADS state, outstanding alarms by
// severity, simulation state) and the gateway's readiness.
import { api, ApiError, describeError, loadReadiness, plcPath } from '../api/http.ts';
import type { AlarmList, PlcStatus, PlcSummary, SimulationState } from '../api/types.ts';
import { session, settings } from '../auth/session.ts';
import { ConnectionBadge, HealthBadge, SeverityBadge } from '../components/badges.tsx';
import { usePoll } from '../live/use-live.ts';
import { href } from '../router.ts';
import { readinessText } from './readiness.ts';
import type { View } from './view.ts';

interface Card {
  status: PlcStatus;
  simulation?: SimulationState;
  /** The PLC's outstanding alarms; 'unmonitored' when it has no alarm configuration. */
  alarms?: AlarmList | 'unmonitored';
}

async function optional<T>(load: () => Promise<T>): Promise<T | undefined> {
  return load().catch(() => undefined);
}

async function loadCard(plc: PlcSummary): Promise<Card> {
  const { features } = settings.value;
  const lifecycle = session.value?.permissions.lifecycle === true;
  const [status, simulation, alarms] = await Promise.all([
    api.get<PlcStatus>(plcPath(plc.plcId, 'status')).catch(() => plc),
    // Simulation routes need LifecycleAccess.
    features.Simulation === true && lifecycle && plc.mode === 'Simulated'
      ? optional(() => api.get<SimulationState>(plcPath(plc.plcId, 'sim', 'state')))
      : undefined,
    features.Alarms === true
      ? api
          .get<AlarmList>(plcPath(plc.plcId, 'alarms'))
          .catch((err: unknown) =>
            err instanceof ApiError && err.code === 'PLC_NOT_FOUND' ? ('unmonitored' as const) : undefined,
          )
      : undefined,
  ]);
  return { status, ...(simulation ? { simulation } : {}), ...(alarms ? { alarms } : {}) };
}

async function loadPlant(): Promise<Card[]> {
  // A token that grants no PLC is refused the list (403 PLC_ACCESS_DENIED): the overview says so below.
  const plcs = await api.get<PlcSummary[]>('/api/plcs').catch((err: unknown) => {
    if (err instanceof ApiError && err.status === 403 && err.code === 'PLC_ACCESS_DENIED') return [];
    throw err;
  });
  return Promise.all(plcs.map(loadCard));
}

function AlarmCounts({ alarms }: { alarms: Card['alarms'] }) {
  if (alarms === undefined) return <span class="muted">—</span>;
  if (alarms === 'unmonitored') return <span class="muted">not monitored</span>;
  const mine = alarms.items;
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

function PlcCard({ card }: { card: Card }) {
  const { status, simulation, alarms } = card;
  const failed = typeof alarms === 'object' && alarms.partial;
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
          <AlarmCounts alarms={alarms} />
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
  const health = usePoll(loadReadiness, 5000, 'health');
  return (
    <section aria-labelledby="overview-title">
      <div class="view-head">
        <h1 id="overview-title">Plant overview</h1>
        <p class="health" role="status" data-testid="readiness">
          Readiness:{' '}
          {health.data ? (
            <>
              <HealthBadge status={health.data.status} /> {readinessText(health.data)}
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
      {plant.data === undefined ? (
        <p class="muted">Loading…</p>
      ) : plant.data.length === 0 ? (
        <p>Your token permits no PLC.</p>
      ) : (
        <div class="cards">
          {plant.data.map((card) => (
            <PlcCard key={card.status.plcId} card={card} />
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
