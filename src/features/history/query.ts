// History queries: per symbol, at most maxPoints buckets {t,min,max,first,last,count} for numbers (every spike
// survives downsampling) or the raw changes for other types, the gaps of the window, and raw paging by cursor.
import { AppError, isAppError } from '../../errors.ts';
import { ServiceKey } from '../../feature-kit/service-directory.ts';
import type { PlcValue } from '../../targets/target.ts';
import { innerSpan, mergeBuckets, rollupLevels } from './store/rollups.ts';
import type { BucketRow, GapRecord, HistoryStore, SeriesInfo, ValueKind } from './store/types.ts';
import { decode, isNumeric, numberOut } from './values.ts';

export interface QueryLimits {
  readonly maxSymbols: number;
  readonly maxPoints: number;
}

export interface HistoryRequest {
  readonly symbols: readonly string[];
  readonly from: string;
  readonly to: string;
  /** Default: 1000, or History.MaxPoints when that is lower. */
  readonly maxPoints?: number | undefined;
  readonly aggregate: 'auto' | 'raw';
  readonly cursor?: string | undefined;
}

export interface Bucket {
  t: string;
  min: number | string;
  max: number | string;
  first: number | string;
  last: number | string;
  count: number;
}

export interface SeriesResult {
  symbol: string;
  type: string;
  kind: SeriesInfo['kind'];
  /** Bucket width in milliseconds, for buckets. */
  bucketMs?: number;
  buckets?: Bucket[];
  samples?: Array<{ t: string; value: PlcValue }>;
  /** raw: pass as cursor to read on; absent on the last page. */
  nextCursor?: string;
  gaps: Array<{ from: string; to: string | null; reason: GapRecord['reason'] }>;
}

export interface HistoryResult {
  plcId: string;
  from: string;
  to: string;
  series: SeriesResult[];
}

/** Points per symbol when the query names none: enough for a trend as wide as a screen. */
const defaultPoints = 1000;

const iso = (ms: number): string => new Date(ms).toISOString();

function parseTime(text: string, name: string): number {
  const ms = Date.parse(text);
  if (!/^\d{4}-\d\d-\d\dT/.test(text) || Number.isNaN(ms)) {
    throw new AppError('VALIDATION_ERROR', `${name}: '${text}' is not an ISO 8601 date and time.`);
  }
  return ms;
}

/** The window [from, to) in Unix ms; 400 unless from is before to. */
export function parseWindow(from: string, to: string): { from: number; to: number } {
  const window = { from: parseTime(from, 'from'), to: parseTime(to, 'to') };
  if (window.from >= window.to) throw new AppError('VALIDATION_ERROR', 'from must be before to.');
  return window;
}

function encodeCursor(t: number, id: number): string {
  return Buffer.from(JSON.stringify([t, id])).toString('base64url');
}

function decodeCursor(cursor: string): { t: number; id: number } {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString());
    if (Array.isArray(parsed) && parsed.length === 2 && parsed.every((n) => Number.isSafeInteger(n))) {
      return { t: parsed[0] as number, id: parsed[1] as number };
    }
  } catch {
    // Reported below.
  }
  throw new AppError('VALIDATION_ERROR', 'cursor is not one this route handed out.');
}

/**
 * The bucket grid of a window: at most `maxPoints` buckets. Buckets narrower than a second start at `from`; wider
 * ones are whole seconds (a minute or wider: whole minutes) and start on one, so the rollups of that level answer.
 */
function grid(from: number, to: number, maxPoints: number): { origin: number; width: number } {
  const width = Math.max(1, Math.ceil((to - from) / maxPoints));
  const step = rollupLevels.find((level) => width >= level);
  if (step === undefined) return { origin: from, width };
  const origin = Math.floor(from / step) * step;
  return { origin, width: Math.ceil(Math.ceil((to - origin) / maxPoints) / step) * step };
}

/** Store failures become 503 HISTORY_UNAVAILABLE: the caller can retry. */
async function reach<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    if (isAppError(err)) throw err;
    throw new AppError('HISTORY_UNAVAILABLE', `The history store is unreachable: ${(err as Error).message}`);
  }
}

export class HistoryQueries {
  readonly #store: HistoryStore;
  readonly #limits: QueryLimits;

  constructor(store: HistoryStore, limits: QueryLimits) {
    this.#store = store;
    this.#limits = limits;
  }

  /** What is recorded on `plcId`, with first and last sample times. */
  async symbols(plcId: string): Promise<SeriesInfo[]> {
    return reach(this.#store.listSeries(plcId));
  }

  async query(plcId: string, request: HistoryRequest): Promise<HistoryResult> {
    const { symbols, aggregate, cursor } = request;
    const maxPoints = request.maxPoints ?? Math.min(defaultPoints, this.#limits.maxPoints);
    if (symbols.length > this.#limits.maxSymbols) {
      throw new AppError(
        'HISTORY_SYMBOL_LIMIT_EXCEEDED',
        `${symbols.length} symbols asked for; at most ${this.#limits.maxSymbols} (History.MaxSymbolsPerQuery).`,
      );
    }
    if (maxPoints > this.#limits.maxPoints) {
      throw new AppError(
        'VALIDATION_ERROR',
        `maxPoints: at most ${this.#limits.maxPoints} (History.MaxPoints).`,
      );
    }
    if (cursor !== undefined && (aggregate !== 'raw' || symbols.length !== 1)) {
      throw new AppError('VALIDATION_ERROR', 'cursor pages raw samples of one symbol: use aggregate=raw.');
    }
    const window = parseWindow(request.from, request.to);
    const after = cursor === undefined ? undefined : decodeCursor(cursor);
    const known = await reach(this.#store.listSeries(plcId, false));
    const byName = new Map(known.map((s) => [s.symbol.toUpperCase(), s]));
    const wanted = symbols.map((name) => {
      const info = byName.get(name.trim().toUpperCase());
      if (!info) throw new AppError('SYMBOL_NOT_RECORDED', `'${name}' is not recorded on PLC '${plcId}'.`);
      return info;
    });
    const gaps = (await reach(this.#store.gaps(plcId, window.from, window.to))).map((g) => ({
      from: iso(g.from),
      to: g.to === null ? null : iso(g.to),
      reason: g.reason,
    }));
    const series: SeriesResult[] = [];
    for (const info of wanted) {
      const base = { symbol: info.symbol, type: info.typeName, kind: info.kind, gaps };
      if (aggregate === 'auto' && isNumeric(info.kind)) {
        const { origin, width } = grid(window.from, window.to, maxPoints);
        const rows = await reach(this.#buckets(info.id, info.kind, origin, window.from, window.to, width));
        const out = (v: number | bigint) => numberOut(info.kind, v);
        series.push({
          ...base,
          bucketMs: width,
          buckets: rows.map((r) => ({
            t: iso(r.t),
            min: out(r.min),
            max: out(r.max),
            first: out(r.first),
            last: out(r.last),
            count: r.count,
          })),
        });
        continue;
      }
      // One more than asked tells whether a next page exists.
      const rows = await reach(this.#store.raw(info.id, window.from, window.to, after, maxPoints + 1));
      const page = rows.slice(0, maxPoints);
      const last = page.at(-1);
      series.push({
        ...base,
        samples: page.map((r) => ({ t: iso(r.t), value: decode(info.kind, r) })),
        ...(rows.length > maxPoints && last ? { nextCursor: encodeCursor(last.t, last.id) } : {}),
      });
    }
    return { plcId, from: iso(window.from), to: iso(window.to), series };
  }

  /**
   * Buckets from the coarsest rollups whose spans the bucket edges fall on; the partial spans at the window's
   * edges from the next finer level, and finally from the raw samples.
   */
  async #buckets(
    series: number,
    kind: ValueKind,
    origin: number,
    from: number,
    to: number,
    width: number,
    levels: readonly number[] = kind === 'number' ? rollupLevels : [],
  ): Promise<BucketRow[]> {
    for (const [i, level] of levels.entries()) {
      const inner = innerSpan(level, origin, from, to, width);
      if (inner === undefined) continue;
      const finer = levels.slice(i + 1);
      const parts = await Promise.all([
        from < inner.from ? this.#buckets(series, kind, origin, from, inner.from, width, finer) : [],
        this.#store.rollupBuckets(level, { series, origin, from: inner.from, to: inner.to, width }),
        inner.to < to ? this.#buckets(series, kind, origin, inner.to, to, width, finer) : [],
      ]);
      return mergeBuckets(parts);
    }
    return this.#store.buckets(kind, { series, origin, from, to, width });
  }

  /** CSV of a query, page by page for raw samples (one line per bucket or sample). */
  async *csv(plcId: string, request: HistoryRequest): AsyncGenerator<string> {
    let page = await this.query(plcId, request);
    const raw = request.aggregate === 'raw';
    yield raw ? 'symbol,t,value\n' : 'symbol,t,min,max,first,last,count,value\n';
    for (;;) {
      for (const s of page.series) {
        for (const b of s.buckets ?? []) {
          yield `${csvCell(s.symbol)},${b.t},${b.min},${b.max},${b.first},${b.last},${b.count},\n`;
        }
        for (const x of s.samples ?? []) {
          yield raw
            ? `${csvCell(s.symbol)},${x.t},${csvCell(x.value)}\n`
            : `${csvCell(s.symbol)},${x.t},,,,,,${csvCell(x.value)}\n`;
        }
      }
      const next = raw && page.series.length === 1 ? page.series[0]?.nextCursor : undefined;
      if (next === undefined) return;
      page = await this.query(plcId, { ...request, cursor: next });
    }
  }
}

function csvCell(value: PlcValue): string {
  const text = value === null ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value);
  return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** The history queries, for the other front doors (MCP). */
export const historyQueriesKey = new ServiceKey<HistoryQueries>('history');
