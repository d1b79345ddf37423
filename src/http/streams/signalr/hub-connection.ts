// One SignalR hub connection over a WebSocket: handshake (within its own timeout), Ping both ways, the client
// timeout, invocations with and without an id (Completion, with an error on failure; rate-limited), Close with an
// error, a bound on what is held unparsed, and server-to-client invocations drained from a bounded queue with
// backpressure (several records share one WebSocket message).
import type { WebSocket } from 'ws';
import { isAppError } from '../../../errors.ts';
import { gapEventName, Outbox, type EventSink, type StreamEvent } from '../outbox.ts';
import type { EndReason, StreamEntry } from '../registry.ts';
import { frameCacheFor, type FrameCache, type ServerMethods } from './frame-cache.ts';
import { InvocationBudget, type InvocationBudgetSettings } from './invocation-budget.ts';
import { RecordBuffer } from './record-buffer.ts';
import {
  checkHandshake,
  closeFrame,
  completionFrame,
  handshakeError,
  handshakeOk,
  parseMessage,
  pingFrame,
  type InvocationMessage,
} from './protocol.ts';

export interface HubTimings {
  /** The server pings this often (SignalR's KeepAliveInterval, 15 s). */
  readonly pingIntervalMs: number;
  /** Nothing heard from the client for this long closes the connection (ClientTimeoutInterval, 30 s). */
  readonly clientTimeoutMs: number;
  /** The handshake must complete this soon after the upgrade, whatever the client sends meanwhile. */
  readonly handshakeTimeoutMs: number;
}

/** The Hubs settings a connection applies. */
export interface HubBounds extends InvocationBudgetSettings {
  readonly MaxUnparsedBytes: number;
}

/**
 * A client-to-server method: its arguments as sent; the answer becomes the Completion result. A method may
 * call `complete` earlier, to order the Completion before events it queues afterwards.
 */
export type HubMethod = (args: readonly unknown[], complete: (result: unknown) => void) => unknown;

export interface HubConnectionOptions extends HubTimings {
  readonly queueLength: number;
  readonly entry: StreamEntry;
  readonly serverMethods: ServerMethods;
  readonly log: { warn(obj: object, msg: string): void };
  readonly bounds: HubBounds;
  /** Milliseconds clock of the invocation rate. */
  readonly now: () => number;
}

/** What the client is told when the server ends the connection, and whether a stock client may reconnect. */
const endMessages: Readonly<Record<EndReason, { error: string; allowReconnect: boolean }>> = {
  shutdown: { error: 'The server is shutting down.', allowReconnect: true },
  terminated: { error: 'The connection was terminated by an administrator.', allowReconnect: false },
  expired: {
    error: 'TOKEN_EXPIRED: The access token of this connection has expired; reconnect with a fresh token.',
    allowReconnect: true,
  },
  revoked: {
    error:
      'TOKEN_REVOKED: The key that signed the access token of this connection was withdrawn; reconnect with a fresh token.',
    allowReconnect: true,
  },
};

// An event name no feature uses: the data is a complete protocol frame (a Completion), queued in order.
const rawFrame = '\u0000frame';
const maxBatchChars = 64 * 1024;

export type { ServerMethods } from './frame-cache.ts';

export class HubConnection implements EventSink {
  readonly #socket: WebSocket;
  readonly #options: HubConnectionOptions;
  readonly #frames: FrameCache;
  readonly #outbox: Outbox;
  /** The outbox holds exactly this shared run of events (a scan's changes): written as one shared Buffer. */
  #run: readonly StreamEvent[] | undefined;
  readonly #methods = new Map<string, HubMethod>();
  readonly #closeListeners: Array<() => void> = [];
  readonly #readyListeners: Array<() => void> = [];
  readonly #received: RecordBuffer;
  readonly #budget: InvocationBudget;
  #handshaken = false;
  #open = true;
  #writing = false;
  #scheduled = false;
  readonly #ping: NodeJS.Timeout;
  /** The handshake timeout until the handshake, then the client timeout. */
  #timeout: NodeJS.Timeout;

  constructor(socket: WebSocket, options: HubConnectionOptions) {
    this.#socket = socket;
    this.#options = options;
    this.#outbox = new Outbox(options.queueLength);
    this.#frames = frameCacheFor(options.serverMethods);
    this.#received = new RecordBuffer(options.bounds.MaxUnparsedBytes);
    this.#budget = new InvocationBudget(options.bounds, options.now);
    options.entry.onEnd((reason) => this.end(endMessages[reason].error, endMessages[reason].allowReconnect));
    this.#ping = setInterval(() => {
      if (this.#handshaken) this.#write(pingFrame);
    }, options.pingIntervalMs);
    // Not refreshed by messages: bytes that never make a handshake cannot keep the connection waiting for one.
    this.#timeout = setTimeout(
      () => this.end('The handshake was not received in time.', false),
      options.handshakeTimeoutMs,
    );
    socket.on('message', (data, isBinary) => this.#onMessage(data, isBinary));
    socket.on('close', () => this.#closed());
    socket.on('error', () => this.#closed());
  }

  /** Registers a client-to-server method (matched case-insensitively, as SignalR does). */
  method(name: string, fn: HubMethod): this {
    this.#methods.set(name.toLowerCase(), fn);
    return this;
  }

  /** Runs once the handshake succeeded (server-to-client invocations wait for it anyway). */
  onReady(listener: () => void): void {
    if (this.#handshaken) listener();
    else this.#readyListeners.push(listener);
  }

  onClose(listener: () => void): void {
    if (this.#open) this.#closeListeners.push(listener);
    else listener();
  }

  get open(): boolean {
    return this.#open;
  }

  send(event: StreamEvent): void {
    if (!this.#open) return;
    if (event.name !== rawFrame && !this.#frames.sends(event)) return;
    this.#run = undefined;
    const dropped = this.#outbox.push(event);
    if (dropped > 0) this.#options.entry.countDropped(dropped);
    this.#schedule();
  }

  sendMany(events: readonly StreamEvent[]): void {
    if (!this.#open) return;
    let run = this.#outbox.size === 0 ? events : undefined;
    let dropped = 0;
    for (const event of events) {
      if (!this.#frames.sends(event)) {
        run = undefined;
        continue;
      }
      dropped += this.#outbox.push(event);
    }
    // With drops the outbox no longer holds the run as it is.
    this.#run = dropped > 0 ? undefined : run;
    if (dropped > 0) this.#options.entry.countDropped(dropped);
    this.#schedule();
  }

  /** Sends Close with the error, then the WebSocket close frame. */
  end(error: string | undefined, allowReconnect = false): void {
    if (!this.#open) return;
    this.#flush();
    if (this.#handshaken) this.#write(closeFrame(error, allowReconnect));
    this.#socket.close(1000);
    this.#closed();
  }

  #onMessage(data: unknown, isBinary: boolean): void {
    // Messages ws had already read when the connection was ended are not parsed.
    if (!this.#open) return;
    if (this.#handshaken) this.#timeout.refresh();
    if (isBinary) {
      this.end('Binary messages are not supported by the json protocol.');
      return;
    }
    const bytes = Buffer.isBuffer(data) ? data : Buffer.concat(data as Buffer[]);
    const received = this.#received.push(bytes);
    if ('overflow' in received) {
      this.#options.log.warn({ held: received.overflow }, 'hub message without record separator too large');
      this.end(
        `PAYLOAD_TOO_LARGE: A message of ${received.overflow} bytes has no record separator yet; at most ` +
          `${this.#options.bounds.MaxUnparsedBytes} are held (Hubs:MaxUnparsedBytes).`,
      );
      return;
    }
    for (const record of received.records) {
      if (!this.#open) return;
      if (!this.#handshaken) this.#onHandshake(record);
      else this.#onRecord(record);
    }
  }

  #onHandshake(record: string): void {
    const error = checkHandshake(record);
    if (error !== null) {
      this.#write(handshakeError(error));
      this.#socket.close(1002);
      this.#closed();
      return;
    }
    this.#handshaken = true;
    clearTimeout(this.#timeout);
    this.#timeout = setTimeout(
      () => this.end('Server timeout elapsed without receiving a message from the client.', false),
      this.#options.clientTimeoutMs,
    );
    this.#write(handshakeOk);
    for (const l of this.#readyListeners.splice(0)) l();
    this.#schedule();
  }

  #onRecord(record: string): void {
    const parsed = parseMessage(record);
    if (!parsed.ok) {
      this.end(`Protocol error: ${parsed.error}`);
      return;
    }
    const message = parsed.message;
    if (message.type === 1) void this.#invoke(message);
    else if (message.type === 7) {
      this.#socket.close(1000);
      this.#closed();
    } else if (message.type !== 6) {
      // Streaming is not offered by these hubs.
      this.end('Streaming invocations are not supported by this hub.');
    }
  }

  async #invoke(message: InvocationMessage): Promise<void> {
    const id = message.invocationId;
    const spend = this.#budget.spend();
    if (spend !== 'allowed') {
      const { InvocationsPerSecond: rate, MaxRefusedInvocations: max } = this.#options.bounds;
      if (spend === 'exhausted') {
        this.end(
          `RATE_LIMITED: More than ${max} invocations in a row were refused for the rate of ${rate} per second ` +
            '(Hubs:MaxRefusedInvocations).',
        );
      } else if (id !== undefined) {
        this.#complete(id, {
          error: `RATE_LIMITED: At most ${rate} invocations per second per connection (Hubs:InvocationsPerSecond).`,
        });
      }
      return;
    }
    const fn = this.#methods.get(message.target.toLowerCase());
    if (fn === undefined) {
      if (id !== undefined) this.#complete(id, { error: `Unknown hub method '${message.target}'.` });
      return;
    }
    let completed = false;
    const complete = (result: unknown): void => {
      if (completed) return;
      completed = true;
      if (id !== undefined) this.#complete(id, { result: result ?? null });
    };
    try {
      complete(await fn(message.arguments, complete));
    } catch (err) {
      if (id === undefined || completed) return;
      completed = true;
      if (isAppError(err)) this.#complete(id, { error: `${err.code}: ${err.message}` });
      else {
        this.#options.log.warn({ err }, 'hub method failed');
        this.#complete(id, {
          error: `An unexpected error occurred invoking '${message.target}' on the server.`,
        });
      }
    }
  }

  #complete(invocationId: string, outcome: { result: unknown } | { error: string }): void {
    this.send({ name: rawFrame, data: completionFrame(invocationId, outcome) });
  }

  #schedule(): void {
    if (this.#scheduled || this.#writing || !this.#handshaken) return;
    this.#scheduled = true;
    queueMicrotask(() => this.#flush());
  }

  #flush(): void {
    this.#scheduled = false;
    if (!this.#open || this.#writing || !this.#handshaken) return;
    const run = this.#run;
    this.#run = undefined;
    let batch: string | Buffer = '';
    let count = 0;
    if (run !== undefined && this.#outbox.size === run.length) {
      // The common case: a scan's changes, the same for every client; nothing is rendered per client.
      batch = this.#frames.run(run);
      for (count = 0; count < run.length; count++) this.#outbox.shift();
    } else {
      for (let e = this.#outbox.shift(); e !== undefined; e = this.#outbox.shift()) {
        const frame =
          e.name === rawFrame ? e.data : this.#frames.frame(e, e.name === gapEventName ? 'Gap' : undefined);
        if (frame === undefined) continue;
        batch += frame;
        if (e.name !== rawFrame) count += 1;
        if (batch.length >= maxBatchChars) break;
      }
    }
    if (batch.length === 0) return;
    if (count > 0) this.#options.entry.countSent(count);
    // Backpressure: the next batch waits until this one reached the socket; meanwhile the outbox drops the oldest.
    this.#writing = true;
    // A text message even when the batch is a shared Buffer: the JSON hub protocol is text.
    this.#socket.send(batch, { binary: false }, () => {
      this.#writing = false;
      if (this.#outbox.size > 0) this.#schedule();
    });
  }

  #write(frame: string): void {
    if (this.#socket.readyState === 1) this.#socket.send(frame);
  }

  #closed(): void {
    if (!this.#open) return;
    this.#open = false;
    clearInterval(this.#ping);
    clearTimeout(this.#timeout);
    this.#outbox.clear();
    this.#options.entry.release();
    for (const l of this.#closeListeners.splice(0)) l();
  }
}
