// Ends what a token opened when the token stops being accepted: each watched stream has a timer for its token's
// expiry (plus Auth:ClockSkewSeconds), moved when the client presents a fresh token, and ends at once when the
// key that signed its token leaves the identity provider's key set.
import type { TokenLifetime } from '../../guards/principal.ts';

/** Why a token no longer holds a stream open. */
export type TokenEnd = 'expired' | 'revoked';

/** The token clock and a way to run something at an instant of it; tests drive both by hand. */
export interface DeadlineClock {
  readonly now: () => number;
  /** Runs `fn` once the clock reads `at` or later; the answer cancels it. */
  readonly at: (at: number, fn: () => void) => () => void;
}

/** How often the real clock looks for streams whose token has run out: a stream ends within this of its instant. */
export const deadlineTickMs = 1000;

/**
 * The real clock (or a given `now`) with one Node interval of a fixed period while anything is pending, which never
 * holds the process open. Not a timer per stream: Node keeps the list of an unref'd timer's duration until that
 * duration has passed even after the timer is cleared, so a timer per stream (each with its own duration, hours
 * long) left a list behind for every stream a client opened and closed. One period is one list, reused.
 */
export function timerClock(now: () => number = Date.now): DeadlineClock {
  const pending = new Set<{ readonly at: number; readonly fn: () => void }>();
  let timer: NodeJS.Timeout | undefined;
  const stopWhenIdle = (): void => {
    if (pending.size > 0 || timer === undefined) return;
    clearInterval(timer);
    timer = undefined;
  };
  const tick = (): void => {
    // The clock may have been set back since: what is not due by it waits for a later tick.
    const t = now();
    for (const entry of pending) {
      if (entry.at > t) continue;
      pending.delete(entry);
      entry.fn();
    }
    stopWhenIdle();
  };
  return {
    now,
    at: (at, fn) => {
      if (at <= now()) {
        fn();
        return () => undefined;
      }
      const entry = { at, fn };
      pending.add(entry);
      if (timer === undefined) {
        timer = setInterval(tick, deadlineTickMs);
        timer.unref();
      }
      return () => {
        pending.delete(entry);
        stopWhenIdle();
      };
    },
  };
}

/** One watched stream. */
export interface TokenWatch {
  /** The instant (token clock, ms) the stream ends unless renewed. */
  readonly endsAt: number;
  /** A fresh token was accepted for the stream: its expiry and key replace the old ones. */
  renew(token: TokenLifetime): void;
  /** The stream closed for another reason. */
  cancel(): void;
}

interface Watched {
  token: TokenLifetime;
  cancelTimer: () => void;
  readonly end: (reason: TokenEnd) => void;
}

export class TokenDeadlines {
  readonly #clock: DeadlineClock;
  readonly #watched = new Set<Watched>();

  constructor(clock: DeadlineClock) {
    this.#clock = clock;
  }

  get clock(): DeadlineClock {
    return this.#clock;
  }

  /** Watches a stream opened with `token`; `end` runs once, when the token expires or its key is withdrawn. */
  watch(token: TokenLifetime, end: (reason: TokenEnd) => void): TokenWatch {
    const watched: Watched = { token, cancelTimer: () => undefined, end };
    const finish = (reason: TokenEnd): void => {
      if (!this.#watched.delete(watched)) return;
      watched.cancelTimer();
      watched.end(reason);
    };
    const arm = (): void => {
      watched.cancelTimer();
      watched.cancelTimer = this.#clock.at(watched.token.expiresAt, () => finish('expired'));
    };
    this.#watched.add(watched);
    arm();
    return {
      get endsAt() {
        return watched.token.expiresAt;
      },
      renew: (next) => {
        if (!this.#watched.has(watched)) return;
        watched.token = next;
        arm();
      },
      cancel: () => {
        if (this.#watched.delete(watched)) watched.cancelTimer();
      },
    };
  }

  /** The identity provider's key set changed: streams whose token was signed by a key no longer in it end. */
  keysChanged(present: ReadonlySet<string>): void {
    for (const w of [...this.#watched]) {
      const key = w.token.key;
      if (key !== undefined && !present.has(key) && this.#watched.delete(w)) {
        w.cancelTimer();
        w.end('revoked');
      }
    }
  }

  get size(): number {
    return this.#watched.size;
  }
}
