// The live trend of the watch list's numeric symbols (uPlot): a chosen time window, pause, drag to zoom,
// double-click or "Reset zoom" to follow live again, and CSV export of everything buffered.
import { useEffect, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';
import { toCsv, type TrendBuffer } from '../live/trend-buffer.ts';
import { download } from './download.ts';

export interface TrendSeries {
  name: string;
  buffer: TrendBuffer;
}

const windows = [
  { label: '30 s', ms: 30_000 },
  { label: '1 min', ms: 60_000 },
  { label: '5 min', ms: 300_000 },
  { label: '15 min', ms: 900_000 },
];
const palette = ['#0a58ca', '#c2410c', '#15803d', '#7e22ce', '#be123c', '#0e7490', '#a16207', '#4d7c0f'];

function aligned(series: readonly TrendSeries[]): uPlot.AlignedData {
  if (series.length === 0) return [[]];
  const tables = series.map(
    (s) => [s.buffer.times.map((t) => t / 1000), s.buffer.values] as uPlot.AlignedData,
  );
  return uPlot.join(tables);
}

export function Trend({ series }: { series: readonly TrendSeries[] }) {
  const host = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | undefined>(undefined);
  const [windowMs, setWindowMs] = useState(60_000);
  const [paused, setPaused] = useState(false);
  const [zoomed, setZoomed] = useState(false);
  const follow = useRef({ windowMs, paused, zoomed });
  follow.current = { windowMs, paused, zoomed };
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
          ...series.map((s, i) => ({
            label: s.name,
            stroke: palette[i % palette.length],
            width: 1.5,
            spanGaps: true,
          })),
        ],
        cursor: { drag: { x: true, y: false } },
        hooks: {
          setSelect: [() => setZoomed(true)],
        },
      },
      aligned(series),
      el,
    );
    plot.current = chart;
    el.addEventListener('dblclick', () => setZoomed(false));
    const resize = new ResizeObserver(() => chart.setSize({ width: width(), height: 280 }));
    resize.observe(el);
    // Redraw at most four times a second, whatever the sample rate.
    const timer = setInterval(() => {
      const { windowMs: span, paused: still, zoomed: zoom } = follow.current;
      if (still || zoom) return;
      const now = Date.now() / 1000;
      chart.setData(aligned(series), false);
      chart.setScale('x', { min: now - span / 1000, max: now });
    }, 250);
    return () => {
      clearInterval(timer);
      resize.disconnect();
      chart.destroy();
      plot.current = undefined;
    };
  }, [names]);

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
          onChange={(e) => setWindowMs(Number(e.currentTarget.value))}
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
        <button type="button" disabled={!zoomed} onClick={() => setZoomed(false)}>
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
    </div>
  );
}
