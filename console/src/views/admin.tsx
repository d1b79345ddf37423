// Admin (role admin): open stream connections with terminate, MQTT publishing, and the audit trail.
import { useRef, useState } from 'preact/hooks';
import { api, describeError } from '../api/http.ts';
import type { AuditPage, AuditRecord, StreamRow } from '../api/types.ts';
import { Confirm } from '../components/confirm.tsx';
import { usePoll } from '../live/use-live.ts';
import type { View } from './view.ts';
import { Outcome, type Result } from '../components/outcome.tsx';
import { MqttPanel } from './mqtt-panel.tsx';

function Connections() {
  const rows = usePoll(() => api.get<StreamRow[]>('/api/admin/connections'), 2000, 'connections');
  const [ending, setEnding] = useState<StreamRow | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<Result | undefined>(undefined);
  const terminate = async (row: StreamRow): Promise<void> => {
    setEnding(undefined);
    // The outcome shown is always this termination's: an earlier one's must not stand for it while it runs.
    setOutcome(undefined);
    setBusy(true);
    let result: Result;
    try {
      await api.delete(`/api/admin/connections/${encodeURIComponent(row.id)}`);
      result = { ok: true, message: `Ended ${row.kind} of ${row.user}.` };
    } catch (err) {
      result = { ok: false, message: describeError(err) };
    }
    // Reported once the list is fresh: until then it would still offer the stream just ended for termination.
    await rows.reload();
    setBusy(false);
    setOutcome(result);
  };
  return (
    <section aria-labelledby="conn-title" class="panel">
      <h2 id="conn-title">Stream connections</h2>
      {rows.error !== undefined && (
        <p role="alert" class="error-text">
          {describeError(rows.error)}
        </p>
      )}
      <div class="table-wrap">
        <table aria-label="Open stream connections">
          <thead>
            <tr>
              <th scope="col">Kind</th>
              <th scope="col">PLC</th>
              <th scope="col">User</th>
              <th scope="col">Remote</th>
              <th scope="col">Opened</th>
              <th scope="col">Sent</th>
              <th scope="col">Dropped</th>
              <th scope="col">
                <span class="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.data?.map((r) => (
              <tr key={r.id} data-kind={r.kind}>
                <td>{r.kind}</td>
                <td>{r.plcId ?? '—'}</td>
                <td>{r.user}</td>
                <td class="mono">{r.remote}</td>
                <td>{new Date(r.openedAt).toLocaleTimeString()}</td>
                <td class="num">{r.sent}</td>
                <td class="num">{r.dropped}</td>
                <td>
                  <button
                    type="button"
                    class="danger"
                    disabled={busy}
                    onClick={() => setEnding(r)}
                    aria-label={`Terminate ${r.kind} of ${r.user}`}
                  >
                    Terminate
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <Outcome result={outcome} />
      {ending && (
        <Confirm
          title="Terminate this stream?"
          confirmLabel="Terminate"
          danger
          onConfirm={() => void terminate(ending)}
          onCancel={() => setEnding(undefined)}
        >
          <p>
            {ending.kind} of <strong>{ending.user}</strong>
            {ending.plcId ? ` on ${ending.plcId}` : ''}, opened {new Date(ending.openedAt).toLocaleString()}.
            Its client may reconnect.
          </p>
        </Confirm>
      )}
    </section>
  );
}

const auditKept = 500;

/** Follows the trail from the start to its end, then only what is new; the newest `auditKept` are kept. */
function useAuditTrail(): { items: AuditRecord[]; error: unknown } {
  const cursor = useRef(0);
  const kept = useRef<AuditRecord[]>([]);
  const page = usePoll(
    async () => {
      for (;;) {
        const next = await api.get<AuditPage>(`/api/admin/audit?after=${cursor.current}&limit=1000`);
        kept.current = [...kept.current, ...next.items].slice(-auditKept);
        cursor.current = next.nextAfter;
        if (next.items.length < 1000) return kept.current;
      }
    },
    3000,
    'audit',
  );
  return { items: [...(page.data ?? [])].reverse(), error: page.error };
}

function Audit() {
  const page = useAuditTrail();
  const items = page.items;
  return (
    <section aria-labelledby="audit-title" class="panel">
      <h2 id="audit-title">Audit trail</h2>
      {page.error !== undefined && (
        <p role="alert" class="error-text">
          {describeError(page.error)}
        </p>
      )}
      <div class="table-wrap">
        <table aria-label="Audit trail, newest first">
          <thead>
            <tr>
              <th scope="col">Time</th>
              <th scope="col">User</th>
              <th scope="col">PLC</th>
              <th scope="col">Action</th>
              <th scope="col">Target</th>
              <th scope="col">Result</th>
            </tr>
          </thead>
          <tbody>
            {items.map((r) => (
              <tr key={r.seq} data-action={r.action}>
                <td>
                  <time dateTime={r.at}>{new Date(r.at).toLocaleString()}</time>
                </td>
                <td>{r.sub}</td>
                <td>{r.plcId ?? '—'}</td>
                <td>{r.action}</td>
                <td class="mono">{r.target}</td>
                <td class={r.result === 'ok' ? 'ok-text' : 'error-text'}>
                  {r.result === 'ok' ? 'ok' : (r.error?.code ?? 'error')}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

export const adminView: View = {
  id: 'admin',
  title: 'Admin',
  nav: true,
  allowed: (s) => s.permissions.admin,
  render: () => (
    <>
      <h1>Admin</h1>
      <Connections />
      <MqttPanel />
      <Audit />
    </>
  ),
};
