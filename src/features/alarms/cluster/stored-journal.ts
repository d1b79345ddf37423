// Reading a PLC's stored alarm journal back from Redis (state hash and stream) and reporting, once each, the
// entries and snapshots found not of the shape the holder writes.
import type { RedisLink } from '../../../cluster/redis-link.ts';
import type { AlarmLog } from '../monitor.ts';
import type { AlarmLeaseMetrics } from './alarm-lease-metrics.ts';
import type { AlarmKeys } from './alarm-scripts.ts';
import { outstandingAfter, sharedEntry, type StoredJournal, type StreamEntry } from './journal-mirror.ts';
import { checkedSnapshot, quoted } from './journal-wire.ts';

/** Logs and counts rejected entries and snapshots of one PLC's journal, each once. */
export class JournalRejections {
  /** The newest rejected entry reported, and the last rejected snapshot's `<epoch>:<snapseq>`: each reported once. */
  #rejectedSeq = 0;
  #rejectedSnapshot: string | undefined;

  readonly #plcId: string;
  readonly #metrics: AlarmLeaseMetrics;
  readonly #log: AlarmLog;

  constructor(plcId: string, metrics: AlarmLeaseMetrics, log: AlarmLog) {
    this.#plcId = plcId;
    this.#metrics = metrics;
    this.#log = log;
  }

  /** Logged and counted once per entry (reloads and takeovers read the stream again); never served. */
  entry(seq: number, reason: string, text: string): void {
    if (seq <= this.#rejectedSeq) return;
    this.#rejectedSeq = seq;
    this.#metrics.rejected(this.#plcId, 'entry');
    this.#log.warn(
      { plcId: this.#plcId, id: `${seq}-0`, reason, entry: quoted(text) },
      'alarm journal entry rejected: not of the shape the holder writes; left out',
    );
  }

  snapshot(which: string, reason: string, text: string): void {
    if (which === this.#rejectedSnapshot) return;
    this.#rejectedSnapshot = which;
    this.#metrics.rejected(this.#plcId, 'snapshot');
    this.#log.warn(
      { plcId: this.#plcId, snapshot: which, reason, value: quoted(text) },
      'alarm journal snapshot rejected: not of the shape the holder writes; taken as absent',
    );
  }
}

/** The stored journal: its epoch, the outstanding alarms rebuilt from the snapshot and the entries after it. */
export async function readStoredJournal(
  link: RedisLink,
  keys: AlarmKeys,
  rejections: JournalRejections,
): Promise<StoredJournal> {
  const answer = await link.run('alarm-load', (r) =>
    r.multi().hmget(keys.state, 'epoch', 'snapshot', 'snapseq', 'seq').xrange(keys.journal, '-', '+').exec(),
  );
  const [epoch, snapshot, snapseq, seq] = (answer?.[0]?.[1] ?? []) as Array<string | null>;
  if (epoch === null || epoch === undefined) return { epoch: undefined, outstanding: [], entries: [] };
  const entries = ((answer?.[1]?.[1] ?? []) as StreamEntry[]).map(sharedEntry);
  // A state written before snapshots became periodic has its snapshot as of its newest entry.
  const snapshotSeq = Number(snapseq ?? seq ?? epoch);
  const checked = snapshot === null || snapshot === undefined ? [] : checkedSnapshot(snapshot);
  if ('rejected' in checked) rejections.snapshot(`${epoch}:${snapshotSeq}`, checked.rejected, snapshot ?? '');
  const stored = 'rejected' in checked ? undefined : checked;
  return {
    epoch: Number(epoch),
    outstanding: outstandingAfter(stored ?? [], snapshotSeq, entries, Number(epoch)),
    entries,
    ...(stored === undefined ? { snapshotRejected: true } : {}),
  };
}
