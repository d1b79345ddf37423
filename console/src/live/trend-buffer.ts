// Samples of one watched symbol for its trend: time and number, bounded so a long session cannot grow without
// limit. Non-numeric values are not plotted.

export const maxSamples = 20_000;

export class TrendBuffer {
  readonly times: number[] = [];
  readonly values: number[] = [];

  add(timestamp: string, value: unknown): void {
    const t = Date.parse(timestamp);
    const v = typeof value === 'number' ? value : typeof value === 'boolean' ? Number(value) : Number.NaN;
    if (!Number.isFinite(t) || !Number.isFinite(v)) return;
    // A PLC clock that steps back would break the x axis: keep the series ordered.
    const last = this.times[this.times.length - 1];
    this.times.push(last !== undefined && t < last ? last : t);
    this.values.push(v);
    if (this.times.length > maxSamples) {
      this.times.splice(0, this.times.length - maxSamples);
      this.values.splice(0, this.values.length - maxSamples);
    }
  }
}

/** CSV of every buffered sample: one row per time, one column per series (empty where a series has none). */
export function toCsv(series: ReadonlyArray<{ name: string; buffer: TrendBuffer }>): string {
  const rows = new Map<number, Array<number | undefined>>();
  series.forEach(({ buffer }, column) => {
    buffer.times.forEach((t, i) => {
      const row = rows.get(t) ?? new Array<number | undefined>(series.length).fill(undefined);
      row[column] = buffer.values[i];
      rows.set(t, row);
    });
  });
  const quote = (s: string): string => `"${s.replace(/"/g, '""')}"`;
  const lines = [['time', ...series.map((s) => s.name)].map(quote).join(',')];
  for (const t of [...rows.keys()].sort((a, b) => a - b)) {
    const row = rows.get(t) ?? [];
    lines.push([new Date(t).toISOString(), ...row.map((v) => (v === undefined ? '' : String(v)))].join(','));
  }
  return `${lines.join('\n')}\n`;
}
