// The alarm-system KPI panel: the ISA-18.2 / EEMUA 191 figures of one PLC or of the permitted fleet over a
// chosen window, each beside its benchmark, and the part of the window the gateway could cover.
import { useState } from 'preact/hooks';
import { api, describeError, plcPath } from '../api/http.ts';
import type { FleetKpis, PlcKpis } from '../api/types.ts';
import { usePoll } from '../live/use-live.ts';

type Figures = PlcKpis['figures'];
type Benchmarks = PlcKpis['benchmarks'];

const windows: ReadonlyArray<[number, string]> = [
  [1, 'last hour'],
  [8, 'last 8 hours (a shift)'],
  [24, 'last 24 hours'],
  [24 * 7, 'last 7 days'],
];

const percent = (share: number | null): string =>
  share === null ? '—' : `${(share * 100).toFixed(share < 0.1 ? 1 : 0)} %`;
const number = (n: number | null, digits = 2): string =>
  n === null ? '—' : String(Number(n.toFixed(digits)));

/** Within the benchmark, or not: shown as text, never colour alone. */
function Verdict({ ok }: { ok: boolean | undefined }) {
  if (ok === undefined) return null;
  return <span class={`badge ${ok ? 'ok' : 'bad'}`}>{ok ? 'within' : 'beyond'}</span>;
}

function rows(f: Figures, b: Benchmarks) {
  const rate = f.raised.per10Minutes;
  return [
    {
      id: 'rate',
      figure: 'Alarms raised per 10 minutes (average)',
      value: `${number(rate.average)}${rate.assessment ? ` — ${rate.assessment}` : ''}`,
      benchmark: `about ${b.raisedPer10Minutes.veryLikelyAcceptable} very likely acceptable, about ${b.raisedPer10Minutes.maximumManageable} manageable`,
      ok: rate.average === null ? undefined : rate.average <= b.raisedPer10Minutes.maximumManageable,
    },
    {
      id: 'peak',
      figure: 'Most raised in one 10-minute period',
      value: String(rate.peak),
      benchmark: `at most ${b.peakPer10MinutesAtMost}`,
      ok: rate.peak <= b.peakPer10MinutesAtMost,
    },
    {
      id: 'flood',
      figure: `Time in flood (more than ${b.floodAbove} in 10 minutes)`,
      value: `${percent(f.raised.floodShare)} (${f.raised.floodPeriods} of ${f.raised.periods} periods)`,
      benchmark: `below ${percent(b.floodShareBelow)}`,
      ok: f.raised.floodShare === null ? undefined : f.raised.floodShare < b.floodShareBelow,
    },
    {
      id: 'standing',
      figure: 'Standing alarms (outstanding longer than 24 h)',
      value: String(f.standing.count),
      benchmark: `fewer than ${b.standingBelow}`,
      ok: f.standing.count < b.standingBelow,
    },
    {
      id: 'chattering',
      figure: 'Chattering alarms (3 raises within 60 s)',
      value: String(f.chattering.count),
      benchmark: String(b.chatteringTarget),
      ok: f.chattering.count <= b.chatteringTarget,
    },
    {
      id: 'top',
      figure: 'The 10 most frequent alarms’ share of all',
      value: percent(f.topKeys.share),
      benchmark: `below ${percent(b.topKeysShareBelow)}`,
      ok: f.topKeys.share === null ? undefined : f.topKeys.share < b.topKeysShareBelow,
    },
    {
      id: 'ack',
      figure: 'Time to acknowledge (p50 / p90)',
      value:
        f.timeToAcknowledge.count === 0
          ? 'none acknowledged'
          : `${number(f.timeToAcknowledge.p50Seconds, 1)} s / ${number(f.timeToAcknowledge.p90Seconds, 1)} s`,
      benchmark: '',
      ok: undefined,
    },
  ];
}

function KpiTable({ figures, benchmarks }: { figures: Figures; benchmarks: Benchmarks }) {
  return (
    <div class="table-wrap">
      <table aria-label="Alarm KPIs">
        <thead>
          <tr>
            <th scope="col">Figure</th>
            <th scope="col">Value</th>
            <th scope="col">Benchmark (ISA-18.2 / EEMUA 191)</th>
          </tr>
        </thead>
        <tbody>
          {rows(figures, benchmarks).map((r) => (
            <tr key={r.id} data-kpi={r.id}>
              <th scope="row">{r.figure}</th>
              <td>{r.value}</td>
              <td>
                {r.benchmark} <Verdict ok={r.ok} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Frequent({ figures }: { figures: Figures }) {
  if (figures.topKeys.items.length === 0) return null;
  return (
    <details>
      <summary>Most frequent alarms</summary>
      <ol class="small">
        {figures.topKeys.items.map((k) => (
          <li key={`${k.plcId}:${k.key}`}>
            <span class="mono">{k.key}</span> on {k.plcId}: {k.raises} ({percent(k.share)})
          </li>
        ))}
      </ol>
    </details>
  );
}

/** The KPI panel of one PLC (`plcId`) or of every PLC the token may see; loaded again every minute. */
export function AlarmKpiPanel({ plcId }: { plcId: string | undefined }) {
  const [hours, setHours] = useState(24);
  const path = plcId === undefined ? '/api/alarms/kpis' : plcPath(plcId, 'alarms', 'kpis');
  const kpis = usePoll(
    () => {
      const to = Date.now();
      const query = `from=${new Date(to - hours * 3_600_000).toISOString()}&to=${new Date(to).toISOString()}`;
      return api.get<PlcKpis | FleetKpis>(`${path}?${query}`);
    },
    60_000,
    `alarm-kpis-${path}-${hours}`,
  );
  const data = kpis.data;
  const now = data?.figures.now;
  const source = data === undefined ? undefined : 'source' in data ? data.source : undefined;
  return (
    <section aria-labelledby="alarm-kpis-title" class="panel" data-testid="alarm-kpis">
      <h2 id="alarm-kpis-title">Alarm KPIs {plcId === undefined ? 'of the fleet' : `of ${plcId}`}</h2>
      <div class="filters">
        <div>
          <label for="kpi-window">Window</label>
          <select
            id="kpi-window"
            value={String(hours)}
            onChange={(e) => setHours(Number(e.currentTarget.value))}
          >
            {windows.map(([value, text]) => (
              <option key={value} value={String(value)}>
                {text}
              </option>
            ))}
          </select>
        </div>
        <button type="button" onClick={kpis.refresh}>
          Refresh
        </button>
      </div>
      {kpis.error !== undefined && (
        <p role="alert" class="error-text">
          {describeError(kpis.error)}
        </p>
      )}
      {data === undefined ? (
        <p class="muted">Loading…</p>
      ) : (
        <>
          <p class="small" data-testid="kpi-covered">
            Over {new Date(data.covered.from).toLocaleString()} to{' '}
            {new Date(data.covered.to).toLocaleString()}
            {source === undefined
              ? ''
              : source === 'history'
                ? ' (history store)'
                : ' (what the journal holds)'}
            {data.covered.from !== data.requested.from ? ': the data starts later than the window' : ''}.
          </p>
          {Date.parse(data.covered.to) - Date.parse(data.covered.from) < 600_000 && (
            <p class="small muted">
              Less than one 10-minute period is covered: the rates say little yet (ISA-18.2 judges them over
              weeks).
            </p>
          )}
          {now && (
            <p class="small" data-testid="kpi-now">
              Now: {now.outstanding} outstanding, {now.shelved} shelved, {now.outOfService} out of service,{' '}
              {now.suppressed} suppressed.
            </p>
          )}
          <KpiTable figures={data.figures} benchmarks={data.benchmarks} />
          <Frequent figures={data.figures} />
        </>
      )}
    </section>
  );
}
