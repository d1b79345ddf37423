// The watch list: symbols pinned from any permitted PLC, kept in localStorage per user (`sub`), so it survives
// a reload and each user of a shared browser has their own. It holds names only, never a token or a value.
import { effect, signal } from '@preact/signals';
import { session } from '../auth/session.ts';

export interface Pin {
  plcId: string;
  symbol: string;
}

export const watchList = signal<Pin[]>([]);
let loadedFor: string | undefined;

const keyOf = (sub: string): string => `plc-console.watch.${sub}`;

function load(sub: string): Pin[] {
  try {
    const parsed: unknown = JSON.parse(localStorage.getItem(keyOf(sub)) ?? '[]');
    return Array.isArray(parsed)
      ? parsed.filter(
          (p): p is Pin =>
            typeof p === 'object' &&
            p !== null &&
            typeof (p as Pin).plcId === 'string' &&
            typeof (p as Pin).symbol === 'string',
        )
      : [];
  } catch {
    return [];
  }
}

effect(() => {
  const sub = session.value?.claims.sub;
  if (sub === loadedFor) return;
  loadedFor = sub;
  watchList.value = sub === undefined ? [] : load(sub);
});

function save(pins: Pin[]): void {
  watchList.value = pins;
  if (loadedFor !== undefined) localStorage.setItem(keyOf(loadedFor), JSON.stringify(pins));
}

const same = (a: Pin, b: Pin): boolean =>
  a.plcId === b.plcId && a.symbol.toLowerCase() === b.symbol.toLowerCase();

export function isPinned(pin: Pin): boolean {
  return watchList.value.some((p) => same(p, pin));
}

export function pin(pin: Pin): void {
  if (!isPinned(pin)) save([...watchList.value, pin]);
}

export function unpin(pin: Pin): void {
  save(watchList.value.filter((p) => !same(p, pin)));
}
