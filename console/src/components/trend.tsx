// The trend of the watch list's numeric symbols (uPlot): the recorded past of the chosen window from the gateway's
// history (a line with its min/max band, breaks where the PLC was unreachable), then the live samples; pause, drag
// to zoom (the zoomed span is fetched again in finer buckets), double-click or "Reset zoom" to follow live again,
// and CSV export of everything buffered live.
import { useEffect, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';
import { describeError } from '../api/http.ts';
import { toCsv, type TrendBuffer } from '../live/trend-buffer.ts';
import { loadPast, type PastSeries } from '../live/trend-history.ts';
import { download } from './download.ts';

export interface TrendSeries {
  name: string;
  plcId: string;
  symbol: string;
  buffer: TrendBuffer;
}

const windows = [
  { label: '30 s', ms: 30_000 },
  { label: '1 min', ms: 60_000 },
  { label: '5 min', ms: 300_000 },
  { label: '15 min', ms: 900_000 },
  { label: '1 h', ms: 3_600_000 },
  { label: '8 h', ms: 28_800_000 },
  { label: '24 h', ms: 86_400_000 },
];
const palette = ['#0a58ca', '#c2410c', '#15803d', '#7e22ce', '#be123c', '#0e7490', '#a16207', '#4d7c0f'];
/** Buckets asked for per symbol: about one per pixel of a wide chart (the gateway caps it by History.MaxPoints). */
const maxBuckets = 1000;

/** The window chosen last in this browser (a reload keeps it), else a minute. */
const windowKey = 'plc-console.trend-window';
function savedWindow(): number {
  const saved = Number(localStorage.getItem(windowKey));
  return windows.some((w) => w.ms === saved) ? saved : 60_000;
}

type Past = ReadonlyMap<string, PastSeries | undefined>;

/** Per symbol: [x, value, max, min]; the past up to where it was asked, then the live samples. */
function aligned(series: readonly TrendSeries[], past: Past): uPlot.AlignedData {
  if (series.length === 0) return [[]];
  const tables = series.map((s): uPlot.AlignedData => {
    const before = past.get(s.name);
    const times: number[] = [];
    const values: Array<number | null> = [];
    const maxs: Array<number | null> = [];
    const mins: Array<number | null> = [];
    if (before !== undefined) {
      times.push(...before.times);
      values.push(...before.values);
      maxs.push(...before.maxs);
      mins.push(...before.mins);
    }
    const liveFrom = before?.to ?? -Infinity;
    s.buffer.times.forEach((t, i) => {
      if (t < liveFrom) return;
      times.push(t);
      values.push(s.buffer.values[i] ?? null);
      maxs.push(null);
      mins.push(null);
    });
    return [times.map((t) => t / 1000), values, maxs, mins];
  });
  return uPlot.join(tables);
}

function PastSummary({
  series,
  past,
  error,
}: {
  series: readonly TrendSeries[];
  past: Past;
  error?: string;
}) {
  const parts = series.map((s) => {
    const p = past.get(s.name);
    if (p === undefined) return `${s.name}: live only`;
    const range = p.range === undefined ? '' : ` (${p.range.lo} to ${p.range.hi})`;
    const breaks = p.breaks === 0 ? '' : `, ${p.breaks} break${p.breaks === 1 ? '' : 's'}`;
    return `${s.name}: ${p.points} recorded point${p.points === 1 ? '' : 's'}${range}${breaks}`;
  });
  return (
    <p class="muted" data-testid="trend-history">
      {error !== undefined ? (
        <span class="error-text">History: {error}</span>
      ) : past.size === 0 ? (
        'Loading history…'
      ) : (
        `History — ${parts.join('; ')}`
      )}
    </p>
  );
}

export function Trend({ series }: { series: readonly TrendSeries[] }) {
  const host = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | undefined>(undefined);
  const [windowMs, setWindowMs] = useState(savedWindow);
  const [paused, setPaused] = useState(false);
  /** The zoomed span (Unix ms), or undefined while following live. */
  const [zoom, setZoom] = useState<{ from: number; to: number } | undefined>(undefined);
  const [past, setPast] = useState<Past>(new Map());
  const [pastError, setPastError] = useState<string | undefined>(undefined);
  const follow = useRef({ windowMs, paused, zoomed: zoom !== undefined, past });
  follow.current = { windowMs, paused, zoomed: zoom !== undefined, past };
  const current = useRef(series);
  current.current = series;
  const names = series.map((s) => s.name).join('\n');

  useEffect(() => {
    const el = host.current;
    if (el === null) return undefined;
    const width = (): number => Math.max(300, el.clientWidth);
    const chart = new uPlot(
      {
        width: width(),
        height: 280,
        scales: { x: { time: true } },
        series: [
          {},
          ...series.flatMap((s, i) => {
            const color = palette[i % palette.length] ?? '#000';
            return [
              { label: s.name, stroke: color, width: 1.5, spanGaps: false },
              {
                label: `${s.name} (max)`,
                stroke: `${color}55`,
                width: 0.5,
                spanGaps: false,
                points: { show: false },
              },
              {
                label: `${s.name} (min)`,
                stroke: `${color}55`,
                width: 0.5,
                spanGaps: false,
                points: { show: false },
              },
            ];
          }),
        ],
        bands: series.map((s, i) => ({
          series: [2 + i * 3, 3 + i * 3] as [number, number],
          fill: `${palette[i % palette.length] ?? '#000'}22`,
        })),
        cursor: { drag: { x: true, y: false } },
        hooks: {
          setSelect: [
            (u) => {
              if (u.select.width <= 0) return;
              const from = u.posToVal(u.select.left, 'x') * 1000;
              const to = u.posToVal(u.select.left + u.select.width, 'x') * 1000;
              setZoom({ from: Math.floor(from), to: Math.ceil(to) });
            },
          ],
        },
      },
      aligned(series, follow.current.past),
      el,
    );
    plot.current = chart;
    el.addEventListener('dblclick', () => setZoom(undefined));
    const resize = new ResizeObserver(() => chart.setSize({ width: width(), height: 280 }));
    resize.observe(el);
    // Redraw at most four times a second, whatever the sample rate.
    const timer = setInterval(() => {
      const { windowMs: span, paused: still, zoomed, past: before } = follow.current;
      if (still || zoomed) return;
      const now = Date.now() / 1000;
      chart.setData(aligned(current.current, before), false);
      chart.setScale('x', { min: now - span / 1000, max: now });
    }, 250);
    return () => {
      clearInterval(timer);
      resize.disconnect();
      chart.destroy();
      plot.current = undefined;
    };
  }, [names]);

  // While following live, the past is loaded again now and then, so the live buffer's bound (maxSamples) never
  // opens a hole between the past and the live samples on a long window.
  const [refresh, setRefresh] = useState(0);
  useEffect(() => {
    if (zoom !== undefined) return undefined;
    const timer = setInterval(() => setRefresh((n) => n + 1), Math.max(15_000, windowMs / 100));
    return () => clearInterval(timer);
  }, [windowMs, zoom]);

  // The past of the window (or of the zoomed span, in finer buckets), loaded again when either changes.
  useEffect(() => {
    let stale = false;
    const to = zoom?.to ?? Date.now();
    const from = zoom?.from ?? to - windowMs;
    const points = Math.min(maxBuckets, Math.max(100, host.current?.clientWidth ?? maxBuckets));
    void Promise.all(
      current.current.map(
        async (s) => [s.name, await loadPast(s.plcId, s.symbol, from, to, points)] as const,
      ),
    ).then(
      (loaded) => {
        if (stale) return;
        const next = new Map(loaded);
        setPast(next);
        setPastError(undefined);
        follow.current.past = next;
        const chart = plot.current;
        if (chart !== undefined) {
          chart.setData(aligned(current.current, next), false);
          if (zoom !== undefined) chart.setScale('x', { min: zoom.from / 1000, max: zoom.to / 1000 });
        }
      },
      (err: unknown) => {
        if (!stale) setPastError(describeError(err));
      },
    );
    return () => {
      stale = true;
    };
  }, [names, windowMs, zoom?.from, zoom?.to, refresh]);

  const exportCsv = (): void =>
    download(
      `trend-${new Date().toISOString().replace(/[:.]/g, '-')}.csv`,
      new Blob([toCsv(series)], { type: 'text/csv' }),
    );

  return (
    <div class="trend panel">
      <div class="row">
        <label class="inline-label" for="trend-window">
          Window
        </label>
        <select
          id="trend-window"
          value={String(windowMs)}
          onChange={(e) => {
            const ms = Number(e.currentTarget.value);
            setZoom(undefined);
            setWindowMs(ms);
            localStorage.setItem(windowKey, String(ms));
          }}
        >
          {windows.map((w) => (
            <option key={w.ms} value={String(w.ms)}>
              {w.label}
            </option>
          ))}
        </select>
        <button type="button" aria-pressed={paused} onClick={() => setPaused(!paused)}>
          {paused ? 'Resume' : 'Pause'}
        </button>
        <button type="button" disabled={zoom === undefined} onClick={() => setZoom(undefined)}>
          Reset zoom
        </button>
        <button type="button" onClick={exportCsv}>
          Export CSV
        </button>
        <span class="muted">Drag across the chart to zoom.</span>
      </div>
      <div
        ref={host}
        class="chart"
        role="img"
        aria-label={`Trend of ${series.map((s) => s.name).join(', ')}`}
      />
      <PastSummary series={series} past={past} {...(pastError === undefined ? {} : { error: pastError })} />
    </div>
  );
}
