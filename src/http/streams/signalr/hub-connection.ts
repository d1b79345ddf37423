// One SignalR hub session over any transport (WebSockets, Server-Sent Events, LongPolling): handshake (within its
// own timeout; the JSON or MessagePack protocol), Ping both ways, the client timeout, invocations with and without
// an id (Completion, with an error on failure; rate-limited), Close with an error, a bound on what is held
// unparsed, and server-to-client invocations drained from a bounded queue with backpressure (several messages
// share one transport message).
import { isAppError } from '../../../errors.ts';
import { gapEventName, Outbox, type EventSink, type StreamEvent } from '../outbox.ts';
import type { EndReason, StreamEntry } from '../registry.ts';
import { frameCacheFor, type FrameCache, type ServerMethods } from './frame-cache.ts';
import { InvocationBudget, type InvocationBudgetSettings } from './invocation-budget.ts';
import type { HubTransport } from './hub-transport.ts';
import {
  checkHandshake,
  handshakeError,
  handshakeOk,
  type ClientMessage,
  type InvocationMessage,
} from './protocol.ts';
import {
  jsonProtocol,
  wireProtocol,
  type Frame,
  type MessageReader,
  type WireProtocol,
} from './wire-protocols.ts';

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
const separator = 0x1e;

export type { ServerMethods } from './frame-cache.ts';

/** A Completion queued in order with the events: the frame is already rendered in the connection's protocol. */
interface RawFrameEvent extends StreamEvent {
  readonly frame: Frame;
}

export class HubConnection implements EventSink {
  readonly #transport: HubTransport;
  readonly #options: HubConnectionOptions;
  #protocol: WireProtocol = jsonProtocol;
  #frames: FrameCache;
  /** What arrived before the handshake's record separator. */
  #beforeHandshake: Buffer = Buffer.alloc(0);
  #reader: MessageReader | undefined;
  readonly #outbox: Outbox;
  /** The outbox holds exactly this shared run of events (a scan's changes): written as one shared Buffer. */
  #run: readonly StreamEvent[] | undefined;
  readonly #methods = new Map<string, HubMethod>();
  readonly #closeListeners: Array<() => void> = [];
  readonly #readyListeners: Array<() => void> = [];
  readonly #budget: InvocationBudget;
  #handshaken = false;
  #open = true;
  #writing = false;
  #scheduled = false;
  readonly #ping: NodeJS.Timeout;
  /** The handshake timeout until the handshake, then the client timeout (none over LongPolling). */
  #timeout: NodeJS.Timeout | undefined;

  constructor(transport: HubTransport, options: HubConnectionOptions) {
    this.#transport = transport;
    this.#options = options;
    this.#outbox = new Outbox(options.queueLength);
    this.#frames = frameCacheFor(options.serverMethods, jsonProtocol);
    this.#budget = new InvocationBudget(options.bounds, options.now);
    options.entry.onEnd((reason) => this.end(endMessages[reason].error, endMessages[reason].allowReconnect));
    this.#ping = setInterval(() => {
      if (this.#handshaken && !transport.inherentKeepAlive) this.#write(this.#protocol.ping);
    }, options.pingIntervalMs);
    // Not refreshed by messages: bytes that never make a handshake cannot keep the connection waiting for one.
    this.#timeout = setTimeout(
      () => this.end('The handshake was not received in time.', false),
      options.handshakeTimeoutMs,
    );
    transport.attach({
      message: (data, binary) => this.#onMessage(data, binary),
      closed: () => this.#closed(),
    });
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

  /** What the connection is subscribed to, for the admin listing (see StreamEntry.describeWith). */
  describeWith(...args: Parameters<StreamEntry['describeWith']>): void {
    this.#options.entry.describeWith(...args);
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

  /** Sends Close with the error, then closes the transport. */
  end(error: string | undefined, allowReconnect = false): void {
    if (!this.#open) return;
    this.#flush();
    if (this.#handshaken) this.#write(this.#protocol.close(error, allowReconnect));
    this.#transport.close();
    this.#closed();
  }

  #onMessage(data: Buffer, binary: boolean | undefined): void {
    // Messages the transport had already read when the connection was ended are not parsed.
    if (!this.#open) return;
    if (this.#handshaken) this.#timeout?.refresh();
    const reader = this.#reader;
    if (reader === undefined) {
      this.#beforeTheHandshake(data);
      return;
    }
    if (binary === true && !this.#protocol.binary) {
      this.end('Binary messages are not supported by the json protocol.');
      return;
    }
    this.#read(reader, data);
  }

  /** The handshake is JSON text up to the first record separator, whatever protocol it picks; the rest follows it. */
  #beforeTheHandshake(data: Buffer): void {
    const held = this.#beforeHandshake.length === 0 ? data : Buffer.concat([this.#beforeHandshake, data]);
    const end = held.indexOf(separator, this.#beforeHandshake.length);
    if (end < 0) {
      if (held.length > this.#options.bounds.MaxUnparsedBytes) this.#overflow(held.length);
      else this.#beforeHandshake = Buffer.from(held);
      return;
    }
    this.#beforeHandshake = Buffer.alloc(0);
    this.#onHandshake(held.subarray(0, end).toString('utf8'));
    const rest = held.subarray(end + 1);
    if (this.#open && this.#reader !== undefined && rest.length > 0)
      this.#read(this.#reader, Buffer.from(rest));
  }

  #read(reader: MessageReader, data: Buffer): void {
    const received = reader.push(data);
    if ('overflow' in received) {
      this.#overflow(received.overflow);
      return;
    }
    for (const parsed of received.messages) {
      if (!this.#open) return;
      if (!parsed.ok) {
        this.end(`Protocol error: ${parsed.error}`);
        return;
      }
      this.#onRecord(parsed.message);
    }
  }

  #overflow(held: number): void {
    this.#options.log.warn({ held }, 'hub message too large to hold unparsed');
    this.end(
      `PAYLOAD_TOO_LARGE: A message of ${held} bytes is not complete yet; at most ` +
        `${this.#options.bounds.MaxUnparsedBytes} are held (Hubs:MaxUnparsedBytes).`,
    );
  }

  #onHandshake(record: string): void {
    const checked = checkHandshake(record);
    let refusal = 'error' in checked ? checked.error : null;
    if ('protocol' in checked && wireProtocol(checked.protocol).binary && !this.#transport.binary) {
      refusal =
        `The protocol '${checked.protocol}' needs the binary transfer format, which ` +
        `${this.#transport.name} does not carry; use WebSockets or LongPolling.`;
    }
    if (refusal !== null || !('protocol' in checked)) {
      this.#transport.write(handshakeError(refusal ?? ''), false);
      this.#transport.close(true);
      this.#closed();
      return;
    }
    this.#protocol = wireProtocol(checked.protocol);
    this.#frames = frameCacheFor(this.#options.serverMethods, this.#protocol);
    this.#reader = this.#protocol.reader(this.#options.bounds.MaxUnparsedBytes);
    this.#handshaken = true;
    clearTimeout(this.#timeout);
    // Over LongPolling the client sends no Ping: its polls keep it (the transport's disconnect timeout ends it).
    this.#timeout = this.#transport.inherentKeepAlive
      ? undefined
      : setTimeout(
          () => this.end('Server timeout elapsed without receiving a message from the client.', false),
          this.#options.clientTimeoutMs,
        );
    // The handshake answer is JSON text in either protocol.
    this.#transport.write(handshakeOk, this.#protocol.binary);
    for (const l of this.#readyListeners.splice(0)) l();
    this.#schedule();
  }

  #onRecord(message: ClientMessage): void {
    if (message.type === 1) void this.#invoke(message);
    else if (message.type === 7) {
      this.#transport.close();
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
    const event: RawFrameEvent = {
      name: rawFrame,
      data: '',
      frame: this.#protocol.completion(invocationId, outcome),
    };
    this.send(event);
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
    let batch: Frame;
    let count = 0;
    if (run !== undefined && this.#outbox.size === run.length) {
      // The common case: a scan's changes, the same for every client; nothing is rendered per client.
      batch = this.#frames.run(run);
      for (count = 0; count < run.length; count++) this.#outbox.shift();
    } else {
      const frames: Frame[] = [];
      let size = 0;
      for (let e = this.#outbox.shift(); e !== undefined; e = this.#outbox.shift()) {
        const frame =
          e.name === rawFrame
            ? (e as RawFrameEvent).frame
            : this.#frames.frame(e, e.name === gapEventName ? 'Gap' : undefined);
        if (frame === undefined) continue;
        frames.push(frame);
        size += frame.length;
        if (e.name !== rawFrame) count += 1;
        if (size >= maxBatchChars) break;
      }
      batch = this.#protocol.join(frames);
    }
    if (batch.length === 0) return;
    if (count > 0) this.#options.entry.countSent(count);
    // Backpressure: the next batch waits until this one reached the transport; meanwhile the outbox drops the oldest.
    this.#writing = true;
    // A shared Buffer of the JSON protocol is still a text message: the JSON hub protocol is text.
    this.#transport.write(batch, this.#protocol.binary, () => {
      this.#writing = false;
      if (this.#outbox.size > 0) this.#schedule();
    });
  }

  #write(frame: Frame): void {
    this.#transport.write(frame, this.#protocol.binary);
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
