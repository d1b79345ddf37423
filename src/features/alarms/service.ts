// The alarm use cases over every monitored PLC: outstanding lists (one PLC or the permitted fleet), acknowledge
// by RPC, the journal, and the alarm health check. Never imports fastify.
import type { AlarmTargetConfig, Settings } from '../../config/schema.ts';
import { AppError, isAppError } from '../../errors.ts';
import { ServiceKey } from '../../feature-kit/service-directory.ts';
import { timerClock, type DeadlineClock } from '../../http/streams/token-deadlines.ts';
import type { MethodResult, PlcTarget } from '../../targets/target.ts';
import type { TargetRegistry } from '../../targets/registry.ts';
import type { AlarmSource, AlarmSourceFactory } from './alarm-source.ts';
import type { AlarmArchive } from './archive.ts';
import { AlarmRenderer, peerOf } from './alarm-view.ts';
import type { JournalEntry } from './journal.ts';
import { AlarmManagement, includeNone, type AlarmView, type Include } from './management.ts';
import { AlarmMonitor, type AlarmLog } from './monitor.ts';
import { awaitsAcknowledgement, isOutstanding, statusOf, type AlarmReading } from './reading.ts';
import type { Alarm, AlarmList } from './schemas.ts';
import type { TextCatalog } from './text-catalog.ts';
import { LocalShelving, type ShelvingEntry, type ShelvingPage, type ShelvingStore } from './shelving.ts';
import { Suppression, type ObserveSymbol } from './suppression.ts';

/** Makes the shelving book of one monitored PLC (replicas sharing a Redis share it). */
export type ShelvingFactory = (plcId: string, clock: DeadlineClock) => ShelvingStore;

export interface HistoryItem {
  seq: number;
  at: string;
  kind: JournalEntry['kind'];
  alarm: Alarm;
  user?: string;
}

type HealthStatus = 'Healthy' | 'Degraded' | 'Unhealthy';

export interface AlarmHealth {
  status: HealthStatus;
  checks: Array<{
    name: 'plc_ads_alarms';
    status: HealthStatus;
    description: string;
    /** Outstanding alarms the check leaves out, per group. */
    data: { shelved: number; outOfService: number; suppressed: number };
  }>;
}

export class AlarmService {
  readonly #monitors: ReadonlyMap<string, AlarmSource>;
  readonly #managements: ReadonlyMap<string, AlarmManagement>;
  readonly #settings: Settings['PlcAlarms'];
  readonly #clock: DeadlineClock;
  readonly catalog: TextCatalog;
  /** Listed alarms by reading (a reading object lives as long as its slot is unchanged) and culture list. */
  readonly #rendered = new WeakMap<AlarmReading, { cultures: string; alarm: Alarm }>();

  constructor(
    registry: TargetRegistry,
    settings: Settings['PlcAlarms'],
    deps: {
      log: AlarmLog;
      now: () => number;
      catalog: TextCatalog;
      sources?: AlarmSourceFactory | undefined;
      /** The clock shelves run out on; default: the real one over `now`. */
      clock?: DeadlineClock | undefined;
      /** Default: each PLC's book in this process. */
      shelving?: ShelvingFactory | undefined;
      /** The shared notification subscriptions suppression rules watch their symbols on. */
      observe?: ObserveSymbol | undefined;
    },
  ) {
    this.catalog = deps.catalog;
    this.#settings = settings;
    const clock = deps.clock ?? timerClock(deps.now);
    this.#clock = clock;
    const books =
      deps.shelving ??
      ((_plcId: string, c: DeadlineClock) => new LocalShelving(c, settings.ShelvingJournalLength));
    const make =
      deps.sources ??
      ((target: PlcTarget, own: AlarmTargetConfig) =>
        new AlarmMonitor(target, own, { log: deps.log, now: deps.now }));
    const monitors = new Map<string, AlarmSource>();
    const managements = new Map<string, AlarmManagement>();
    for (const target of registry.list()) {
      const own = settings.Targets[target.id];
      if (!own) continue;
      const source = make(target, own);
      monitors.set(target.id, source);
      const suppression = new Suppression(target, own.Suppression, deps.observe, deps.log);
      managements.set(
        target.id,
        new AlarmManagement(source, books(target.id, clock), suppression, clock.now),
      );
    }
    this.#monitors = monitors;
    this.#managements = managements;
  }

  async start(): Promise<void> {
    // Management first: its transition listener ends shelves with their occurrences from the first snapshot on.
    await Promise.all([...this.#managements.values()].map((m) => m.start()));
    await Promise.all([...this.#monitors.values()].map((m) => m.start()));
  }

  async stop(): Promise<void> {
    await Promise.all([...this.#monitors.values()].map((m) => m.stop()));
    await Promise.all([...this.#managements.values()].map((m) => m.stop()));
  }

  /** Shelving, service state and suppression of a monitored PLC (404 PLC_NOT_FOUND otherwise). */
  management(plcId: string): AlarmManagement {
    const m = this.#managements.get(plcId);
    if (!m) throw new AppError('PLC_NOT_FOUND', `No alarm monitoring is configured for PLC '${plcId}'.`);
    return m;
  }

  /** What a caller including `include` sees of the PLC's outstanding alarms. */
  view(plcId: string, include: Include): AlarmView {
    return this.management(plcId).view(include);
  }

  /** Monitored plcIds, sorted. */
  plcIds(): string[] {
    return [...this.#monitors.keys()].sort();
  }

  isMonitored(plcId: string): boolean {
    return this.#monitors.has(plcId);
  }

  /** 404 PLC_NOT_FOUND for a PLC without alarm configuration (spec rule 1: never an empty 200). */
  monitor(plcId: string): AlarmSource {
    const m = this.#monitors.get(plcId);
    if (!m) throw new AppError('PLC_NOT_FOUND', `No alarm monitoring is configured for PLC '${plcId}'.`);
    return m;
  }

  renderer(cultures: readonly string[]): AlarmRenderer {
    return new AlarmRenderer(this.catalog, cultures);
  }

  /** The list result over `plcIds` (each monitored): last good items, and every scope not read fresh. */
  list(plcIds: readonly string[], cultures: readonly string[], include: Include = includeNone): AlarmList {
    const renderer = this.renderer(cultures);
    const cultureKey = cultures.join(',');
    const result: AlarmList = {
      count: 0,
      shelvedCount: 0,
      outOfServiceCount: 0,
      suppressedCount: 0,
      partial: false,
      failedPeers: [],
      'x-ads-failed': [],
      items: [],
    };
    for (const plcId of plcIds) {
      const m = this.monitor(plcId);
      const view = this.view(plcId, include);
      result.shelvedCount += view.counts.shelved;
      result.outOfServiceCount += view.counts.outOfService;
      result.suppressedCount += view.counts.suppressed;
      for (const r of view.items) {
        const marks = view.marks.get(r.key);
        if (marks !== undefined) {
          result.items.push(renderer.render(plcId, r, undefined, marks));
          continue;
        }
        const hit = this.#rendered.get(r);
        if (hit?.cultures === cultureKey) {
          result.items.push(hit.alarm);
          continue;
        }
        const alarm = renderer.render(plcId, r);
        this.#rendered.set(r, { cultures: cultureKey, alarm });
        result.items.push(alarm);
      }
      const failure = m.failure();
      if (failure) {
        result.partial = true;
        result.failedPeers.push(peerOf(plcId));
        result['x-ads-failed'].push({ peer: peerOf(plcId), ...failure });
      }
    }
    result.count = result.items.length;
    return result;
  }

  /**
   * Calls `<AcknowledgeInstancePath>#<AcknowledgeMethod>(sKey)`; the array is never written.
   * 404 ALARM_NOT_FOUND when nothing outstanding awaits acknowledgement under the key; 502 ALARM_ACK_FAILED
   * when the PLC refuses or answers something else than TRUE/FALSE/SUCCESS/NOT_FOUND.
   */
  async acknowledge(target: PlcTarget, key: string, sub: string): Promise<boolean> {
    const m = this.monitor(target.id);
    const reading = m.reading(key);
    if (!reading || !isOutstanding(reading) || !awaitsAcknowledgement(reading)) {
      throw new AppError('ALARM_NOT_FOUND', `Nothing outstanding awaits acknowledgement under '${key}'.`);
    }
    const { AcknowledgeMethod: method } = m.settings;
    const instancePath = m.acknowledgeInstancePath;
    // Noted first: a simulated PLC reports the acknowledged transition before invoke() returns.
    await m.noteAcknowledge(key, sub);
    let answer: MethodResult;
    try {
      answer = await target.invoke(instancePath, method, [key]);
    } catch (err) {
      m.forgetAcknowledge(key);
      if (isAppError(err) && err.code === 'PLC_UNAVAILABLE') throw err;
      const reason = err instanceof Error ? err.message : String(err);
      throw new AppError('ALARM_ACK_FAILED', `${instancePath}#${method}('${key}') failed: ${reason}`);
    }
    const acknowledged = acknowledgeAnswer(answer);
    if (acknowledged === undefined) {
      m.forgetAcknowledge(key);
      throw new AppError(
        'ALARM_ACK_FAILED',
        `${instancePath}#${method}('${key}') answered ${JSON.stringify(answer.returnMember ?? answer.returnValue)}, not TRUE, FALSE, SUCCESS or NOT_FOUND.`,
      );
    }
    if (!acknowledged) m.forgetAcknowledge(key);
    return acknowledged;
  }

  history(plcId: string, after: number | undefined, limit: number, cultures: readonly string[]) {
    const page = this.monitor(plcId).journal.readSince(after, limit);
    const renderer = this.renderer(cultures);
    return { items: page.entries.map((e) => historyItem(plcId, e, renderer)), nextAfter: page.nextAfter };
  }

  /**
   * The transitions of a time window: from the archive when one is published (beyond the journal's length),
   * else from the journal. 400 VALIDATION_ERROR unless from is before to.
   */
  async historyWindow(
    plcId: string,
    window: { from?: string | undefined; to?: string | undefined },
    after: number | undefined,
    limit: number,
    cultures: readonly string[],
    archive: AlarmArchive | undefined,
  ) {
    const journal = this.monitor(plcId).journal;
    const from = window.from === undefined ? -Infinity : Date.parse(window.from);
    const to = window.to === undefined ? Infinity : Date.parse(window.to);
    if (Number.isNaN(from) || Number.isNaN(to) || from >= to) {
      throw new AppError('VALIDATION_ERROR', 'from and to must be ISO 8601 times, from before to.');
    }
    let entries: readonly JournalEntry[];
    if (archive) {
      const bound = (ms: number) => (Number.isFinite(ms) ? ms : ms > 0 ? Number.MAX_SAFE_INTEGER : 0);
      entries = await archive.read(plcId, bound(from), bound(to), after ?? 0, limit);
    } else {
      const inWindow = (e: JournalEntry) => {
        const at = Date.parse(e.at);
        return at >= from && at < to;
      };
      const out: JournalEntry[] = [];
      let cursor = after;
      for (;;) {
        const page = journal.readSince(cursor, 1000);
        out.push(...page.entries.filter(inWindow));
        if (page.entries.length === 0 || out.length >= limit) break;
        cursor = page.nextAfter;
      }
      entries = out.slice(0, limit);
    }
    const renderer = this.renderer(cultures);
    const last = entries.at(-1);
    return {
      items: entries.map((e) => historyItem(plcId, e, renderer)),
      nextAfter: last ? last.seq : (after ?? journal.newest()),
    };
  }

  /**
   * `plc_ads_alarms`: Unhealthy for an ERROR (or worse) outstanding, Degraded for a WARNING; shelved, out-of-service
   * and suppressed alarms are left out and counted in its data.
   */
  health(): AlarmHealth {
    let worst: { severity: number; label: string; plcId: string } | undefined;
    const data = { shelved: 0, outOfService: 0, suppressed: 0 };
    for (const plcId of this.#monitors.keys()) {
      const view = this.view(plcId, includeNone);
      data.shelved += view.counts.shelved;
      data.outOfService += view.counts.outOfService;
      data.suppressed += view.counts.suppressed;
      for (const r of view.items) {
        if (!worst || r.severity > worst.severity)
          worst = { severity: r.severity, label: r.severityLabel, plcId };
      }
    }
    const status: HealthStatus =
      worst === undefined || worst.severity < 2 ? 'Healthy' : worst.severity < 3 ? 'Degraded' : 'Unhealthy';
    const description = worst
      ? `Worst outstanding alarm severity: ${worst.label} (${worst.severity}) on ${worst.plcId}.`
      : 'No alarm is outstanding.';
    return { status, checks: [{ name: 'plc_ads_alarms', status, description, data }] };
  }

  /** Shelves an outstanding alarm for `minutes` (1 to MaxShelveMinutes), replacing a shelve it has. */
  async shelve(
    plcId: string,
    key: string,
    minutes: number,
    reason: string,
    by: string,
  ): Promise<ShelvingEntry> {
    const m = this.management(plcId);
    const max = this.#settings.MaxShelveMinutes;
    if (!Number.isInteger(minutes) || minutes < 1 || minutes > max) {
      throw new AppError(
        'VALIDATION_ERROR',
        `minutes must be an integer from 1 to ${max} (MaxShelveMinutes).`,
      );
    }
    const why = this.#reason(reason);
    const reading = this.monitor(plcId).reading(key);
    if (reading === undefined || !isOutstanding(reading)) {
      this.#known(plcId, key);
      throw new AppError(
        'ALARM_NOT_ACTIVE',
        `'${key}' is not outstanding: only a present alarm can be shelved.`,
      );
    }
    const atMs = this.#clock.now();
    const at = new Date(atMs).toISOString();
    const until = new Date(atMs + minutes * 60_000).toISOString();
    return m.store.putShelve(key, { by, at, until, reason: why });
  }

  async unshelve(plcId: string, key: string, by: string): Promise<ShelvingEntry> {
    const entry = await this.management(plcId).store.endShelve(key, 'byHand', by);
    if (entry !== undefined) return entry;
    this.#known(plcId, key);
    throw new AppError('ALARM_NOT_SHELVED', `'${key}' is not shelved.`);
  }

  /** Takes an alarm out of service until it is returned (it need not be outstanding, but must be known). */
  async takeOutOfService(plcId: string, key: string, reason: string, by: string): Promise<ShelvingEntry> {
    const m = this.management(plcId);
    const why = this.#reason(reason);
    this.#known(plcId, key);
    const at = new Date(this.#clock.now()).toISOString();
    return m.store.putOutOfService(key, { by, at, reason: why });
  }

  async returnToService(plcId: string, key: string, by: string): Promise<ShelvingEntry> {
    const entry = await this.management(plcId).store.returnToService(key, by);
    if (entry !== undefined) return entry;
    this.#known(plcId, key);
    throw new AppError('ALARM_NOT_OUT_OF_SERVICE', `'${key}' is not out of service.`);
  }

  shelvingJournal(plcId: string, after: number | undefined, limit: number): Promise<ShelvingPage> {
    return this.management(plcId).store.journal(after, limit);
  }

  #reason(reason: string): string {
    const max = this.#settings.MaxReasonLength;
    const trimmed = typeof reason === 'string' ? reason.trim() : '';
    if (trimmed === '' || trimmed.length > max) {
      throw new AppError('VALIDATION_ERROR', `reason is required: 1 to ${max} characters (MaxReasonLength).`);
    }
    return trimmed;
  }

  /**
   * 404 ALARM_NOT_FOUND unless the key is known: held by the alarm array, shelved or out of service, or named by
   * the TextCatalog.
   */
  #known(plcId: string, key: string): void {
    const m = this.management(plcId);
    if (
      this.monitor(plcId).reading(key) !== undefined ||
      m.store.shelve(key) !== undefined ||
      m.store.outOfService(key) !== undefined ||
      this.catalog.has(key)
    )
      return;
    throw new AppError('ALARM_NOT_FOUND', `No alarm is known under '${key}'.`);
  }
}

/** The app's one AlarmService (its monitors hold the PLCs' alarm state), as the alarm routes publish it. */
export const alarmServiceKey = new ServiceKey<AlarmService>('alarms');

export function historyItem(plcId: string, e: JournalEntry, renderer: AlarmRenderer): HistoryItem {
  const alarm = renderer.render(plcId, e.reading, e.kind === 'ended' ? 'cleared' : statusOf(e.reading));
  return { seq: e.seq, at: e.at, kind: e.kind, alarm, ...(e.user === undefined ? {} : { user: e.user }) };
}

/** TRUE or SUCCESS -> true, FALSE or NOT_FOUND -> false; anything else is undefined (a refusal). */
function acknowledgeAnswer({ returnValue, returnMember }: MethodResult): boolean | undefined {
  if (typeof returnValue === 'boolean') return returnValue;
  // An enum answers its integer; the driver names the member it is.
  const name = returnMember ?? (typeof returnValue === 'string' ? returnValue : undefined);
  if (name?.toUpperCase() === 'SUCCESS') return true;
  if (name?.toUpperCase() === 'NOT_FOUND') return false;
  return undefined;
}
