// The rate of hub method invocations one connection may make: a token bucket of Hubs:InvocationsPerSecond
// (that many at once, refilled at that rate), and a client that keeps invoking while refused is cut off after
// Hubs:MaxRefusedInvocations refusals in a row.

export interface InvocationBudgetSettings {
  readonly InvocationsPerSecond: number;
  readonly MaxRefusedInvocations: number;
}

export type Spend = 'allowed' | 'refused' | 'exhausted';

export class InvocationBudget {
  readonly #settings: InvocationBudgetSettings;
  readonly #now: () => number;
  #tokens: number;
  #at: number;
  #refusedInRow = 0;

  constructor(settings: InvocationBudgetSettings, now: () => number) {
    this.#settings = settings;
    this.#now = now;
    this.#tokens = settings.InvocationsPerSecond;
    this.#at = now();
  }

  /** Spends one invocation: allowed, refused (answer with an error), or exhausted (close the connection). */
  spend(): Spend {
    const { InvocationsPerSecond: rate, MaxRefusedInvocations: maxRefused } = this.#settings;
    const t = this.#now();
    // A clock that goes back refills nothing.
    this.#tokens = Math.min(rate, this.#tokens + (Math.max(0, t - this.#at) * rate) / 1000);
    this.#at = t;
    if (this.#tokens >= 1) {
      this.#tokens -= 1;
      this.#refusedInRow = 0;
      return 'allowed';
    }
    this.#refusedInRow += 1;
    return this.#refusedInRow > maxRefused ? 'exhausted' : 'refused';
  }
}
