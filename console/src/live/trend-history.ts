// The recorded past of a trended symbol from the gateway's history (GET /api/plcs/{plcId}/history): buckets
// { t, min, max, first, last, count } drawn as a line with a min/max band, raw changes as points, and the
// intervals without samples (PLC unreachable, samples dropped) as breaks. A symbol that is not recorded, or a
// gateway without history, has no past: the trend shows what the browser sees live.
import { ApiError, api, plcPath } from '../api/http.ts';
import { settings } from '../auth/session.ts';

export interface PastSeries {
  /** Unix ms, oldest first; a null value marks a break (a gap). */
  readonly times: number[];
  readonly values: Array<number | null>;
  /** The bucket's min and max (the band), null for raw changes and breaks. */
  readonly mins: Array<number | null>;
  readonly maxs: Array<number | null>;
  /** Points that hold data (not the breaks). */
  readonly points: number;
  /** Breaks drawn: intervals without samples (PLC unreachable, samples dropped) in the window. */
  readonly breaks: number;
  /** The lowest and highest recorded value of the window (bucket min and max included), when it has points. */
  readonly range: { readonly lo: number; readonly hi: number } | undefined;
  /** The end of the window asked for: live samples draw from here on. */
  readonly to: number;
}

interface Bucket {
  t: string;
  min: number | string;
  max: number | string;
  last: number | string;
}

interface HistorySeries {
  bucketMs?: number;
  buckets?: Bucket[];
  samples?: Array<{ t: string; value: unknown }>;
  gaps: Array<{ from: string; to: string | null }>;
}

/** Codes that mean "no past here", not a failure worth showing: not recorded, no history, no access. */
const noPast = new Set([
  'SYMBOL_NOT_RECORDED',
  'PLC_NOT_FOUND',
  'FEATURE_DISABLED',
  'FORBIDDEN',
  'PLC_ACCESS_DENIED',
]);

const asNumber = (v: unknown): number | null => {
  const n = typeof v === 'boolean' ? Number(v) : typeof v === 'string' ? Number(v) : v;
  return typeof n === 'number' && Number.isFinite(n) ? n : null;
};

/** One point per bucket at its middle, the raw changes at their times, and a break at the start of each gap. */
export function toPast(series: HistorySeries, from: number, to: number): PastSeries {
  const rows: Array<{ t: number; v: number | null; mn: number | null; mx: number | null }> = [];
  const half = (series.bucketMs ?? 0) / 2;
  for (const b of series.buckets ?? []) {
    rows.push({ t: Date.parse(b.t) + half, v: asNumber(b.last), mn: asNumber(b.min), mx: asNumber(b.max) });
  }
  for (const s of series.samples ?? []) {
    rows.push({ t: Date.parse(s.t), v: asNumber(s.value), mn: null, mx: null });
  }
  const points = rows.filter((r) => r.v !== null).length;
  const seen = rows.flatMap((r) => [r.v, r.mn, r.mx]).filter((v): v is number => v !== null);
  const range = seen.length === 0 ? undefined : { lo: Math.min(...seen), hi: Math.max(...seen) };
  let breaks = 0;
  for (const g of series.gaps) {
    const start = Math.max(from, Date.parse(g.from));
    if (start >= to) continue;
    rows.push({ t: start, v: null, mn: null, mx: null });
    breaks++;
  }
  rows.sort((a, b) => a.t - b.t);
  return {
    times: rows.map((r) => r.t),
    values: rows.map((r) => r.v),
    mins: rows.map((r) => r.mn),
    maxs: rows.map((r) => r.mx),
    points,
    breaks,
    range,
    to,
  };
}

/**
 * The past of one symbol over [from, to) in at most `maxPoints` buckets; undefined when it has none (not
 * recorded, no history on this gateway). Other failures are thrown for the trend to show.
 */
export async function loadPast(
  plcId: string,
  symbol: string,
  from: number,
  to: number,
  maxPoints: number,
): Promise<PastSeries | undefined> {
  if (settings.value.features.History !== true) return undefined;
  const query = new URLSearchParams({
    symbols: symbol,
    from: new Date(from).toISOString(),
    to: new Date(to).toISOString(),
    maxPoints: String(maxPoints),
  });
  try {
    const answer = await api.get<{ series: HistorySeries[] }>(`${plcPath(plcId, 'history')}?${query}`);
    const series = answer.series[0];
    return series === undefined ? undefined : toPast(series, from, to);
  } catch (err) {
    if (err instanceof ApiError && noPast.has(err.code)) return undefined;
    throw err;
  }
}
