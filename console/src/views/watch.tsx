// Watch list: pinned symbols from any permitted PLC with their live values, and a trend of the numeric ones (their
// recorded past, then live).
import { LiveBadge } from '../components/badges.tsx';
import { formatValue } from '../components/live-value.tsx';
import { Trend, type TrendSeries } from '../components/trend.tsx';
import { recordingOf } from '../live/recorder.ts';
import { unpin, watchList } from '../live/watch-list.ts';
import { href } from '../router.ts';
import type { View } from './view.ts';

function Watch() {
  const rows = watchList.value.map((pin) => ({ pin, rec: recordingOf(pin) }));
  const numeric: TrendSeries[] = rows.flatMap(({ pin, rec }) => {
    const value = rec?.cell.sample.value?.value;
    return rec && (typeof value === 'number' || typeof value === 'boolean')
      ? [{ name: `${pin.plcId}: ${pin.symbol}`, plcId: pin.plcId, symbol: pin.symbol, buffer: rec.buffer }]
      : [];
  });
  return (
    <section aria-labelledby="watch-title">
      <h1 id="watch-title">Watch list</h1>
      {rows.length === 0 ? (
        <p>
          Nothing pinned yet. Open a PLC from the <a href="#/">overview</a>, select a symbol and pin it.
        </p>
      ) : (
        <div class="table-wrap">
          <table>
            <caption class="muted">Pinned symbols (kept in this browser for your user)</caption>
            <thead>
              <tr>
                <th scope="col">PLC</th>
                <th scope="col">Symbol</th>
                <th scope="col">Value</th>
                <th scope="col">Status</th>
                <th scope="col">Time (PLC)</th>
                <th scope="col">
                  <span class="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map(({ pin, rec }) => {
                const status = rec?.cell.status.value ?? 'connecting';
                const sample = rec?.cell.sample.value;
                return (
                  <tr key={`${pin.plcId}:${pin.symbol}`} data-symbol={pin.symbol}>
                    <td>{pin.plcId}</td>
                    <td>
                      <a class="mono" href={href('plc', pin.plcId, pin.symbol)}>
                        {pin.symbol}
                      </a>
                    </td>
                    <td class="num">
                      <output class={`value ${status === 'live' ? '' : 'stale'}`}>
                        {formatValue(sample?.value)}
                      </output>
                    </td>
                    <td>
                      <LiveBadge status={status} />
                      {rec?.cell.error.value && <span class="error-text"> {rec.cell.error.value}</span>}
                    </td>
                    <td class="num">{sample ? new Date(sample.timestamp).toLocaleTimeString() : '—'}</td>
                    <td>
                      <button
                        type="button"
                        onClick={() => unpin(pin)}
                        aria-label={`Unpin ${pin.symbol} of ${pin.plcId}`}
                      >
                        Unpin
                      </button>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      {numeric.length > 0 && <Trend series={numeric} />}
    </section>
  );
}

export const watchView: View = {
  id: 'watch',
  title: 'Watch',
  nav: true,
  allowed: (s) => s.permissions.read,
  render: () => <Watch />,
};
