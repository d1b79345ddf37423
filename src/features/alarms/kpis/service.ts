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

export class AlarmKpis {
  readonly #deps: KpiDeps;

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

  /** One monitored PLC (404 PLC_NOT_FOUND otherwise). */
  async plc(plcId: string, query: KpiWindowQuery): Promise<PlcKpis> {
    const { requested, read, at } = this.window(query);
    const { answer } = await this.#plc(plcId, requested, read, at);
    return { ...answer, benchmarks: kpiBenchmarks };
  }

  /** Every PLC of `plcIds` (each monitored), and all of them together over the part every one covers. */
  async fleet(plcIds: readonly string[], query: KpiWindowQuery): Promise<FleetKpis> {
    const { requested, read, at } = this.window(query);
    const parts = await Promise.all(plcIds.map((id) => this.#plc(id, requested, read, at)));
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

  /** `at`: the request's now (the window was cut to it). */
  async #plc(plcId: string, requested: Window, window: Window, at: number) {
    const { alarms, settings } = this.#deps;
    const source = alarms.monitor(plcId);
    const archive = this.#deps.archive();
    const max = settings.MaxTransitions;
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
