// Rollups of number series ({ min, max, first, last, count } of each whole minute and second), kept beside the raw
// samples so a trend over a long window reads one row per minute or second instead of every sample; the partial
// spans at the window's edges come from the next finer level and finally the raw samples, so the answer is the
// same as a scan of them.
import type { BucketRow, StoredSample } from './types.ts';

/** Rollup levels in ms, coarsest first: a query reads the coarsest one its bucket edges fall on. */
export const rollupLevels: readonly number[] = [60_000, 1000];

export interface RollupRow {
  readonly series: number;
  /** Start of the second. */
  readonly t: number;
  mn: number;
  mx: number;
  c: number;
  /** Time and value of the first and last sample. */
  tf: number;
  f: number;
  tl: number;
  l: number;
}

/** The rollups of `level` ms a batch adds to (numbers only), in arrival order within each span. */
export function rollupsOf(samples: readonly StoredSample[], level: number): RollupRow[] {
  const rows = new Map<string, RollupRow>();
  for (const s of samples) {
    if (s.num === null) continue;
    const t = Math.floor(s.t / level) * level;
    const key = `${s.series}:${t}`;
    const row = rows.get(key);
    if (row === undefined) {
      rows.set(key, {
        series: s.series,
        t,
        mn: s.num,
        mx: s.num,
        c: 1,
        tf: s.t,
        f: s.num,
        tl: s.t,
        l: s.num,
      });
      continue;
    }
    row.mn = Math.min(row.mn, s.num);
    row.mx = Math.max(row.mx, s.num);
    row.c++;
    if (s.t < row.tf) [row.tf, row.f] = [s.t, s.num];
    if (s.t >= row.tl) [row.tl, row.l] = [s.t, s.num];
  }
  return [...rows.values()];
}

/** The whole spans of `level` ms in [from, to) that its rollups can answer, when bucket edges fall on them. */
export function innerSpan(
  level: number,
  origin: number,
  from: number,
  to: number,
  width: number,
): { from: number; to: number } | undefined {
  if (origin % level !== 0 || width % level !== 0) return undefined;
  const inner = { from: Math.ceil(from / level) * level, to: Math.floor(to / level) * level };
  return inner.from < inner.to ? inner : undefined;
}

/** Buckets of consecutive spans (oldest span first) merged into one list: first from the oldest, last from the newest. */
export function mergeBuckets(parts: ReadonlyArray<readonly BucketRow[]>): BucketRow[] {
  const byT = new Map<number, BucketRow>();
  for (const part of parts) {
    for (const b of part) {
      const seen = byT.get(b.t);
      if (seen === undefined) {
        byT.set(b.t, b);
        continue;
      }
      byT.set(b.t, {
        t: b.t,
        min: b.min < seen.min ? b.min : seen.min,
        max: b.max > seen.max ? b.max : seen.max,
        first: seen.first,
        last: b.last,
        count: seen.count + b.count,
      });
    }
  }
  return [...byT.values()].sort((a, b) => a.t - b.t);
}
