// Hooks for views: a live value held while the component is shown, and a polled resource.
import { useEffect, useRef, useState } from 'preact/hooks';
import { acquireLive, type LiveCell } from './hub.ts';

export function useLive(plcId: string, symbol: string | undefined): LiveCell | undefined {
  const [cell, setCell] = useState<LiveCell | undefined>(undefined);
  useEffect(() => {
    if (symbol === undefined) return undefined;
    const held = acquireLive(plcId, symbol);
    setCell(held.cell);
    return () => {
      held.release();
      setCell(undefined);
    };
  }, [plcId, symbol]);
  return cell;
}

export interface Polled<T> {
  data: T | undefined;
  error: unknown;
  /** Polls again now (after a command changed what is shown). */
  refresh: () => void;
}

/** Calls `load` now and every `everyMs` while mounted (and `key` unchanged); the last answer wins. */
export function usePoll<T>(load: () => Promise<T>, everyMs: number, key: string): Polled<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  const kick = useRef<() => void>(() => undefined);
  const loader = useRef(load);
  loader.current = load;
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let alive = true;
    let generation = 0;
    setData(undefined);
    setError(undefined);
    const run = (): void => {
      clearTimeout(timer);
      const mine = ++generation;
      loader
        .current()
        .then(
          (value) => {
            if (!alive || mine !== generation) return;
            setData(value);
            setError(undefined);
          },
          (err: unknown) => {
            if (alive && mine === generation) setError(err);
          },
        )
        .finally(() => {
          if (alive && mine === generation) timer = setTimeout(run, everyMs);
        });
    };
    kick.current = run;
    run();
    return () => {
      alive = false;
      clearTimeout(timer);
    };
  }, [key, everyMs]);
  return { data, error, refresh: () => kick.current() };
}
