// A symbol's live value, with its status beside it: a value that is not current is greyed and says why.
import { LiveBadge } from './badges.tsx';
import { useLive } from '../live/use-live.ts';

export function formatValue(value: unknown): string {
  if (value === undefined) return '…';
  if (typeof value === 'number')
    return Number.isInteger(value) ? String(value) : String(Number(value.toPrecision(7)));
  if (typeof value === 'string') return value;
  return JSON.stringify(value);
}

export function LiveValue({ plcId, symbol }: { plcId: string; symbol: string }) {
  const cell = useLive(plcId, symbol);
  const status = cell?.status.value ?? 'connecting';
  const sample = cell?.sample.value;
  return (
    <span class="live-value">
      <output
        class={`value ${status === 'live' ? '' : 'stale'}`}
        aria-label={`Value of ${symbol}`}
        data-status={status}
      >
        {formatValue(sample?.value)}
      </output>{' '}
      <LiveBadge status={status} />
      {cell?.error.value !== undefined && <span class="error-text">{cell.error.value}</span>}
    </span>
  );
}
