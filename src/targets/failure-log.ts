// What a target tells about failures nobody awaits (connecting, notifications, polling): logged once per
// distinct cause on its own child logger, and the last one kept for the status and readiness routes.
import type { TargetError, TargetLog } from './target.ts';

/** The log of a target built without one. */
export const silentLog: TargetLog = {
  warn: () => undefined,
  info: () => undefined,
  child: () => silentLog,
};

/** Distinct causes remembered per episode; beyond it the oldest is forgotten (and may be logged again). */
const causeLimit = 256;

export class FailureLog {
  readonly log: TargetLog;
  readonly #now: () => number;
  readonly #seen = new Set<string>();
  #last: TargetError | undefined;

  constructor(log: TargetLog, now: () => number) {
    this.log = log;
    this.#now = now;
  }

  /** The failure that keeps the target from connecting (or broke the last connection), if any. */
  get lastError(): TargetError | undefined {
    return this.#last;
  }

  /**
   * Records a failure of `what`; the first occurrence of each `code: message` is logged as a warning.
   * `connection` failures also become the target's last error; `since` stays at the first time it was seen.
   */
  failed(what: string, error: { code: string; message: string }, connection = false): void {
    const key = `${what}\u0000${error.code}\u0000${error.message}`;
    if (!this.#seen.has(key)) {
      if (this.#seen.size >= causeLimit) {
        const oldest = this.#seen.values().next();
        if (!oldest.done) this.#seen.delete(oldest.value);
      }
      this.#seen.add(key);
      this.log.warn({ code: error.code, error: error.message }, `${what} failed`);
    }
    if (!connection) return;
    const same = this.#last?.code === error.code && this.#last.message === error.message;
    if (!same) this.#last = { code: error.code, message: error.message, since: new Date(this.#now()) };
  }

  /** Connected again: the episode is over, so its causes are logged again should they come back. */
  recovered(): void {
    if (this.#last) this.log.info({ code: this.#last.code }, 'connected again');
    this.#last = undefined;
    this.#seen.clear();
  }
}
