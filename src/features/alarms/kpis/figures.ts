// The ISA-18.2 / EEMUA 191 alarm-system figures of one window of alarm transitions. Pure: the caller reads the
// transitions (history store or journal) and says which window they cover.
import type { TransitionKind } from '../transitions.ts';
import { assessRate, type RateAssessment } from './benchmarks.ts';

/** The period ISA-18.2 counts alarm rates over. */
const periodMs = 600_000;
/** More raises than this in one period is a flood (ISA-18.2, EEMUA 191). */
const floodAbove = 10;
/** Outstanding longer than this: a standing (stale) alarm. */
const standingMs = 24 * 3_600_000;
/** This many raises of one key within `chatterMs` make it chattering. */
const chatterRaises = 3;
const chatterMs = 60_000;
/** Entries in each of the ranked lists (top keys, standing, chattering). */
const listLength = 10;

/** One transition as the figures need it. */
export interface KpiTransition {
  readonly plcId: string;
  readonly key: string;
  /** Gateway time, Unix ms. */
  readonly at: number;
  readonly kind: TransitionKind;
  readonly needsAck: boolean;
  readonly isAcked: boolean;
}

export interface AlarmRef {
  readonly plcId: string;
  readonly key: string;
}

export interface KpiInput {
  /** The window the transitions cover, [from, to) in Unix ms. */
  readonly from: number;
  readonly to: number;
  /** Every transition in the window, oldest first. */
  readonly transitions: readonly KpiTransition[];
  /**
   * Alarms known outstanding at `to` (the current list when the window ends now): one without a transition in
   * the window was outstanding through all of it.
   */
  readonly outstandingAtEnd: readonly AlarmRef[];
}

export interface KpiFigures {
  raised: {
    /** Raises: `raised` and `reoccurred` transitions (each an annunciation). */
    total: number;
    /** 10-minute periods counted from `from`; the last may be shorter. */
    periods: number;
    per10Minutes: { average: number | null; peak: number; assessment: RateAssessment | null };
    /** Periods with more than `floodAbove` raises, and their share of all periods. */
    floodPeriods: number;
    floodShare: number | null;
  };
  standing: {
    count: number;
    items: Array<AlarmRef & { outstandingSince: string; sinceBeforeWindow: boolean }>;
  };
  chattering: { count: number; items: Array<AlarmRef & { raises: number; maxRaisesIn60s: number }> };
  topKeys: { share: number | null; items: Array<AlarmRef & { raises: number; share: number }> };
  timeToAcknowledge: { count: number; p50Seconds: number | null; p90Seconds: number | null };
}

const round = (x: number, places = 4): number => Math.round(x * 10 ** places) / 10 ** places;
const refKey = (plcId: string, key: string): string => JSON.stringify([plcId, key]);
const byRef = (a: AlarmRef, b: AlarmRef): number =>
  a.plcId < b.plcId ? -1 : a.plcId > b.plcId ? 1 : a.key < b.key ? -1 : a.key > b.key ? 1 : 0;

const isRaise = (kind: TransitionKind): boolean => kind === 'raised' || kind === 'reoccurred';

/** Nearest-rank percentile of ascending `sorted` (not empty). */
export function percentile(sorted: readonly number[], p: number): number {
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1] as number;
}

/** The most raises of ascending `times` inside any span of `chatterMs` (a half-open [t, t + 60 s)). */
function maxWithin(times: readonly number[]): number {
  let best = 0;
  let first = 0;
  for (let last = 0; last < times.length; last++) {
    while ((times[last] as number) - (times[first] as number) >= chatterMs) first++;
    best = Math.max(best, last - first + 1);
  }
  return best;
}

export function computeKpis(input: KpiInput): KpiFigures {
  const { from, to, transitions } = input;
  const duration = Math.max(0, to - from);
  const periods = Math.ceil(duration / periodMs);
  const perPeriod = new Array<number>(periods).fill(0);
  const raisesByKey = new Map<string, { ref: AlarmRef; times: number[] }>();
  /** Outstanding alarms by key: since when, and whether that is the window's start standing in for a raise. */
  const outstanding = new Map<string, { ref: AlarmRef; since: number; before: boolean }>();
  const seen = new Set<string>();
  /** Raises awaiting acknowledgement by key. */
  const pendingAck = new Map<string, number>();
  const ackTimes: number[] = [];
  let total = 0;

  for (const t of transitions) {
    const id = refKey(t.plcId, t.key);
    const ref = { plcId: t.plcId, key: t.key };
    // A key whose first transition here is not a raise was outstanding when the window opened.
    if (!seen.has(id)) {
      seen.add(id);
      if (t.kind !== 'raised') outstanding.set(id, { ref, since: from, before: true });
    }
    if (isRaise(t.kind)) {
      total++;
      const period = Math.min(periods - 1, Math.floor((t.at - from) / periodMs));
      if (period >= 0) perPeriod[period] = (perPeriod[period] ?? 0) + 1;
      const raises = raisesByKey.get(id) ?? { ref, times: [] };
      raises.times.push(t.at);
      raisesByKey.set(id, raises);
      if (t.needsAck && !t.isAcked && !pendingAck.has(id)) pendingAck.set(id, t.at);
    }
    if (t.kind === 'raised') outstanding.set(id, { ref, since: t.at, before: false });
    if (t.kind === 'acknowledged') {
      const since = pendingAck.get(id);
      if (since !== undefined) ackTimes.push(t.at - since);
      pendingAck.delete(id);
    }
    if (t.kind === 'ended') {
      outstanding.delete(id);
      pendingAck.delete(id);
    }
  }
  for (const ref of input.outstandingAtEnd) {
    const id = refKey(ref.plcId, ref.key);
    if (!seen.has(id)) outstanding.set(id, { ref, since: from, before: true });
  }

  const average = duration > 0 ? round((total * periodMs) / duration) : null;
  const floodPeriods = perPeriod.filter((n) => n > floodAbove).length;

  const standing = [...outstanding.values()]
    .filter((o) => to - o.since > standingMs)
    .sort((a, b) => a.since - b.since || byRef(a.ref, b.ref));

  const chattering = [...raisesByKey.values()]
    .map(({ ref, times }) => ({ ...ref, raises: times.length, maxRaisesIn60s: maxWithin(times) }))
    .filter((c) => c.maxRaisesIn60s >= chatterRaises)
    .sort((a, b) => b.maxRaisesIn60s - a.maxRaisesIn60s || b.raises - a.raises || byRef(a, b));

  const top = [...raisesByKey.values()]
    .map(({ ref, times }) => ({ ...ref, raises: times.length }))
    .sort((a, b) => b.raises - a.raises || byRef(a, b))
    .slice(0, listLength);
  const topRaises = top.reduce((sum, k) => sum + k.raises, 0);

  ackTimes.sort((a, b) => a - b);
  const seconds = (ms: number): number => round(ms / 1000, 3);

  return {
    raised: {
      total,
      periods,
      per10Minutes: {
        average,
        peak: Math.max(0, ...perPeriod),
        assessment: average === null ? null : assessRate(average),
      },
      floodPeriods,
      floodShare: periods > 0 ? round(floodPeriods / periods) : null,
    },
    standing: {
      count: standing.length,
      items: standing.slice(0, listLength).map((s) => ({
        ...s.ref,
        outstandingSince: new Date(s.since).toISOString(),
        sinceBeforeWindow: s.before,
      })),
    },
    chattering: { count: chattering.length, items: chattering.slice(0, listLength) },
    topKeys: {
      share: total > 0 ? round(topRaises / total) : null,
      items: top.map((k) => ({ ...k, share: round(k.raises / total) })),
    },
    timeToAcknowledge: {
      count: ackTimes.length,
      p50Seconds: ackTimes.length > 0 ? seconds(percentile(ackTimes, 50)) : null,
      p90Seconds: ackTimes.length > 0 ? seconds(percentile(ackTimes, 90)) : null,
    },
  };
}
