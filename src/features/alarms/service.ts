// The alarm use cases over every monitored PLC: outstanding lists (one PLC or the permitted fleet), acknowledge
// by RPC, the journal, and the alarm health check. Never imports fastify.
import type { AlarmTargetConfig, Settings } from '../../config/schema.ts';
import { AppError, isAppError } from '../../errors.ts';
import { ServiceKey } from '../../feature-kit/service-directory.ts';
import type { MethodResult, PlcTarget } from '../../targets/target.ts';
import type { TargetRegistry } from '../../targets/registry.ts';
import type { AlarmSource, AlarmSourceFactory } from './alarm-source.ts';
import type { AlarmArchive } from './archive.ts';
import { AlarmRenderer, peerOf } from './alarm-view.ts';
import type { JournalEntry } from './journal.ts';
import { AlarmMonitor, type AlarmLog } from './monitor.ts';
import { awaitsAcknowledgement, isOutstanding, statusOf, type AlarmReading } from './reading.ts';
import type { Alarm, AlarmList } from './schemas.ts';
import type { TextCatalog } from './text-catalog.ts';

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
  checks: Array<{ name: 'plc_ads_alarms'; status: HealthStatus; description: string }>;
}

export class AlarmService {
  readonly #monitors: ReadonlyMap<string, AlarmSource>;
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
    },
  ) {
    this.catalog = deps.catalog;
    const make =
      deps.sources ??
      ((target: PlcTarget, own: AlarmTargetConfig) =>
        new AlarmMonitor(target, own, { log: deps.log, now: deps.now }));
    const monitors = new Map<string, AlarmSource>();
    for (const target of registry.list()) {
      const own = settings.Targets[target.id];
      if (own) monitors.set(target.id, make(target, own));
    }
    this.#monitors = monitors;
  }

  async start(): Promise<void> {
    await Promise.all([...this.#monitors.values()].map((m) => m.start()));
  }

  async stop(): Promise<void> {
    await Promise.all([...this.#monitors.values()].map((m) => m.stop()));
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
  list(plcIds: readonly string[], cultures: readonly string[]): AlarmList {
    const renderer = this.renderer(cultures);
    const cultureKey = cultures.join(',');
    const result: AlarmList = { count: 0, partial: false, failedPeers: [], 'x-ads-failed': [], items: [] };
    for (const plcId of plcIds) {
      const m = this.monitor(plcId);
      for (const r of m.outstanding()) {
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

  /** `plc_ads_alarms`: Unhealthy for an ERROR (or worse) outstanding, Degraded for a WARNING. */
  health(): AlarmHealth {
    let worst: { severity: number; label: string; plcId: string } | undefined;
    for (const [plcId, m] of this.#monitors) {
      for (const r of m.outstanding()) {
        if (!worst || r.severity > worst.severity)
          worst = { severity: r.severity, label: r.severityLabel, plcId };
      }
    }
    const status: HealthStatus =
      worst === undefined || worst.severity < 2 ? 'Healthy' : worst.severity < 3 ? 'Degraded' : 'Unhealthy';
    const description = worst
      ? `Worst outstanding alarm severity: ${worst.label} (${worst.severity}) on ${worst.plcId}.`
      : 'No alarm is outstanding.';
    return { status, checks: [{ name: 'plc_ads_alarms', status, description }] };
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
