// Simulation and lifecycle of one PLC: the simulation's state, cycle count and simulated time with step, run,
// pause and reset; gvl-hmi/1 axes drawn live; start, stop and reset of the PLC runtime for admins, each
// confirmed by naming the PLC.
import { useEffect, useState } from 'preact/hooks';
import { api, describeError, plcPath } from '../api/http.ts';
import type { LifecycleChange, PlcStatus, PlcSummary, SimulationState, SymbolNode } from '../api/types.ts';
import { session, settings } from '../auth/session.ts';
import { Axes } from '../components/axes.tsx';
import { Confirm } from '../components/confirm.tsx';
import { usePoll } from '../live/use-live.ts';
import { href } from '../router.ts';
import type { View } from './view.ts';
import { Outcome, type Result } from '../components/outcome.tsx';

function formatElapsed(ms: number): string {
  const s = ms / 1000;
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return `${h}:${String(m).padStart(2, '0')}:${(s % 60).toFixed(1).padStart(4, '0')}`;
}

/** The gvl-hmi/1 root of the PLC's program and its axis count, when it has one. */
function useHmiRoot(plcId: string): { root: string; count: number } | undefined {
  const [found, setFound] = useState<{ root: string; count: number } | undefined>(undefined);
  useEffect(() => {
    let alive = true;
    setFound(undefined);
    void (async () => {
      const hits = await api
        .get<SymbolNode[]>(
          `${plcPath(plcId, 'symbols')}?search=${encodeURIComponent('.stHeader.nAxisCount')}&flat=true`,
        )
        .catch(() => []);
      const path = hits[0]?.instancePath;
      if (path === undefined) return;
      const root = path.slice(0, -'.stHeader.nAxisCount'.length);
      const count = await api
        .get<{ value: unknown }>(plcPath(plcId, 'variables', path))
        .then((v) => (typeof v.value === 'number' ? v.value : 0))
        .catch(() => 0);
      if (alive) setFound({ root, count });
    })();
    return () => void (alive = false);
  }, [plcId]);
  return found;
}

function Simulation({ plcId }: { plcId: string }) {
  const state = usePoll(() => api.get<SimulationState>(plcPath(plcId, 'sim', 'state')), 1000, `sim-${plcId}`);
  const hmi = useHmiRoot(plcId);
  const [cycles, setCycles] = useState('10');
  const [outcome, setOutcome] = useState<Result | undefined>(undefined);
  const canControl = session.value?.permissions.lifecycle === true;
  const run = async (command: string, query = ''): Promise<void> => {
    try {
      const next = await api.post<SimulationState>(`${plcPath(plcId, 'sim', command)}${query}`);
      setOutcome({ ok: true, message: `${command}: ${next.state}, cycle ${next.cycleCount}` });
    } catch (err) {
      setOutcome({ ok: false, message: describeError(err) });
    }
    state.refresh();
  };
  const s = state.data;
  return (
    <div class="panel">
      <h2>Simulation</h2>
      {state.error !== undefined ? (
        <p role="alert" class="error-text">
          {describeError(state.error)}
        </p>
      ) : s === undefined ? (
        <p class="muted">Loading…</p>
      ) : (
        <dl class="facts">
          <dt>State</dt>
          <dd data-testid="sim-state">{s.state}</dd>
          <dt>Cycles</dt>
          <dd class="mono" data-testid="sim-cycles">
            {s.cycleCount}
          </dd>
          <dt>Simulated time</dt>
          <dd class="mono">
            {formatElapsed(s.elapsedMs)} (scan {s.scanMs} ms)
          </dd>
          {s.error !== null && (
            <>
              <dt>Fault</dt>
              <dd class="error-text">{s.error}</dd>
            </>
          )}
        </dl>
      )}
      {canControl && (
        <form
          class="row"
          onSubmit={(e) => (
            e.preventDefault(),
            void run('step', `?cycles=${encodeURIComponent(cycles.trim())}`)
          )}
        >
          <label class="inline-label" for="step-cycles">
            Cycles
          </label>
          <input
            id="step-cycles"
            type="number"
            min="1"
            step="1"
            value={cycles}
            onInput={(e) => setCycles(e.currentTarget.value)}
          />
          <button type="submit">Step</button>
          <button type="button" onClick={() => void run('run')}>
            Run
          </button>
          <button type="button" onClick={() => void run('pause')}>
            Pause
          </button>
          <button type="button" onClick={() => void run('reset')}>
            Reset
          </button>
        </form>
      )}
      <Outcome result={outcome} />
      {hmi && <Axes plcId={plcId} root={hmi.root} count={hmi.count} />}
    </div>
  );
}

const lifecycleLabels = { start: 'Start', stop: 'Stop', reset: 'Reset' } as const;

function Lifecycle({ plcId, name }: { plcId: string; name: string }) {
  const [asking, setAsking] = useState<keyof typeof lifecycleLabels | undefined>(undefined);
  const [outcome, setOutcome] = useState<Result | undefined>(undefined);
  const act = async (command: keyof typeof lifecycleLabels): Promise<void> => {
    setAsking(undefined);
    try {
      const change = await api.post<LifecycleChange>(plcPath(plcId, 'lifecycle', command));
      setOutcome({ ok: true, message: `${lifecycleLabels[command]}: the PLC is now in ${change.adsState}.` });
    } catch (err) {
      setOutcome({ ok: false, message: describeError(err) });
    }
  };
  return (
    <div class="panel">
      <h2>PLC runtime</h2>
      <div class="row">
        {(Object.keys(lifecycleLabels) as Array<keyof typeof lifecycleLabels>).map((c) => (
          <button key={c} type="button" class={c === 'start' ? '' : 'danger'} onClick={() => setAsking(c)}>
            {lifecycleLabels[c]} PLC…
          </button>
        ))}
      </div>
      <Outcome result={outcome} />
      {asking && (
        <Confirm
          title={`${lifecycleLabels[asking]} PLC ${plcId}?`}
          confirmLabel={`${lifecycleLabels[asking]} ${plcId}`}
          danger={asking !== 'start'}
          onConfirm={() => void act(asking)}
          onCancel={() => setAsking(undefined)}
        >
          <p>
            This {asking === 'start' ? 'starts' : asking === 'stop' ? 'stops' : 'resets'} the PLC runtime of{' '}
            <strong>{name}</strong> ({plcId}).{asking !== 'start' && ' A real machine stops.'}
          </p>
        </Confirm>
      )}
    </div>
  );
}

function Control({ plcId }: { plcId: string }) {
  const status = usePoll(() => api.get<PlcStatus>(plcPath(plcId, 'status')), 3000, `status-${plcId}`);
  const features = settings.value.features;
  const name = status.data?.displayName || plcId;
  return (
    <section aria-labelledby="control-title">
      <h1 id="control-title">
        {name} <small class="muted">{plcId}</small>
      </h1>
      <p>
        ADS state <strong>{status.data?.adsState ?? '—'}</strong> · <a href={href('plc', plcId)}>Symbols</a>
      </p>
      {features.Simulation === true && status.data?.mode === 'Simulated' && <Simulation plcId={plcId} />}
      {features.Lifecycle === true && session.value?.permissions.lifecycle === true && (
        <Lifecycle plcId={plcId} name={name} />
      )}
    </section>
  );
}

function PlcChooser() {
  const plcs = usePoll(() => api.get<PlcSummary[]>('/api/plcs'), 10_000, 'plcs');
  return (
    <section aria-labelledby="control-title">
      <h1 id="control-title">Simulation and lifecycle</h1>
      <ul>
        {plcs.data?.map((p) => (
          <li key={p.plcId}>
            <a href={href('sim', p.plcId)}>{p.displayName || p.plcId}</a> <span class="muted">{p.mode}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}

export const controlView: View = {
  id: 'sim',
  title: 'Simulation',
  nav: true,
  // Every simulation and lifecycle route needs LifecycleAccess.
  allowed: (s, features) =>
    s.permissions.lifecycle && (features.Simulation === true || features.Lifecycle === true),
  render: ([plcId]) => (plcId === undefined ? <PlcChooser /> : <Control plcId={plcId} />),
};
