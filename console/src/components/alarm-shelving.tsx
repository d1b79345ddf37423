// Alarm management in the alarm view: shelve an outstanding alarm for a time with a reason (WriteAccess), and the
// groups the default list leaves out (shelved, out of service, suppressed) with unshelve and return to service.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, describeError, plcPath } from '../api/http.ts';
import type { Alarm, AlarmList } from '../api/types.ts';
import { session } from '../auth/session.ts';
import { usePoll } from '../live/use-live.ts';
import { SeverityBadge } from './badges.tsx';
import { Outcome, type Result } from './outcome.tsx';

/** Shelve durations offered, in minutes (the gateway bounds them by PlcAlarms.MaxShelveMinutes). */
const durations: ReadonlyArray<[number, string]> = [
  [15, '15 minutes'],
  [60, '1 hour'],
  [240, '4 hours'],
  [480, '8 hours (a shift)'],
];

const timeOf = (iso: string): string => new Date(iso).toLocaleString();

/** The shelve form in a modal dialog: duration and a reason, both required; the gateway's refusal stays in it. */
function ShelveDialog({ alarm, onDone }: { alarm: Alarm; onDone: (result?: Result) => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  const [minutes, setMinutes] = useState(60);
  const [reason, setReason] = useState('');
  const [failure, setFailure] = useState<Result | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    const dialog = ref.current;
    if (dialog !== null && !dialog.open) dialog.showModal();
    return () => dialog?.close();
  }, []);
  const submit = async (e: Event): Promise<void> => {
    e.preventDefault();
    setBusy(true);
    try {
      const entry = await api.post<{ until?: string }>(plcPath(alarm.scope, 'alarms', alarm.code, 'shelve'), {
        json: { minutes, reason: reason.trim() },
      });
      onDone({
        ok: true,
        message: `Shelved${entry.until === undefined ? '' : ` until ${timeOf(entry.until)}`}`,
      });
    } catch (err) {
      setFailure({ ok: false, message: describeError(err) });
      setBusy(false);
    }
  };
  const id = `shelve-${alarm.scope}-${alarm.code}`.replace(/[^A-Za-z0-9_-]/g, '_');
  return (
    <dialog ref={ref} class="confirm" aria-labelledby={`${id}-title`} onCancel={() => onDone()}>
      <form onSubmit={(e) => void submit(e)}>
        <h2 id={`${id}-title`}>
          Shelve {alarm.code} on {alarm.scope}
        </h2>
        <p class="small muted">
          A shelved alarm leaves the list until its time runs out, it is unshelved, or it ends.
        </p>
        <div class="form-grid">
          <label for={`${id}-minutes`}>Duration</label>
          <select
            id={`${id}-minutes`}
            value={String(minutes)}
            onChange={(e) => setMinutes(Number(e.currentTarget.value))}
          >
            {durations.map(([value, text]) => (
              <option key={value} value={String(value)}>
                {text}
              </option>
            ))}
          </select>
          <label for={`${id}-reason`}>Reason</label>
          <textarea
            id={`${id}-reason`}
            required
            rows={2}
            value={reason}
            onInput={(e) => setReason(e.currentTarget.value)}
          />
        </div>
        <Outcome result={failure} />
        <div class="actions">
          <button type="button" onClick={() => onDone()}>
            Cancel
          </button>
          <button type="submit" class="primary" disabled={busy || reason.trim() === ''}>
            Shelve
          </button>
        </div>
      </form>
    </dialog>
  );
}

/** The row action that opens the shelve form (shown to WriteAccess only, as the gateway would refuse others). */
export function ShelveButton({ alarm }: { alarm: Alarm }) {
  const [open, setOpen] = useState(false);
  const [result, setResult] = useState<Result | undefined>(undefined);
  return (
    <>
      <button
        type="button"
        onClick={() => {
          setResult(undefined);
          setOpen(true);
        }}
        aria-label={`Shelve ${alarm.code} on ${alarm.scope}`}
      >
        Shelve…
      </button>
      <Outcome result={result} inline />
      {open && (
        <ShelveDialog
          alarm={alarm}
          onDone={(done) => {
            setOpen(false);
            if (done !== undefined) setResult(done);
          }}
        />
      )}
    </>
  );
}

function GroupAction({ alarm, action, label }: { alarm: Alarm; action: string; label: string }) {
  const [result, setResult] = useState<Result | undefined>(undefined);
  const run = async (): Promise<void> => {
    try {
      await api.post(plcPath(alarm.scope, 'alarms', alarm.code, action));
      setResult({ ok: true, message: 'Done' });
    } catch (err) {
      setResult({ ok: false, message: describeError(err) });
    }
  };
  return (
    <>
      <button
        type="button"
        onClick={() => void run()}
        aria-label={`${label} ${alarm.code} on ${alarm.scope}`}
      >
        {label}
      </button>
      <Outcome result={result} inline />
    </>
  );
}

type Group = 'shelved' | 'outOfService' | 'suppressed';

const groupTitles: Record<Group, string> = {
  shelved: 'Shelved',
  outOfService: 'Out of service',
  suppressed: 'Suppressed by design',
};

function inGroup(a: Alarm, group: Group): boolean {
  if (group === 'shelved') return a['x-shelved'] !== undefined;
  if (group === 'outOfService') return a['x-outOfService'] !== undefined;
  return a['x-suppressed'] !== undefined;
}

function Why({ alarm, group }: { alarm: Alarm; group: Group }) {
  const shelved = alarm['x-shelved'];
  const out = alarm['x-outOfService'];
  const suppressed = alarm['x-suppressed'];
  if (group === 'shelved' && shelved)
    return (
      <span>
        by {shelved.by} until <time dateTime={shelved.until}>{timeOf(shelved.until)}</time>: {shelved.reason}
      </span>
    );
  if (group === 'outOfService' && out)
    return (
      <span>
        by {out.by} since <time dateTime={out.at}>{timeOf(out.at)}</time>: {out.reason}
      </span>
    );
  return <span>rule {suppressed?.rule ?? ''}</span>;
}

function GroupTable({ group, alarms }: { group: Group; alarms: Alarm[] }) {
  const permissions = session.value?.permissions;
  const action =
    group === 'shelved' && permissions?.write === true
      ? { action: 'unshelve', label: 'Unshelve' }
      : group === 'outOfService' && permissions?.admin === true
        ? { action: 'return-to-service', label: 'Return to service' }
        : undefined;
  const title = `${groupTitles[group]} (${alarms.length})`;
  return (
    <section aria-label={groupTitles[group]} data-group={group}>
      <h3>{title}</h3>
      {alarms.length === 0 ? (
        <p class="muted small">None.</p>
      ) : (
        <div class="table-wrap">
          <table aria-label={`${groupTitles[group]} alarms`}>
            <thead>
              <tr>
                <th scope="col">Severity</th>
                <th scope="col">PLC</th>
                <th scope="col">Alarm</th>
                <th scope="col">Status</th>
                <th scope="col">Why</th>
                {action && <th scope="col">Action</th>}
              </tr>
            </thead>
            <tbody>
              {alarms.map((a) => (
                <tr key={`${a.scope}:${a.code}`} data-alarm={a.code}>
                  <td>
                    <SeverityBadge severity={a.severity} label={a.severityLabel} />
                  </td>
                  <td>{a.scope}</td>
                  <td class="mono">{a.code}</td>
                  <td>{a.status}</td>
                  <td>
                    <Why alarm={a} group={group} />
                  </td>
                  {action && (
                    <td>
                      <GroupAction alarm={a} action={action.action} label={action.label} />
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

/**
 * The alarms the default list leaves out, by group, for one PLC or the permitted fleet. Loaded again whenever
 * the alarm stream announces a change (`changes`), and every 5 s for their own transitions.
 */
export function AlarmGroups({ plcId, changes }: { plcId: string | undefined; changes: number }) {
  const path = plcId === undefined ? '/api/alarms' : plcPath(plcId, 'alarms');
  const groups = usePoll(
    () => api.get<AlarmList>(`${path}?include=shelved,outOfService,suppressed`),
    5000,
    `alarm-groups-${path}`,
  );
  const { refresh } = groups;
  useEffect(() => {
    if (changes > 0) refresh();
  }, [changes]);
  const items = groups.data?.items ?? [];
  return (
    <section aria-labelledby="alarm-groups-title" class="panel alarm-groups">
      <h2 id="alarm-groups-title">Left out of the list</h2>
      {groups.error !== undefined && (
        <p role="alert" class="error-text">
          {describeError(groups.error)}
        </p>
      )}
      {(['shelved', 'outOfService', 'suppressed'] as const).map((group) => (
        <GroupTable key={group} group={group} alarms={items.filter((a) => inGroup(a, group))} />
      ))}
    </section>
  );
}
