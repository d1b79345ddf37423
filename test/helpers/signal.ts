// Waiting on events without sleeps: `until` re-checks its probe each time `notify` is called, up to a deadline.
export class Signal {
  #waiters: Array<() => void> = [];

  notify(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const w of waiters) w();
  }

  /** Resolves with the probe's first value other than undefined or false; rejects after `limitMs`. */
  async until<T>(probe: () => T | undefined | false, limitMs: number, what: () => string): Promise<T> {
    const deadline = Date.now() + limitMs;
    for (;;) {
      const hit = probe();
      if (hit !== undefined && hit !== false) return hit;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no ${what()} within ${limitMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, left);
        function done(): void {
          clearTimeout(timer);
          resolve();
        }
        this.#waiters.push(done);
      });
    }
  }
}
