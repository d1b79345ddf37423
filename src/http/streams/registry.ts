// The registry of every open SSE and WebSocket stream (notifications, alarms): connection limits per user and in
// total, the admin listing and termination, shutdown, and the stream metrics.
import { randomUUID } from 'node:crypto';
import { Counter, Gauge, type Registry } from 'prom-client';
import { AppError } from '../../errors.ts';

export interface StreamIdentity {
  /** What the stream is, e.g. `notifications.sse`; the label of its metrics. */
  readonly kind: string;
  readonly plcId: string | null;
  /** The JWT `sub`. */
  readonly user: string;
  /** The client's address. */
  readonly remote: string;
}

export interface StreamRow extends StreamIdentity {
  readonly id: string;
  readonly openedAt: string;
  readonly symbols: string[];
  readonly sent: number;
  readonly dropped: number;
}

/** Why a stream is ended from the server side; writers tell the client (SignalR Close carries it). */
export type EndReason = 'terminated' | 'shutdown';

/** One open stream, as its writer reports to the registry. */
export interface StreamEntry {
  readonly id: string;
  countSent(events: number): void;
  countDropped(events: number): void;
  /** What the stream is subscribed to, shown in the admin listing. */
  describeWith(symbols: () => string[]): void;
  /** Called by the registry to end the stream (admin termination, shutdown). */
  onEnd(end: (reason: EndReason) => void): void;
  /** The stream has closed, for whatever reason: frees its place. Idempotent. */
  release(): void;
}

export interface ConnectionLimitSettings {
  readonly MaxPerUser: number;
  readonly MaxTotal: number;
}

/** What features and the admin routes need of the registry; held in memory by StreamRegistry. */
export interface ConnectionRegistry {
  /** Takes a place for a new stream, or throws 429 CONNECTION_LIMIT; call before the stream opens. */
  reserve(identity: StreamIdentity): StreamEntry;
  list(): StreamRow[];
  /** Ends one stream; false when no stream has this id. */
  terminate(id: string): boolean;
  endAll(): void;
}

interface Open {
  readonly identity: StreamIdentity;
  readonly openedAt: Date;
  sent: number;
  dropped: number;
  symbols: () => string[];
  end: ((reason: EndReason) => void) | undefined;
}

export class StreamRegistry implements ConnectionRegistry {
  readonly #limits: ConnectionLimitSettings;
  readonly #open = new Map<string, Open>();
  readonly #perUser = new Map<string, number>();
  readonly #connections: Gauge;
  readonly #sent: Counter;
  readonly #dropped: Counter;
  #closing = false;

  constructor(limits: ConnectionLimitSettings, metrics: Registry) {
    this.#limits = limits;
    this.#connections = new Gauge({
      name: 'stream_connections',
      help: 'Open SSE and WebSocket streams, by kind.',
      labelNames: ['kind'],
      registers: [metrics],
    });
    this.#sent = new Counter({
      name: 'stream_events_sent_total',
      help: 'Events written to stream clients, by kind.',
      labelNames: ['kind'],
      registers: [metrics],
    });
    this.#dropped = new Counter({
      name: 'stream_events_dropped_total',
      help: 'Events dropped from full client queues (slow clients), by kind.',
      labelNames: ['kind'],
      registers: [metrics],
    });
  }

  reserve(identity: StreamIdentity): StreamEntry {
    if (this.#closing) throw new AppError('CONNECTION_LIMIT', 'The gateway is shutting down.');
    const { MaxPerUser, MaxTotal } = this.#limits;
    const mine = this.#perUser.get(identity.user) ?? 0;
    if (mine >= MaxPerUser) {
      throw new AppError(
        'CONNECTION_LIMIT',
        `This user already has ${mine} open streams (ConnectionLimits:MaxPerUser ${MaxPerUser}).`,
      );
    }
    if (this.#open.size >= MaxTotal) {
      throw new AppError(
        'CONNECTION_LIMIT',
        `The gateway already serves ${this.#open.size} streams (ConnectionLimits:MaxTotal ${MaxTotal}).`,
      );
    }
    const id = randomUUID();
    const open: Open = {
      identity,
      openedAt: new Date(),
      sent: 0,
      dropped: 0,
      symbols: () => [],
      end: undefined,
    };
    this.#open.set(id, open);
    this.#perUser.set(identity.user, mine + 1);
    this.#connections.inc({ kind: identity.kind });
    const labels = { kind: identity.kind };
    let released = false;
    return {
      id,
      countSent: (n) => {
        open.sent += n;
        this.#sent.inc(labels, n);
      },
      countDropped: (n) => {
        open.dropped += n;
        this.#dropped.inc(labels, n);
      },
      describeWith: (symbols) => {
        open.symbols = symbols;
      },
      onEnd: (end) => {
        open.end = end;
      },
      release: () => {
        if (released) return;
        released = true;
        this.#open.delete(id);
        const left = (this.#perUser.get(identity.user) ?? 1) - 1;
        if (left <= 0) this.#perUser.delete(identity.user);
        else this.#perUser.set(identity.user, left);
        this.#connections.dec(labels);
      },
    };
  }

  list(): StreamRow[] {
    return [...this.#open].map(([id, o]) => ({
      id,
      ...o.identity,
      openedAt: o.openedAt.toISOString(),
      symbols: o.symbols(),
      sent: o.sent,
      dropped: o.dropped,
    }));
  }

  terminate(id: string): boolean {
    const open = this.#open.get(id);
    if (open === undefined) return false;
    open.end?.('terminated');
    return true;
  }

  endAll(): void {
    this.#closing = true;
    for (const open of [...this.#open.values()]) open.end?.('shutdown');
  }
}
