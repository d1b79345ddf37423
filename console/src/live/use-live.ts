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
  /**
   * Polls again now and resolves once that answer (or its error) is shown: a caller reports a command's outcome
   * only when what is shown no longer offers what the command changed.
   */
  reload: () => Promise<void>;
}

/** Calls `load` now and every `everyMs` while mounted (and `key` unchanged); the last answer wins. */
export function usePoll<T>(load: () => Promise<T>, everyMs: number, key: string): Polled<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  const kick = useRef<() => Promise<void>>(() => Promise.resolve());
  const loader = useRef(load);
  loader.current = load;
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let alive = true;
    let generation = 0;
    setData(undefined);
    setError(undefined);
    const run = (): Promise<void> => {
      clearTimeout(timer);
      const mine = ++generation;
      return loader
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
          if (alive && mine === generation) timer = setTimeout(() => void run(), everyMs);
        });
    };
    kick.current = run;
    void run();
    return () => {
      alive = false;
      clearTimeout(timer);
    };
  }, [key, everyMs]);
  return { data, error, refresh: () => void kick.current(), reload: () => kick.current() };
}
