// Redis failing a caller: why it could not be asked, and the 503 CLUSTER_UNAVAILABLE a route answers then.
import { AppError } from '../errors.ts';

/** Why Redis could not be asked: it did not answer in time, is known to hang, or is not connected. */
export type UnavailableReason = 'timeout' | 'hung' | 'disconnected';

/** A command that was not answered; `reason` says why, for the caller's 503 and the tests. */
export class RedisUnavailableError extends Error {
  constructor(
    readonly reason: UnavailableReason,
    message: string,
  ) {
    super(message);
    this.name = 'RedisUnavailableError';
  }
}

/**
 * What a route answers when Redis failed it: 503 CLUSTER_UNAVAILABLE, `what` (a sentence saying what needs the
 * shared Redis) and why it failed.
 */
export function clusterUnavailable(what: string, err: unknown): AppError {
  const why = err instanceof RedisUnavailableError ? err.message : 'It is unreachable.';
  return new AppError('CLUSTER_UNAVAILABLE', `${what} ${why}`);
}
