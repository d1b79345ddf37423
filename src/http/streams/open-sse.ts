// Opening an SSE stream as every pushing route does: a place in the registry (429 CONNECTION_LIMIT), then the
// NotificationConnections budget (429 RATE_LIMITED), and only then the headers, so every refusal is a JSON answer
// and only a stream that really opens spends the budget. The stream ends when the token that opened it does.
import type { FastifyReply } from 'fastify';
import { principalOf } from '../../guards/install-guards.ts';
import type { RateLimits } from '../../guards/rate-limit/rate-limits.ts';
import type { Streams } from './install.ts';
import type { StreamEntry } from './registry.ts';
import { SseStream } from './sse-stream.ts';

export interface SseOpening {
  /** Registry kind, e.g. `notifications.sse`. */
  readonly kind: string;
  readonly plcId: string | null;
  /** See SseStreamOptions.numbered. */
  readonly numbered?: boolean;
}

export async function openSse(
  reply: FastifyReply,
  { streams, limits }: { streams: Streams; limits: RateLimits },
  { kind, plcId, numbered = true }: SseOpening,
): Promise<{ stream: SseStream; entry: StreamEntry }> {
  const principal = principalOf(reply.request);
  const user = principal.sub;
  // The stream ends with its token: `event: error` TOKEN_EXPIRED (or TOKEN_REVOKED), then the close.
  const entry = await streams.registry.reserve(
    { kind, plcId, user, remote: reply.request.ip },
    principal.token,
  );
  try {
    await limits.route('NotificationConnections', { user });
  } catch (err) {
    entry.release();
    throw err;
  }
  const stream = new SseStream(reply, {
    queueLength: streams.queueLength,
    heartbeatMs: streams.timings.heartbeatMs,
    entry,
    numbered,
  });
  return { stream, entry };
}
