// Change watching by snapshot compare: the owner calls sample() after writes and after each scan cycle.
import type { PlcType } from '../../plc/index.ts';

export interface WatchChange {
  /** Canonical path for a path watch. */
  path?: string;
  /** Type for a path watch (decode `data` with it at offset 0). */
  type?: PlcType;
  offset: number;
  size: number;
  /** A copy of the new bytes; the callback may keep it. */
  data: Buffer;
  /** The PLC time of the check that saw it: one scan's changes share it, as a task cycle's samples do. */
  time: number;
}

export interface WatchOptions {
  /**
   * Minimum PLC-clock time between two checks of this watch, like an ADS on-change notification's
   * cycle time. 0 (default) checks at every sample. `sample({ immediate: true })` ignores it.
   */
  cycleTimeMs?: number;
  /**
   * Like an ADS cyclic notification: reports at every due check, changed or not. An immediate check reports it
   * only when it changed.
   */
  cyclic?: boolean;
  /** Called once when a program download removed or retyped the watched path; the watch is closed. */
  onInvalidated?: (reason: string) => void;
}

export interface Watch {
  readonly path: string | undefined;
  readonly offset: number;
  readonly size: number;
  close(): void;
}

export interface WatchEntry extends Watch {
  path: string | undefined;
  offset: number;
  size: number;
  type: PlcType | undefined;
  snapshot: Buffer;
  cycleTimeMs: number;
  cyclic: boolean;
  lastCheck: number;
  callback: (change: WatchChange) => void;
  onInvalidated: ((reason: string) => void) | undefined;
}

/**
 * Where the watch's next cycle is counted from. A PLC task counts its cycles, so a watch's checks keep their own
 * grid: checked on the first sample at or after each grid point, it stays on the grid, and samples that come a
 * little late (a tick of 10.3 ms against a 100 ms cycle) do not stretch every interval. A gap of several cycles
 * is one check, not a burst of them. An immediate check, outside the grid, starts a new one.
 */
function nextCheckBase(w: WatchEntry, now: number, immediate: boolean): number {
  const since = now - w.lastCheck;
  if (immediate || w.cycleTimeMs <= 0 || !Number.isFinite(since)) return now;
  return w.lastCheck + Math.floor(since / w.cycleTimeMs) * w.cycleTimeMs;
}

/** The live watches of one PLC; the array is scanned linearly, which stays cheap for the usual few. */
export class WatchSet {
  readonly #entries: WatchEntry[] = [];

  get size(): number {
    return this.#entries.length;
  }

  add(entry: Omit<WatchEntry, 'close'>): WatchEntry {
    const full = entry as WatchEntry;
    full.close = () => {
      const i = this.#entries.indexOf(full);
      if (i >= 0) this.#entries.splice(i, 1);
    };
    this.#entries.push(full);
    return full;
  }

  entries(): readonly WatchEntry[] {
    return this.#entries;
  }

  /** Compares each due watch's snapshot with memory and reports the ones that changed. */
  sample(memory: Buffer, now: number, immediate: boolean): void {
    const list = this.#entries;
    if (list.length === 0) return;
    const due: WatchEntry[] = [];
    for (const w of list) {
      if (!immediate && w.cycleTimeMs > 0 && now - w.lastCheck < w.cycleTimeMs) continue;
      w.lastCheck = nextCheckBase(w, now, immediate);
      if (memory.compare(w.snapshot, 0, w.size, w.offset, w.offset + w.size) !== 0) {
        memory.copy(w.snapshot, 0, w.offset, w.offset + w.size);
        due.push(w);
      } else if (w.cyclic && !immediate) due.push(w);
    }
    // Callbacks run after the scan so a callback that closes or adds watches cannot disturb it.
    for (const w of due) {
      const change: WatchChange = {
        offset: w.offset,
        size: w.size,
        data: Buffer.from(w.snapshot),
        time: now,
      };
      if (w.path !== undefined) change.path = w.path;
      if (w.type !== undefined) change.type = w.type;
      w.callback(change);
    }
  }
}
