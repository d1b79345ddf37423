// The alarm KPIs of one PLC or of the permitted fleet over a window: validates the window, reads the
// transitions (history store or journal), computes the figures and adds what is shelved, out of service or
// suppressed now. Shared by the KPI routes and the MCP tool alarm_kpis.
import type { Settings } from '../../../config/schema.ts';
import { AppError } from '../../../errors.ts';
import { ServiceKey } from '../../../feature-kit/service-directory.ts';
import type { AlarmArchive } from '../archive.ts';
import type { JournalEntry } from '../journal.ts';
import type { AlarmService } from '../service.ts';
import { kpiBenchmarks } from './benchmarks.ts';
import { computeKpis, type KpiTransition } from './figures.ts';
import { includeNone } from '../management.ts';
import type { FleetKpis, PlcKpis } from './schemas.ts';
import { readArchive, readJournal, type WindowRead } from './sources.ts';

const hourMs = 3_600_000;
const dayMs = 24 * hourMs;

export interface KpiDeps {
  readonly alarms: AlarmService;
  readonly settings: Settings['PlcAlarms']['Kpis'];
  /** History.RetentionDays: how far back the store keeps transitions. */
  readonly retentionDays: number;
  readonly now: () => number;
  /** Looked up per request: features publish in any order. */
  readonly archive: () => AlarmArchive | undefined;
}

export interface KpiWindowQuery {
  readonly from?: string | undefined;
  readonly to?: string | undefined;
}

interface Window {
  readonly from: number;
  readonly to: number;
}

const iso = (ms: number): string => new Date(ms).toISOString();
const isoWindow = (w: Window) => ({ from: iso(w.from), to: iso(w.to) });

/** An ISO 8601 date and time with its zone (as the history routes take them), or 400 VALIDATION_ERROR. */
function parseTime(name: string, text: string): number {
  const ms = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(text)
    ? Date.parse(text)
    : NaN;
  if (Number.isNaN(ms))
    throw new AppError(
      'VALIDATION_ERROR',
      `${name}: '${text}' is not an ISO 8601 date and time with a zone.`,
    );
  return ms;
}

const kpiTransition = (plcId: string, e: JournalEntry): KpiTransition => ({
  plcId,
  key: e.reading.key,
  at: Date.parse(e.at),
  kind: e.kind,
  needsAck: e.reading.needsAck,
  isAcked: e.reading.isAcked,
});

/** One PLC's answer, and what the fleet's figures are computed from. */
interface PlcPart {
  readonly answer: Omit<PlcKpis, 'benchmarks'>;
  readonly read: Window;
  readonly transitions: readonly KpiTransition[];
  readonly outstanding: ReadonlyArray<{ plcId: string; key: string }>;
}

/** Lets the event loop serve others between two PLCs of a fleet answer. */
const yieldToOthers = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export class AlarmKpis {
  readonly #deps: KpiDeps;
  /** KPI answers being computed now (PlcAlarms.Kpis.MaxConcurrent). */
  #running = 0;

  constructor(deps: KpiDeps) {
    this.#deps = deps;
  }

  /**
   * The asked window, validated: from before to, at most MaxWindowDays long, starting in the past. `to` defaults
   * to now and is cut to now (nothing later is known); `from` defaults to DefaultWindowHours before `to`.
   */
  window(query: KpiWindowQuery): { requested: Window; read: Window; at: number } {
    const { settings, now } = this.#deps;
    const at = now();
    const to = query.to === undefined ? at : parseTime('to', query.to);
    const from =
      query.from === undefined ? to - settings.DefaultWindowHours * hourMs : parseTime('from', query.from);
    if (from >= to) throw new AppError('VALIDATION_ERROR', 'from must be before to.');
    if (to - from > settings.MaxWindowDays * dayMs) {
      throw new AppError(
        'VALIDATION_ERROR',
        `The window is longer than PlcAlarms.Kpis.MaxWindowDays (${settings.MaxWindowDays} days).`,
      );
    }
    if (from >= at) throw new AppError('VALIDATION_ERROR', 'from must be in the past.');
    return { requested: { from, to }, read: { from, to: Math.min(to, at) }, at };
  }

  /**
   * Runs `work` in one of PlcAlarms.Kpis.MaxConcurrent places, or throws 429 CONCURRENCY_LIMIT: each answer holds
   * up to MaxTransitions (fleet: MaxFleetTransitions) transitions in memory, so their number at once is bounded
   * whoever asks (the HistoryQueries limit counts requests per second, not the ones still running).
   */
  async #slot<T>(work: () => Promise<T>): Promise<T> {
    const max = this.#deps.settings.MaxConcurrent;
    if (this.#running >= max) {
      throw new AppError(
        'CONCURRENCY_LIMIT',
        `At most ${max} alarm KPI answers are computed at once (PlcAlarms.Kpis.MaxConcurrent); try again shortly.`,
      );
    }
    this.#running += 1;
    try {
      return await work();
    } finally {
      this.#running -= 1;
    }
  }

  /** One monitored PLC (404 PLC_NOT_FOUND otherwise). */
  async plc(plcId: string, query: KpiWindowQuery): Promise<PlcKpis> {
    const { requested, read, at } = this.window(query);
    const max = this.#deps.settings.MaxTransitions;
    const { answer } = await this.#slot(() => this.#plc(plcId, requested, read, at, max));
    return { ...answer, benchmarks: kpiBenchmarks };
  }

  /**
   * Every PLC of `plcIds` (each monitored), and all of them together over the part every one covers. The PLCs
   * share PlcAlarms.Kpis.MaxFleetTransitions evenly (each at most MaxTransitions) and are read one after the
   * other, so one answer's memory and event-loop time stay bounded however large the fleet.
   */
  async fleet(plcIds: readonly string[], query: KpiWindowQuery): Promise<FleetKpis> {
    const { requested, read, at } = this.window(query);
    const { MaxTransitions, MaxFleetTransitions } = this.#deps.settings;
    const share = Math.max(
      1,
      Math.min(MaxTransitions, Math.floor(MaxFleetTransitions / Math.max(1, plcIds.length))),
    );
    return this.#slot(async () => {
      const parts: PlcPart[] = [];
      for (const id of plcIds) {
        if (parts.length > 0) await yieldToOthers();
        parts.push(await this.#plc(id, requested, read, at, share));
      }
      return this.#together(parts, requested, read, at);
    });
  }

  #together(parts: readonly PlcPart[], requested: Window, read: Window, at: number): FleetKpis {
    // A PLC covering nothing (a shared journal not started: no transition yet) holds nothing to count and does
    // not narrow the others' window.
    const covering = parts.filter((p) => p.read.to > p.read.from);
    const from = Math.max(read.from, ...covering.map((p) => p.read.from));
    const to = Math.max(from, Math.min(read.to, ...covering.map((p) => p.read.to)));
    const transitions = parts
      .flatMap((p) => p.transitions)
      .filter((t) => t.at >= from && t.at < to)
      .sort((a, b) => a.at - b.at);
    const reachesNow = to === at;
    const figures = computeKpis({
      from,
      to,
      transitions,
      outstandingAtEnd: reachesNow ? parts.flatMap((p) => p.outstanding) : [],
    });
    const sum = (pick: (p: PlcKpis['figures']['now']) => number): number =>
      parts.reduce((n, p) => n + pick(p.answer.figures.now), 0);
    return {
      requested: isoWindow(requested),
      covered: isoWindow({ from, to }),
      plcs: parts.map((p) => p.answer),
      figures: {
        ...figures,
        now: {
          outstanding: sum((n) => n.outstanding),
          shelved: sum((n) => n.shelved),
          outOfService: sum((n) => n.outOfService),
          suppressed: sum((n) => n.suppressed),
        },
      },
      benchmarks: kpiBenchmarks,
    };
  }

  /** `at`: the request's now (the window was cut to it); `max`: the transitions it may read. */
  async #plc(plcId: string, requested: Window, window: Window, at: number, max: number): Promise<PlcPart> {
    const { alarms } = this.#deps;
    const source = alarms.monitor(plcId);
    const archive = this.#deps.archive();
    const read: WindowRead = archive
      ? await readArchive(archive, plcId, window, {
          max,
          retainedSince: at - this.#deps.retentionDays * dayMs,
        })
      : readJournal(source.journal, window, { max });
    const transitions = read.entries.map((e) => kpiTransition(plcId, e));
    // The current list tells what was outstanding at the window's end only when the window ends now.
    const outstanding = read.to === at ? source.outstanding().map((r) => ({ plcId, key: r.key })) : [];
    const figures = computeKpis({ from: read.from, to: read.to, transitions, outstandingAtEnd: outstanding });
    const { shelved, outOfService, suppressed } = alarms.view(plcId, includeNone).counts;
    const answer: Omit<PlcKpis, 'benchmarks'> = {
      plcId,
      requested: isoWindow(requested),
      covered: isoWindow(read),
      source: read.source,
      ...(read.limitedBy ? { limitedBy: read.limitedBy } : {}),
      figures: {
        ...figures,
        now: { outstanding: source.outstanding().length, shelved, outOfService, suppressed },
      },
    };
    return { answer, read: { from: read.from, to: read.to }, transitions, outstanding };
  }
}

/** The app's one AlarmKpis, as the alarm routes publish it (the MCP tool alarm_kpis uses it). */
export const alarmKpisKey = new ServiceKey<AlarmKpis>('alarm kpis');
