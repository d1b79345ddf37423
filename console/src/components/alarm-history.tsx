// Alarm history of one PLC by date: a from/to window (the browser's local time) paged forwards and back through
// GET /api/plcs/{plcId}/alarms/history?from=&to=&after=&limit=, served from the history store where the gateway
// records alarms (beyond the in-memory journal), else from the journal.
import { useState } from 'preact/hooks';
import { api, describeError, plcPath } from '../api/http.ts';
import type { HistoryItem } from '../api/types.ts';
import { SeverityBadge } from './badges.tsx';

const pageSizes = [10, 50, 200];
const day = 86_400_000;

/** A time as a datetime-local input shows it: the browser's local time to the minute. */
function localInput(ms: number): string {
  const d = new Date(ms);
  const pad = (n: number): string => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** Alarm transitions, one row each (oldest first as given): time, transition, alarm, severity and who acknowledged. */
export function TransitionTable({ items, label }: { items: readonly HistoryItem[]; label: string }) {
  return (
    <div class="table-wrap">
      <table aria-label={label}>
        <thead>
          <tr>
            <th scope="col">Gateway time</th>
            <th scope="col">Transition</th>
            <th scope="col">Alarm</th>
            <th scope="col">Severity</th>
            <th scope="col">By</th>
          </tr>
        </thead>
        <tbody>
          {items.map((i) => (
            <tr key={i.seq} data-seq={i.seq} data-kind={i.kind}>
              <td>
                <time dateTime={i.at}>{new Date(i.at).toLocaleString()}</time>
              </td>
              <td>{i.kind}</td>
              <td class="mono">{i.alarm.code}</td>
              <td>
                <SeverityBadge severity={i.alarm.severity} label={i.alarm.severityLabel} />
              </td>
              <td>{i.user ?? ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

interface Page {
  items: HistoryItem[];
  nextAfter: number;
}

export function AlarmHistory({ plcId }: { plcId: string }) {
  // The last day up to the next whole minute, so what happened this minute is in it.
  const [from, setFrom] = useState(() => localInput(Date.now() - day));
  const [to, setTo] = useState(() => localInput(Date.now() + 60_000));
  const [limit, setLimit] = useState(50);
  /** The `after` cursor of every page shown so far (the first page has none): Previous goes back one. */
  const [cursors, setCursors] = useState<Array<number | undefined>>([]);
  const [page, setPage] = useState<Page | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);

  const load = async (stack: Array<number | undefined>): Promise<void> => {
    const start = new Date(from);
    const end = new Date(to);
    if (Number.isNaN(start.getTime()) || Number.isNaN(end.getTime())) {
      setError('Choose both dates.');
      return;
    }
    const query = new URLSearchParams({
      from: start.toISOString(),
      to: end.toISOString(),
      limit: String(limit),
    });
    const after = stack.at(-1);
    if (after !== undefined) query.set('after', String(after));
    setBusy(true);
    try {
      const answer = await api.get<Page>(`${plcPath(plcId, 'alarms', 'history')}?${query}`);
      setPage(answer);
      setCursors(stack);
      setError(undefined);
    } catch (err) {
      setError(describeError(err));
    } finally {
      setBusy(false);
    }
  };

  const number = cursors.length;
  const full = page !== undefined && page.items.length === limit;
  return (
    <section aria-labelledby="alarm-history-title" class="panel">
      <h2 id="alarm-history-title">History of {plcId} by date</h2>
      <form
        class="filters"
        aria-label="Alarm history window"
        onSubmit={(e) => {
          e.preventDefault();
          void load([undefined]);
        }}
      >
        <div>
          <label for="ah-from">From</label>
          <input
            id="ah-from"
            type="datetime-local"
            value={from}
            onInput={(e) => setFrom(e.currentTarget.value)}
          />
        </div>
        <div>
          <label for="ah-to">To</label>
          <input id="ah-to" type="datetime-local" value={to} onInput={(e) => setTo(e.currentTarget.value)} />
        </div>
        <div>
          <label for="ah-limit">Per page</label>
          <select
            id="ah-limit"
            value={String(limit)}
            onChange={(e) => setLimit(Number(e.currentTarget.value))}
          >
            {pageSizes.map((n) => (
              <option key={n} value={String(n)}>
                {n}
              </option>
            ))}
          </select>
        </div>
        <button type="submit" disabled={busy}>
          Show
        </button>
      </form>
      {error !== undefined && (
        <p role="alert" class="error-text">
          {error}
        </p>
      )}
      {page !== undefined && (
        <>
          <div class="row">
            <button
              type="button"
              disabled={busy || number <= 1}
              onClick={() => void load(cursors.slice(0, -1))}
            >
              Previous page
            </button>
            <span role="status" data-testid="alarm-history-page">
              Page {number}: {page.items.length} transition{page.items.length === 1 ? '' : 's'}
            </span>
            <button
              type="button"
              disabled={busy || !full}
              onClick={() => void load([...cursors, page.nextAfter])}
            >
              Next page
            </button>
          </div>
          {page.items.length === 0 ? (
            <p>No alarm transition in this window{number > 1 ? ' after the previous page' : ''}.</p>
          ) : (
            <TransitionTable items={page.items} label={`Alarm history of ${plcId}`} />
          )}
        </>
      )}
    </section>
  );
}
