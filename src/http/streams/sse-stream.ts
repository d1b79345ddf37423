// The SSE writer: a client's bounded queue drained onto the response with backpressure, numbered `id:` lines (or
// the caller's cursors), a named heartbeat event, a final `event: error` when the stream's token ends it, and
// cleanup the moment the client goes away.
// @fastify/sse commits the headers (Content-Type, Cache-Control: no-cache, X-Accel-Buffering: no), reads
// Last-Event-ID and reports the close; frames are written here in batches, because its send() awaits one
// write per message and has no bounded queue.
import type { FastifyReply } from 'fastify';
import { Outbox, type EventSink, type StreamEvent } from './outbox.ts';
import type { EndReason, StreamEntry } from './registry.ts';
import type { TokenEnd } from './token-deadlines.ts';

export interface SseStreamOptions {
  /** Bounded per-client queue length; the oldest event is dropped beyond it. */
  readonly queueLength: number;
  /** `event: heartbeat` with data `{}` this often; 0 for none. */
  readonly heartbeatMs: number;
  /** The stream's place in the registry. */
  readonly entry: StreamEntry;
  /**
   * true (default): events without an id of their own are numbered. false: they go out without an `id:` line,
   * so the client's Last-Event-ID stays the last cursor the feature gave (heartbeats, gaps).
   */
  readonly numbered?: boolean;
}

// Large enough to batch a burst, small enough that one slow client cannot pin much memory in the socket.
const maxChunkChars = 64 * 1024;

/** The last event of a stream its token ended: `event: error`, data `{ code, message }`. */
export const tokenEndEvents: Readonly<Record<TokenEnd, string>> = {
  expired: tokenEndEvent(
    'TOKEN_EXPIRED',
    'The access token of this stream has expired; open the stream again with a fresh token.',
  ),
  revoked: tokenEndEvent(
    'TOKEN_REVOKED',
    'The key that signed the access token of this stream was withdrawn; open the stream again with a fresh token.',
  ),
};

function tokenEndEvent(code: string, message: string): string {
  return `event: error\ndata: ${JSON.stringify({ code, message })}\n\n`;
}

export class SseStream implements EventSink {
  readonly #reply: FastifyReply;
  readonly #outbox: Outbox;
  readonly #entry: StreamEntry;
  readonly #closeListeners: Array<() => void> = [];
  /** The next number for an event without its own id; undefined when such events carry none. */
  #nextId: number | undefined;
  #scheduled = false;
  #draining = false;
  #open = true;
  #heartbeat: NodeJS.Timeout | undefined;

  /** Opens the stream: headers go out now, so every refusal must have been answered before this. */
  constructor(reply: FastifyReply, options: SseStreamOptions) {
    const sse = reply.sse;
    this.#reply = reply;
    this.#outbox = new Outbox(options.queueLength);
    this.#entry = options.entry;
    // Ids continue after the client's Last-Event-ID, so a resumed client never sees an id go backwards.
    const last = Number(sse.lastEventId ?? '');
    if (options.numbered !== false) this.#nextId = Number.isSafeInteger(last) && last >= 0 ? last + 1 : 1;
    sse.keepAlive();
    sse.onClose(() => this.#closed());
    options.entry.onEnd((reason) => this.end(reason));
    reply.raw.on('close', () => this.#closed());
    sse.sendHeaders(200);
    // A comment line flushes the headers through proxies at once; clients ignore it.
    reply.raw.write(':\n\n');
    if (options.heartbeatMs > 0) {
      this.#heartbeat = setInterval(() => this.send({ name: 'heartbeat', data: '{}' }), options.heartbeatMs);
      this.#heartbeat.unref();
    }
  }

  /** The client's Last-Event-ID header, if it sent one. */
  get lastEventId(): string | null {
    return this.#reply.sse.lastEventId;
  }

  get open(): boolean {
    return this.#open;
  }

  send(event: StreamEvent): void {
    this.sendMany([event]);
  }

  sendMany(events: readonly StreamEvent[]): void {
    if (!this.#open) return;
    let dropped = 0;
    for (const event of events) dropped += this.#outbox.push(event);
    if (dropped > 0) this.#entry.countDropped(dropped);
    if (!this.#scheduled && !this.#draining) {
      this.#scheduled = true;
      // Events raised in the same tick (one PLC scan) go out in one write.
      queueMicrotask(() => this.#flush());
    }
  }

  onClose(listener: () => void): void {
    if (this.#open) this.#closeListeners.push(listener);
    else listener();
  }

  /** Ends the stream from the server side (admin termination, shutdown, the feature's own reasons). */
  end(reason?: EndReason): void {
    if (!this.#open) return;
    this.#flush();
    const last = reason === 'expired' || reason === 'revoked' ? tokenEndEvents[reason] : undefined;
    // Written even while the socket drains: it is the one small write left before the response ends.
    if (last !== undefined && !this.#reply.raw.writableEnded) this.#reply.raw.write(last);
    this.#reply.sse.close();
    this.#closed();
  }

  #flush(): void {
    this.#scheduled = false;
    if (!this.#open || this.#draining) return;
    const raw = this.#reply.raw;
    let chunk = '';
    let count = 0;
    for (let e = this.#outbox.shift(); e !== undefined; e = this.#outbox.shift()) {
      const id = e.id ?? (this.#nextId === undefined ? undefined : String(this.#nextId++));
      chunk += `${id === undefined ? '' : `id: ${id}\n`}event: ${e.name}\ndata: ${e.data}\n\n`;
      count += 1;
      if (chunk.length >= maxChunkChars) break;
    }
    if (count === 0) return;
    this.#entry.countSent(count);
    if (raw.write(chunk)) {
      if (this.#outbox.size > 0) this.#schedule();
      return;
    }
    // Backpressure: nothing more is written until the socket drains; meanwhile the outbox drops the oldest.
    this.#draining = true;
    raw.once('drain', () => {
      this.#draining = false;
      this.#flush();
    });
  }

  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(() => this.#flush());
  }

  #closed(): void {
    if (!this.#open) return;
    this.#open = false;
    if (this.#heartbeat !== undefined) clearInterval(this.#heartbeat);
    this.#outbox.clear();
    this.#entry.release();
    for (const l of this.#closeListeners.splice(0)) l();
  }
}
