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

// setTimeout takes at most 2^31 - 1 ms; a later instant is reached in steps.
const longestTimerMs = 2 ** 31 - 1;

/** The real clock (or a given `now`) with Node timers, which never hold the process open. */
export function timerClock(now: () => number = Date.now): DeadlineClock {
  return {
    now,
    at: (at, fn) => {
      let timer: NodeJS.Timeout;
      const arm = (): void => {
        const wait = at - now();
        // The clock may have been set back since: check again rather than end early.
        if (wait <= 0) fn();
        else {
          timer = setTimeout(arm, Math.min(wait, longestTimerMs));
          timer.unref();
        }
      };
      arm();
      return () => clearTimeout(timer);
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
