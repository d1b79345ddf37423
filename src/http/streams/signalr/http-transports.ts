// The HTTP hub transports of the SignalR transport protocol: Server-Sent Events (server messages as `data:` lines
// on one GET response, text only) and LongPolling (each GET takes what is pending or waits for it up to the poll
// timeout; 204 once the connection is over). The client sends with POST either way. A LongPolling client that
// stops polling, or an SSE response that closes, ends the session, so no place is held by a client that left.
import type { ServerResponse } from 'node:http';
import type { HubTransport, TransportListener } from './hub-transport.ts';
import type { Frame } from './wire-protocols.ts';

/** A transport the client reaches by HTTP requests carrying `?id=`: they hand it what the client POSTs. */
export interface HttpHubTransport extends HubTransport {
  receive(data: Buffer): void;
  /** The client ended the connection (`DELETE ?id=`), or a refused request must end it. */
  terminate(): void;
}

export class SseTransport implements HttpHubTransport {
  readonly name = 'ServerSentEvents';
  readonly binary = false;
  readonly inherentKeepAlive = false;
  readonly #response: ServerResponse;
  #listener: TransportListener | undefined;

  /** `response`: the GET's response, its headers already written. */
  constructor(response: ServerResponse) {
    this.#response = response;
  }

  attach(listener: TransportListener): void {
    this.#listener = listener;
    this.#response.once('close', () => listener.closed());
  }

  receive(data: Buffer): void {
    this.#listener?.message(data, undefined);
  }

  write(data: Frame, _binary: boolean, written?: () => void): void {
    const response = this.#response;
    if (response.writableEnded || response.destroyed) return;
    const text = typeof data === 'string' ? data : data.toString('utf8');
    // Each line of the message is a `data:` line; the client joins them with newlines again.
    const event = text
      .split(/\r?\n/)
      .map((line) => `data: ${line}\r\n`)
      .join('');
    response.write(`${event}\r\n`, () => written?.());
  }

  close(): void {
    if (!this.#response.writableEnded) this.#response.end();
  }

  terminate(): void {
    this.close();
    this.#listener?.closed();
  }
}

export interface LongPollingTimings {
  /** A poll with nothing to take is answered 200 empty after this long (Hubs:LongPollSeconds). */
  readonly pollMs: number;
  /** No poll outstanding for this long ends the connection (Hubs:DisconnectTimeoutSeconds). */
  readonly disconnectMs: number;
}

/** How a poll is answered: what was pending (possibly nothing), or 204 when the connection is over. */
export type PollAnswer = { readonly status: 200; readonly body: Frame } | { readonly status: 204 };

interface WaitingPoll {
  readonly answer: (a: PollAnswer) => void;
  readonly timer: NodeJS.Timeout;
}

export class LongPollingTransport implements HttpHubTransport {
  readonly name = 'LongPolling';
  readonly binary = true;
  readonly inherentKeepAlive = true;
  readonly #timings: LongPollingTimings;
  readonly #gone: () => void;
  #listener: TransportListener | undefined;
  /** Written, not yet taken by a poll: bounded by the session's backpressure (one batch) and the control frames. */
  #pending: Frame[] = [];
  #pendingBinary = false;
  #written: Array<() => void> = [];
  #waiting: WaitingPoll | undefined;
  #polled = false;
  #closing = false;
  #over = false;
  #disconnect: NodeJS.Timeout | undefined;

  /** `gone`: the connection is over for good (its id is forgotten). */
  constructor(timings: LongPollingTimings, gone: () => void) {
    this.#timings = timings;
    this.#gone = gone;
    this.#armDisconnect();
  }

  attach(listener: TransportListener): void {
    this.#listener = listener;
  }

  receive(data: Buffer): void {
    this.#listener?.message(data, undefined);
  }

  write(data: Frame, binary: boolean, written?: () => void): void {
    if (this.#over) return;
    this.#pending.push(data);
    this.#pendingBinary ||= binary;
    if (written !== undefined) this.#written.push(written);
    // Messages written in the same turn leave in one poll answer.
    if (this.#waiting !== undefined) queueMicrotask(() => this.#answerWaiting());
  }

  close(): void {
    this.#closing = true;
    // A waiting poll takes what is pending now; the next poll is told 204.
    if (this.#waiting !== undefined) queueMicrotask(() => this.#answerWaiting());
  }

  terminate(): void {
    this.#closing = true;
    this.#pending = [];
    this.#end();
  }

  /** A GET: answered with what is pending, after the poll timeout empty, or 204 when the connection is over. */
  poll(response: ServerResponse): Promise<PollAnswer> {
    clearTimeout(this.#disconnect);
    // A newer poll replaces an older one, which is answered with nothing (the client only uses the newest).
    this.#waiting?.answer({ status: 200, body: '' });
    if (this.#over) return Promise.resolve({ status: 204 });
    const taken = this.#take();
    if (taken !== undefined) return Promise.resolve(this.#answered(taken));
    if (this.#closing) {
      this.#end();
      return Promise.resolve({ status: 204 });
    }
    // The first poll only starts the connection, as ASP.NET Core's does: the client waits for it to send.
    if (!this.#polled) {
      this.#polled = true;
      return Promise.resolve(this.#answered({ status: 200, body: '' }));
    }
    return new Promise((resolve) => {
      const waiting: WaitingPoll = {
        answer: (a) => {
          if (this.#waiting !== waiting) return;
          clearTimeout(waiting.timer);
          this.#waiting = undefined;
          resolve(this.#answered(a));
        },
        timer: setTimeout(() => waiting.answer({ status: 200, body: '' }), this.#timings.pollMs).unref(),
      };
      this.#waiting = waiting;
      // The client gave up on this poll: what is pending waits for the next one.
      response.once('close', () => {
        if (this.#waiting !== waiting) return;
        clearTimeout(waiting.timer);
        this.#waiting = undefined;
        this.#armDisconnect();
      });
    });
  }

  #answerWaiting(): void {
    const waiting = this.#waiting;
    if (waiting === undefined) return;
    const taken = this.#take();
    if (taken !== undefined) waiting.answer(taken);
    else if (this.#closing) {
      waiting.answer({ status: 204 });
      this.#end();
    }
  }

  #take(): PollAnswer | undefined {
    if (this.#pending.length === 0) return undefined;
    const frames = this.#pending;
    const body = this.#pendingBinary
      ? Buffer.concat(frames.map((f) => (typeof f === 'string' ? Buffer.from(f) : f)))
      : frames.join('');
    this.#pending = [];
    this.#pendingBinary = false;
    const written = this.#written;
    this.#written = [];
    for (const w of written) w();
    return { status: 200, body };
  }

  /** Every answered poll starts the wait for the next one. */
  #answered(answer: PollAnswer): PollAnswer {
    if (!this.#over) this.#armDisconnect();
    return answer;
  }

  #armDisconnect(): void {
    clearTimeout(this.#disconnect);
    this.#disconnect = setTimeout(() => this.#end(), this.#timings.disconnectMs).unref();
  }

  #end(): void {
    if (this.#over) return;
    this.#over = true;
    clearTimeout(this.#disconnect);
    this.#waiting?.answer({ status: 204 });
    this.#pending = [];
    this.#written = [];
    this.#gone();
    this.#listener?.closed();
  }
}

/** The open SSE and LongPolling connections by their id, each usable only by the user and hub URL that made it. */
export class HttpHubConnections {
  readonly #byId = new Map<string, { user: string; url: string; transport: HttpHubTransport }>();

  add(id: string, user: string, url: string, transport: HttpHubTransport): void {
    this.#byId.set(id, { user, url, transport });
  }

  get(id: string, user: string, url: string): HttpHubTransport | undefined {
    const c = this.#byId.get(id);
    return c !== undefined && c.user === user && c.url === url ? c.transport : undefined;
  }

  delete(id: string): void {
    this.#byId.delete(id);
  }

  get size(): number {
    return this.#byId.size;
  }
}
