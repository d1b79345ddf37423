// The real-time pump: one scan per scanMs, scheduled against the start time so it never drifts, with
// catch-up after a late timer capped so a slow scan cannot pile cycles up. Timer and clock are injected.

export interface PumpTimer {
  /** Monotonic milliseconds. */
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** Node timers and the monotonic clock; a Running simulation is work that keeps the process alive. */
export const realTimer: PumpTimer = {
  now: () => performance.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/** Most scans run back to back after a late wake-up; scans owed beyond it are dropped. */
export const maxCatchUp = 10;

export class Pump {
  readonly #scanMs: number;
  readonly #timer: PumpTimer;
  /** Runs one scan; false stops the pump (the scan failed). */
  readonly #tick: () => boolean;
  #handle: unknown = null;
  #running = false;
  #start = 0;
  /** Scan slots consumed since start, run or dropped. */
  #slots = 0;

  constructor(scanMs: number, timer: PumpTimer, tick: () => boolean) {
    this.#scanMs = scanMs;
    this.#timer = timer;
    this.#tick = tick;
  }

  get running(): boolean {
    return this.#running;
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#start = this.#timer.now();
    this.#slots = 0;
    this.#schedule();
  }

  stop(): void {
    this.#running = false;
    if (this.#handle !== null) this.#timer.clearTimeout(this.#handle);
    this.#handle = null;
  }

  #schedule(): void {
    const due = this.#start + (this.#slots + 1) * this.#scanMs;
    this.#handle = this.#timer.setTimeout(() => this.#fire(), Math.max(0, due - this.#timer.now()));
  }

  #fire(): void {
    this.#handle = null;
    if (!this.#running) return;
    let owed = Math.floor((this.#timer.now() - this.#start) / this.#scanMs) - this.#slots;
    if (owed > maxCatchUp) {
      this.#slots += owed - maxCatchUp;
      owed = maxCatchUp;
    }
    for (let i = 0; i < owed; i++) {
      this.#slots++;
      if (!this.#tick()) {
        this.stop();
        return;
      }
      if (!this.#running) return;
    }
    this.#schedule();
  }
}
