// Alarms: the fleet's outstanding alarms with severity, status, times and description; filters; acknowledge
// and shelve (WriteAccess) with the result shown; the shelved, out-of-service and suppressed groups; the KPI
// panel; and the journal of one PLC with its history by date.
import { useState } from 'preact/hooks';
import { api, describeError, plcPath } from '../api/http.ts';
import type { Alarm, AlarmList, HistoryItem } from '../api/types.ts';
import { session } from '../auth/session.ts';
import { AlarmKpiPanel } from '../components/alarm-kpis.tsx';
import { AlarmGroups, ShelveButton } from '../components/alarm-shelving.tsx';
import { AlarmHistory, TransitionTable } from '../components/alarm-history.tsx';
import { SeverityBadge } from '../components/badges.tsx';
import { useAlarms } from '../live/alarm-feed.ts';
import { usePoll } from '../live/use-live.ts';
import { href } from '../router.ts';
import type { View } from './view.ts';
import { Outcome, type Result } from '../components/outcome.tsx';

/** When the alarm occurred, in the browser's zone; the PLC's own clock reading is kept beside it. */
function AlarmTime({ alarm }: { alarm: Alarm }) {
  const ads = alarm['x-ads'];
  if (ads.plcTimestamp === undefined) return <span class="muted">no PLC time</span>;
  // Without an offset (PlcClock Unspecified) the time is the PLC's wall time and cannot be converted.
  const hasOffset = /(Z|[+-]\d\d:\d\d)$/.test(ads.plcTimestamp);
  const shown = hasOffset
    ? new Date(ads.plcTimestamp).toLocaleString()
    : (alarm.lastOccurred ?? '').replace('T', ' ');
  return (
    <span>
      <time dateTime={ads.plcTimestamp}>{shown}</time>
      <br />
      <small class="muted">
        PLC clock {ads.plcClock ?? 'Unspecified'}
        {hasOffset ? '' : ', shown as the PLC read it'}
      </small>
    </span>
  );
}

function AckButton({ alarm }: { alarm: Alarm }) {
  const [result, setResult] = useState<Result | undefined>(undefined);
  const ack = async (): Promise<void> => {
    try {
      const answer = await api.post<{ acknowledged: boolean }>(
        plcPath(alarm.scope, 'alarms', alarm.code, 'acknowledge'),
      );
      setResult(
        answer.acknowledged
          ? { ok: true, message: 'Acknowledged' }
          : { ok: false, message: 'The PLC had nothing to acknowledge' },
      );
    } catch (err) {
      setResult({ ok: false, message: describeError(err) });
    }
  };
  return (
    <>
      {alarm.capabilities.includes('acknowledge') && (
        <button
          type="button"
          onClick={() => void ack()}
          aria-label={`Acknowledge ${alarm.code} on ${alarm.scope}`}
        >
          Acknowledge
        </button>
      )}
      <Outcome result={result} inline />
    </>
  );
}

function Filters({
  list,
  filter,
  setFilter,
}: {
  list: Alarm[];
  filter: Filter;
  setFilter: (f: Filter) => void;
}) {
  const plcs = [...new Set(list.map((a) => a.scope))].sort();
  return (
    <div class="filters" role="group" aria-label="Filters">
      <div>
        <label for="f-plc">PLC</label>
        <select
          id="f-plc"
          value={filter.plc}
          onChange={(e) => setFilter({ ...filter, plc: e.currentTarget.value })}
        >
          <option value="">all</option>
          {plcs.map((p) => (
            <option key={p} value={p}>
              {p}
            </option>
          ))}
        </select>
      </div>
      <div>
        <label for="f-sev">Severity at least</label>
        <select
          id="f-sev"
          value={String(filter.minSeverity)}
          onChange={(e) => setFilter({ ...filter, minSeverity: Number(e.currentTarget.value) })}
        >
          <option value="0">any</option>
          <option value="1">INFO</option>
          <option value="2">WARNING</option>
          <option value="3">ERROR</option>
        </select>
      </div>
      <div>
        <label for="f-status">Status</label>
        <select
          id="f-status"
          value={filter.status}
          onChange={(e) => setFilter({ ...filter, status: e.currentTarget.value })}
        >
          <option value="">any</option>
          <option value="active">active</option>
          <option value="passive">passive (awaiting acknowledgement)</option>
        </select>
      </div>
      <div>
        <label for="f-text">Text</label>
        <input
          id="f-text"
          type="search"
          value={filter.text}
          onInput={(e) => setFilter({ ...filter, text: e.currentTarget.value })}
        />
      </div>
    </div>
  );
}

interface Filter {
  plc: string;
  minSeverity: number;
  status: string;
  text: string;
}

function matches(a: Alarm, f: Filter): boolean {
  const text = f.text.trim().toLowerCase();
  return (
    (f.plc === '' || a.scope === f.plc) &&
    a.severity >= f.minSeverity &&
    (f.status === '' || a.status === f.status) &&
    (text === '' || `${a.code} ${a.description} ${a['x-ads'].equipmentId}`.toLowerCase().includes(text))
  );
}

function AlarmTable({ alarms }: { alarms: Alarm[] }) {
  const canAck = session.value?.permissions.write === true;
  return (
    <div class="table-wrap">
      <table aria-label="Outstanding alarms">
        <thead>
          <tr>
            <th scope="col">Severity</th>
            <th scope="col">PLC</th>
            <th scope="col">Alarm</th>
            <th scope="col">Description</th>
            <th scope="col">Status</th>
            <th scope="col">Occurred</th>
            {canAck && <th scope="col">Actions</th>}
          </tr>
        </thead>
        <tbody>
          {alarms.map((a) => (
            <tr key={`${a.scope}:${a.code}`} data-alarm={a.code} data-status={a.status}>
              <td>
                <SeverityBadge severity={a.severity} label={a.severityLabel} />
              </td>
              <td>
                <a href={href('alarms', a.scope)}>{a.scope}</a>
              </td>
              <td class="mono">
                {a.code}
                <br />
                <small class="muted">
                  {a['x-ads'].equipmentId} #{a['x-ads'].errorCode}
                </small>
              </td>
              <td>{a.description || <span class="muted">—</span>}</td>
              <td>
                {a.status}
                {a['x-ads'].needsAcknowledgement && !a['x-ads'].isAcknowledged && (
                  <>
                    <br />
                    <small>awaiting acknowledgement</small>
                  </>
                )}
              </td>
              <td>
                <AlarmTime alarm={a} />
              </td>
              {canAck && (
                <td>
                  <AckButton alarm={a} /> <ShelveButton alarm={a} />
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Journal({ plcId }: { plcId: string }) {
  const journal = usePoll(
    () => api.get<{ items: HistoryItem[] }>(`${plcPath(plcId, 'alarms', 'history')}?limit=200`),
    3000,
    `journal-${plcId}`,
  );
  const items = [...(journal.data?.items ?? [])].reverse();
  return (
    <section aria-labelledby="journal-title" class="panel">
      <h2 id="journal-title">Journal of {plcId}</h2>
      {journal.error !== undefined && (
        <p role="alert" class="error-text">
          {describeError(journal.error)}
        </p>
      )}
      <TransitionTable items={items} label={`Alarm journal of ${plcId}`} />
    </section>
  );
}

function Alarms({ plcId }: { plcId: string | undefined }) {
  const feed = useAlarms();
  const [filter, setFilter] = useState<Filter>({ plc: plcId ?? '', minSeverity: 0, status: '', text: '' });
  const list: AlarmList | undefined = feed.list;
  const shown = (list?.items ?? []).filter((a) => matches(a, filter));
  return (
    <section aria-labelledby="alarms-title">
      <div class="view-head">
        <h1 id="alarms-title">Alarms</h1>
        <p role="status" data-testid="alarm-feed" data-applied={feed.applied}>
          {feed.status}
        </p>
      </div>
      {feed.error !== undefined && (
        <p role="alert" class="error-text">
          {feed.error}
        </p>
      )}
      {list?.partial && (
        <p class="error-text">
          Not read fresh from:{' '}
          {list['x-ads-failed']
            .map((f) => `${f.peer} (${f.state} since ${new Date(f.since).toLocaleTimeString()})`)
            .join(', ')}
        </p>
      )}
      <Filters list={list?.items ?? []} filter={filter} setFilter={setFilter} />
      {list === undefined ? (
        <p class="muted">Loading…</p>
      ) : shown.length === 0 ? (
        <p>
          No outstanding alarm
          {filter.plc || filter.text || filter.status || filter.minSeverity ? ' matches the filters' : ''}.
        </p>
      ) : (
        <AlarmTable alarms={shown} />
      )}
      <AlarmGroups plcId={plcId} changes={feed.managed} />
      <AlarmKpiPanel plcId={plcId} />
      {plcId !== undefined && <Journal plcId={plcId} />}
      {plcId !== undefined && <AlarmHistory plcId={plcId} />}
    </section>
  );
}

export const alarmsView: View = {
  id: 'alarms',
  title: 'Alarms',
  nav: true,
  allowed: (s, features) => s.permissions.read && features.Alarms === true,
  render: ([plcId]) => <Alarms plcId={plcId} />,
};
