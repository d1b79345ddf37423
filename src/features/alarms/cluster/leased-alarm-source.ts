// One monitored PLC on a replica of a cluster. Every replica serves the list, history and streams from its
// copy of the shared journal, fed from the Redis stream. The replica holding the PLC's lease also watches the
// alarm array: it starts from the stored snapshot (so a takeover raises nothing already outstanding and derives
// what changed meanwhile from its first fresh snapshot) and appends transitions with the lease's fencing check.
import type { AlarmTargetConfig } from '../../../config/schema.ts';
import type { AlarmSource, ScopeFailure, TransitionListener } from '../alarm-source.ts';
import { pageOf, type JournalEntry, type JournalPage, type TransitionJournal } from '../journal.ts';
import { AlarmMonitor, type AlarmLog } from '../monitor.ts';
import type { AlarmReading } from '../reading.ts';
import type { ConnectionState, PlcTarget } from '../../../targets/target.ts';
import { Lease } from '../../../cluster/lease.ts';
import { ackKey, alarmKeys, type AlarmKeys } from './alarm-scripts.ts';
import type { AlarmLeaseMetrics } from './alarm-lease-metrics.ts';
import type { Cluster } from '../../../cluster/cluster.ts';
import { JournalMirror, type SharedEntry } from './journal-mirror.ts';
import { readStream, type Appender, type JournalPump, type PendingAppend } from './journal-pump.ts';
import type { LeaseRounds } from '../../../cluster/lease-rounds.ts';
import { JournalRejections, readStoredJournal } from './stored-journal.ts';
import type { ScriptAnswer } from '../../../cluster/redis-link.ts';

export interface LeasedSourceDeps {
  readonly cluster: Cluster;
  readonly pump: JournalPump;
  readonly rounds: LeaseRounds;
  readonly metrics: AlarmLeaseMetrics;
  readonly log: AlarmLog;
  readonly now: () => number;
}

/** How long an acknowledge request waits in Redis for the `acknowledged` transition to claim it. */
const ackClaimMs = 60_000;
const reasons: Record<Exclude<ScopeFailure['state'], 'Stale'>, string> = {
  Connecting: 'The gateway is connecting to the PLC.',
  Disconnected: 'The PLC connection is lost.',
};

/**
 * The journal of the holder's monitor: the shared journal numbers and keeps the transitions (the append script
 * gives them their seq), so this one only hands them on, without writing them out as text it would never read.
 */
class UnkeptJournal implements TransitionJournal {
  #newest = 0;

  newest(): number {
    return this.#newest;
  }

  append(entry: Omit<JournalEntry, 'seq'>): JournalEntry {
    this.#newest += 1;
    return { seq: this.#newest, ...entry };
  }

  holdsAfter(): boolean {
    return false;
  }

  heldSince(): undefined {
    return undefined;
  }

  readSince(after: number | undefined): JournalPage {
    return pageOf(after, this.#newest, []);
  }
}

/** The watch of a lease held: its monitor, the lease value that fences its appends, and what is to append. */
interface Watch {
  readonly monitor: AlarmMonitor;
  readonly value: string;
  /** Whether its first snapshot was read (and handed to the next batch). */
  published: boolean;
  /** Transitions not yet handed to a batch. */
  readonly pending: JournalEntry[];
  /** Whether Redis holds a snapshot of this watch, and how many entries were appended after it. */
  snapshotted: boolean;
  sinceSnapshot: number;
}

export class LeasedAlarmSource implements AlarmSource, Appender {
  readonly plcId: string;
  readonly settings: AlarmTargetConfig;
  readonly journal: JournalMirror;
  readonly #target: PlcTarget;
  readonly #deps: LeasedSourceDeps;
  readonly #keys: AlarmKeys;
  readonly #lease: Lease;
  readonly #listeners = new Set<TransitionListener>();
  readonly #resyncs = new Set<() => void>();
  /** Stream entries and reloads, one at a time in order. */
  #queue: Promise<void> = Promise.resolve();
  #failure: ScopeFailure | undefined;
  #offState: (() => void) | undefined;
  #watch: Watch | undefined;
  /** Set on a takeover from another replica: its last renewal, until the new holder first appends. */
  #takeoverFromMs: number | undefined;
  readonly #rejections: JournalRejections;

  constructor(target: PlcTarget, settings: AlarmTargetConfig, deps: LeasedSourceDeps) {
    this.plcId = target.id;
    this.settings = settings;
    this.#target = target;
    this.#deps = deps;
    this.#keys = alarmKeys(target.id);
    this.#rejections = new JournalRejections(target.id, deps.metrics, deps.log);
    this.journal = new JournalMirror(settings.JournalLength, deps.now(), (seq, reason, text) =>
      this.#rejections.entry(seq, reason, text),
    );
    const { cluster } = deps;
    this.#lease = new Lease(
      'alarm',
      cluster.link,
      this.#keys,
      cluster.replicaId,
      cluster.leaseMs,
      {
        canHold: () => target.connectionState() === 'Connected',
        acquired: (value, previous) => this.#acquired(value, previous),
        lost: (reason) => this.#lost(reason),
        epoch: (epoch) => {
          if (epoch !== undefined && epoch !== this.journal.epoch)
            void this.#enqueue(() => this.#reload(true));
        },
      },
      deps.log,
    );
  }

  get acknowledgeInstancePath(): string {
    const path = this.settings.SymbolPath;
    return this.settings.AcknowledgeInstancePath ?? path.slice(0, Math.max(0, path.lastIndexOf('.')));
  }

  /** Whether this replica holds the PLC's lease and watches its alarm array. */
  get holding(): boolean {
    return this.#watch !== undefined;
  }

  async start(): Promise<void> {
    this.#offState = this.#target.onConnectionState((state) => this.#onState(state));
    this.#onState(this.#target.connectionState());
    await this.#reload(false).catch((err: unknown) =>
      this.#deps.log.warn({ plcId: this.plcId, err: (err as Error).message }, 'alarm journal not loaded yet'),
    );
    this.#deps.pump.follow({
      key: this.#keys.journal,
      cursor: () => (this.journal.epoch === undefined ? '0-0' : `${this.journal.newest()}-0`),
      take: (entries) => this.#enqueue(() => this.#take(entries)),
      pushed: (entries) => this.#enqueue(() => this.#takePushed(entries)),
    });
    this.#deps.rounds.add(this.#lease);
  }

  async stop(): Promise<void> {
    this.#offState?.();
    await this.#deps.rounds.remove(this.#lease);
    this.#listeners.clear();
    this.#resyncs.clear();
  }

  outstanding(): readonly AlarmReading[] {
    return this.journal.outstanding();
  }

  reading(key: string): AlarmReading | undefined {
    return this.journal.reading(key);
  }

  /** The PLC connection's failure, else whether the shared journal is out of reach (the list may be stale). */
  failure(): ScopeFailure | undefined {
    const link = this.#deps.cluster.link;
    if (this.#failure !== undefined || link.reachable) return this.#failure;
    return {
      state: 'Stale',
      reason:
        'The shared Redis is unreachable: these are this replica’s last copy of the alarm journal; ' +
        'transitions resume when it is back.',
      since: new Date(link.unreachableSince).toISOString(),
    };
  }

  onTransitions(listener: TransitionListener): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }

  onResync(listener: () => void): () => void {
    this.#resyncs.add(listener);
    return () => void this.#resyncs.delete(listener);
  }

  /** Kept in Redis: the replica holding the lease may be another one. */
  async noteAcknowledge(key: string, sub: string): Promise<void> {
    await this.#deps.cluster.link
      .run('alarm-ack', (r) => r.set(ackKey(this.plcId, key), sub, 'PX', ackClaimMs))
      .catch((err: unknown) =>
        this.#deps.log.warn(
          { plcId: this.plcId, key, err: (err as Error).message },
          'acknowledging user not recorded: the shared Redis is unreachable',
        ),
      );
  }

  forgetAcknowledge(key: string): void {
    void this.#deps.cluster.link
      .run('alarm-ack', (r) => r.del(ackKey(this.plcId, key)))
      .catch(() => undefined);
  }

  #onState(state: ConnectionState): void {
    if (state === 'Connected') this.#failure = undefined;
    else
      this.#failure = {
        state,
        reason: reasons[state],
        since: this.#failure?.since ?? new Date(this.#deps.now()).toISOString(),
      };
    // A replica that no longer reaches the PLC hands the lease on at once, and appends nothing more: its watch
    // would take the first reading after the reconnection as fresh and raise every outstanding alarm again.
    if (state !== 'Connected' && this.#watch) void this.#lease.release('the PLC connection is lost');
  }

  #enqueue(work: () => Promise<void>): Promise<void> {
    this.#queue = this.#queue
      .then(work)
      .catch((err: unknown) =>
        this.#deps.log.warn(
          { plcId: this.plcId, err: (err as Error).message },
          'alarm journal follow failed',
        ),
      );
    return this.#queue;
  }

  async #take(entries: SharedEntry[]): Promise<void> {
    let taken = this.journal.take(entries);
    if (taken === undefined) {
      const epoch = this.journal.epoch;
      await this.#reload(true);
      if (this.journal.epoch !== epoch) return;
      // Redis holds this copy's epoch still: the entries of another one were not appended by a holder.
      taken = this.journal.take(entries, 'reject') ?? [];
    }
    if (taken.length === 0) return;
    for (const listener of [...this.#listeners]) listener(taken);
  }

  /**
   * A push that does not follow on from this copy's newest entry comes after lost ones (the subscription dropped,
   * or the copy was loading meanwhile): they and it are read from the stream instead.
   */
  async #takePushed(entries: SharedEntry[]): Promise<void> {
    const first = entries[0];
    if (first === undefined) return;
    const fresh = this.journal.missesBefore(first)
      ? await readStream(this.#deps.cluster.link, this.#keys.journal, `${this.journal.newest()}-0`)
      : entries;
    await this.#take(fresh);
  }

  /** Loads the stored journal; `announce`: it restarted, so stream clients get the list again (a resync). */
  async #reload(announce: boolean): Promise<void> {
    const stored = await readStoredJournal(this.#deps.cluster.link, this.#keys, this.#rejections);
    if (announce && stored.epoch === this.journal.epoch) return;
    const previous = this.journal.epoch;
    this.journal.load(stored, this.#deps.now());
    if (!announce) return;
    // A journal started since this copy found none: its clients hold nothing, so its entries are news to them.
    const news = previous === undefined ? this.journal.sinceStart() : undefined;
    if (news !== undefined) {
      if (news.length > 0) for (const listener of [...this.#listeners]) listener(news);
      return;
    }
    const fields = { plcId: this.plcId, epoch: stored.epoch };
    if (previous === undefined) this.#deps.log.info(fields, 'alarm journal started; clients resync');
    else this.#deps.log.warn(fields, 'alarm journal restarted; clients resync');
    for (const listener of [...this.#resyncs]) listener();
  }

  async #acquired(value: string, previous: { holder: string; renewedMs: number } | undefined): Promise<void> {
    await this.#stopWatch();
    const stored = await readStoredJournal(this.#deps.cluster.link, this.#keys, this.#rejections);
    const monitor: AlarmMonitor = new AlarmMonitor(this.#target, this.settings, {
      log: this.#deps.log,
      now: this.#deps.now,
      journal: new UnkeptJournal(),
      onApplied: (entries) => this.#append(watch, entries),
    });
    const watch: Watch = {
      monitor,
      value,
      published: false,
      pending: [],
      snapshotted: false,
      sinceSnapshot: 0,
    };
    // Without a usable snapshot the first one read from the PLC is taken as fresh, as when no journal exists: it
    // raises every outstanding alarm again, which also brings the copies' lists back in line.
    if (stored.epoch !== undefined && stored.snapshotRejected !== true) monitor.seed(stored.outstanding);
    this.#watch = watch;
    this.#takeoverFromMs = previous?.renewedMs;
    this.#deps.metrics.held(this.plcId, true);
    this.#deps.log.info(
      { plcId: this.plcId, replicaId: this.#deps.cluster.replicaId, previous: previous?.holder },
      'alarm lease acquired: watching the alarm array',
    );
    await monitor.start();
  }

  async #lost(reason: string): Promise<void> {
    this.#deps.log.info({ plcId: this.plcId, reason }, 'alarm lease given up: following the journal');
    await this.#stopWatch();
  }

  async #stopWatch(): Promise<void> {
    const watch = this.#watch;
    this.#watch = undefined;
    this.#deps.metrics.held(this.plcId, false);
    await watch?.monitor.stop();
  }

  /** The first snapshot after taking the lease is always appended (it may restart the journal); later ones with transitions. */
  #append(watch: Watch, entries: readonly JournalEntry[]): void {
    if (this.#watch !== watch || (entries.length === 0 && watch.published)) return;
    watch.published = true;
    watch.pending.push(...entries);
    this.#deps.pump.request(this);
  }

  /** This PLC's part of the next batch: every transition since the last one, and a snapshot now and then. */
  nextAppend(): PendingAppend | undefined {
    const watch = this.#watch;
    if (watch === undefined || !watch.published) return undefined;
    const entries = watch.pending.splice(0);
    if (entries.length === 0 && watch.snapshotted) return undefined;
    // A snapshot with the first append (a new journal starts from it), then once per half journal: the stream
    // always still holds every entry after the stored snapshot, which is how a new holder rebuilds the list.
    const snapshotEvery = Math.max(1, Math.floor(this.settings.JournalLength / 2));
    const withSnapshot = !watch.snapshotted || watch.sinceSnapshot + entries.length >= snapshotEvery;
    const keys = [this.#keys.lease, this.#keys.state, this.#keys.journal];
    const args: Array<string | number> = [
      watch.value,
      this.settings.JournalLength,
      Math.floor(this.#deps.now()) * 1000,
      withSnapshot ? JSON.stringify(watch.monitor.outstanding()) : '',
      entries.length,
    ];
    for (const { kind, at, reading } of entries) {
      keys.push(ackKey(this.plcId, reading.key));
      args.push(JSON.stringify({ at, kind, reading }), kind === 'acknowledged' ? '1' : '0');
    }
    return { keys, args, settle: (answer) => this.#appended(watch, withSnapshot, entries.length, answer) };
  }

  async #appended(
    watch: Watch,
    withSnapshot: boolean,
    count: number,
    [err, answer]: ScriptAnswer,
  ): Promise<void> {
    if (this.#watch !== watch) return;
    if (err !== null) {
      this.#deps.log.warn(
        { plcId: this.plcId, err: err.message },
        'alarm transitions not appended; taking over again from the stored journal',
      );
      await this.#lease.drop('append failed');
      return;
    }
    watch.snapshotted ||= withSnapshot;
    watch.sinceSnapshot = withSnapshot ? 0 : watch.sinceSnapshot + count;
    if (this.#takeoverFromMs !== undefined) {
      const [, , redisMs] = answer as [string, string, number];
      const seconds = Math.max(0, redisMs - this.#takeoverFromMs) / 1000;
      this.#deps.metrics.tookOver(seconds);
      this.#takeoverFromMs = undefined;
      this.#deps.log.info(
        { plcId: this.plcId, seconds },
        'alarm lease taken over: first transitions appended',
      );
    }
  }
}
