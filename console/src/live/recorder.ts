// Records every pinned symbol while the user is signed in, so a trend has its history when the watch view
// opens and keeps it while other views are shown. Unpinning releases the subscription and the samples.
import { effect } from '@preact/signals';
import { acquireLive, type LiveCell } from './hub.ts';
import { TrendBuffer } from './trend-buffer.ts';
import { watchList, type Pin } from './watch-list.ts';

export interface Recording {
  readonly pin: Pin;
  readonly cell: LiveCell;
  readonly buffer: TrendBuffer;
}

const recordings = new Map<string, Recording & { stop: () => void }>();
const keyOf = (p: Pin): string => `${p.plcId}\n${p.symbol.toLowerCase()}`;

effect(() => {
  const wanted = new Map(watchList.value.map((p) => [keyOf(p), p]));
  for (const [key, rec] of recordings) {
    if (!wanted.has(key)) {
      rec.stop();
      recordings.delete(key);
    }
  }
  for (const [key, pin] of wanted) {
    if (recordings.has(key)) continue;
    const held = acquireLive(pin.plcId, pin.symbol);
    const buffer = new TrendBuffer();
    const listener = (s: { value: unknown; timestamp: string }): void => buffer.add(s.timestamp, s.value);
    held.cell.listeners.add(listener);
    const latest = held.cell.sample.peek();
    if (latest !== undefined) buffer.add(latest.timestamp, latest.value);
    recordings.set(key, {
      pin,
      cell: held.cell,
      buffer,
      stop: () => {
        held.cell.listeners.delete(listener);
        held.release();
      },
    });
  }
});

export function recordingOf(pin: Pin): Recording | undefined {
  return recordings.get(keyOf(pin));
}
