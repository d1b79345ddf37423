// Reconnect delays: capped exponential backoff with jitter, so a fleet of gateways does not retry in step.

export interface BackoffOptions {
  /** Delay before the first retry, ms. */
  baseMs: number;
  /** Upper bound of any delay, ms. */
  capMs: number;
}

/**
 * The delay before retry number `attempt` (0-based): base x 2^attempt capped at `capMs`, then
 * jittered into its upper half so retries spread out but never shrink below half the step.
 */
export function backoffDelay(
  attempt: number,
  options: BackoffOptions,
  random: () => number = Math.random,
): number {
  const exp = Math.min(options.capMs, options.baseMs * 2 ** Math.min(Math.max(attempt, 0), 30));
  const r = Math.min(Math.max(random(), 0), 1);
  return Math.round(exp / 2 + (exp / 2) * r);
}
