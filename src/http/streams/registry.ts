// The registry of every open SSE and WebSocket stream (notifications, alarms): connection limits per user and in
// total, the admin listing and termination, shutdown, ending a stream with its token, and the stream metrics.
import { randomUUID } from 'node:crypto';
import { Counter, Gauge, type Registry } from 'prom-client';
import { AppError } from '../../errors.ts';
import type { TokenLifetime } from '../../guards/principal.ts';
import type { StreamLedger } from './stream-ledger.ts';
import type { TokenDeadlines, TokenWatch } from './token-deadlines.ts';
import type { ConnectionLimitSettings, StreamDetails, StreamIdentity, StreamRow } from './stream-rows.ts';

/**
 * Why a stream is ended from the server side; writers tell the client (SignalR Close carries it). `expired`: the
 * token that opened it expired (plus the clock skew); `revoked`: its signing key left the key set.
 */
export type EndReason = 'terminated' | 'shutdown' | 'expired' | 'revoked';

/** One open stream, as its writer reports to the registry. */
export interface StreamEntry {
  readonly id: string;
  countSent(events: number): void;
  countDropped(events: number): void;
  /**
   * What the stream is subscribed to, shown in the admin listing; `details`, when given, adds the feature's own
   * record to the row (left out while it answers undefined).
   */
  describeWith(symbols: () => string[], details?: () => StreamDetails | undefined): void;
  /** Called by the registry to end the stream (admin termination, shutdown). */
  onEnd(end: (reason: EndReason) => void): void;
  /** The stream has closed, for whatever reason: frees its place. Idempotent. */
  release(): void;
  /** A fresh token was accepted for the stream: it now ends with that token instead. */
  renew(token: TokenLifetime): void;
  /** When the stream ends with its token (token clock, ms); undefined for a stream opened without one. */
  readonly endsAt: number | undefined;
}

interface Open {
  readonly identity: StreamIdentity;
  readonly openedAt: Date;
  sent: number;
  dropped: number;
  symbols: () => string[];
  details: () => StreamDetails | undefined;
  end: ((reason: EndReason) => void) | undefined;
  /** Frees the stream's place here and in the ledger; resolves once the ledger has it too. */
  free: () => Promise<void>;
  watch: TokenWatch | undefined;
}

export class StreamRegistry {
  readonly #limits: ConnectionLimitSettings;
  readonly #open = new Map<string, Open>();
  readonly #perUser = new Map<string, number>();
  readonly #connections: Gauge;
  readonly #sent: Counter;
  readonly #dropped: Counter;
  readonly #ledger: StreamLedger | undefined;
  readonly #deadlines: TokenDeadlines | undefined;
  #closing = false;

  /**
   * `ledger`: where replicas count each other's streams (cluster mode); absent, this process is all there is.
   * `deadlines`: ends streams with the token that opened them.
   */
  constructor(
    limits: ConnectionLimitSettings,
    metrics: Registry,
    ledger?: StreamLedger,
    deadlines?: TokenDeadlines,
  ) {
    this.#limits = limits;
    this.#ledger = ledger;
    this.#deadlines = deadlines;
    ledger?.attach({ rows: () => this.list(), terminate: (id) => this.terminate(id) });
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

  /**
   * Takes a place for a new stream, or throws 429 CONNECTION_LIMIT; call before the stream opens. With `token`, the
   * stream ends (reason `expired` or `revoked`) when that token is no longer accepted.
   */
  async reserve(identity: StreamIdentity, token?: TokenLifetime): Promise<StreamEntry> {
    if (this.#closing) throw new AppError('CONNECTION_LIMIT', 'The gateway is shutting down.');
    const id = randomUUID();
    const counted = (await this.#ledger?.admit(id, identity, this.#limits)) === 'admitted';
    // Without a ledger, or while it is unreachable (limits fail open to this replica's own), count here.
    if (!counted) this.#checkLocal(identity);
    const mine = this.#perUser.get(identity.user) ?? 0;
    const labels = { kind: identity.kind };
    let freed: Promise<void> | undefined;
    const open: Open = {
      identity,
      openedAt: new Date(),
      sent: 0,
      dropped: 0,
      symbols: () => [],
      details: () => undefined,
      end: undefined,
      free: () => {
        open.watch?.cancel();
        return (freed ??= this.#free(id, identity.user, labels));
      },
      watch: undefined,
    };
    if (token !== undefined && this.#deadlines !== undefined) {
      open.watch = this.#deadlines.watch(token, (reason) => {
        void open.free();
        open.end?.(reason);
      });
    }
    this.#open.set(id, open);
    this.#perUser.set(identity.user, mine + 1);
    this.#connections.inc(labels);
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
      describeWith: (symbols, details) => {
        open.symbols = symbols;
        if (details !== undefined) open.details = details;
      },
      onEnd: (end) => {
        open.end = end;
      },
      release: () => void open.free(),
      renew: (next) => open.watch?.renew(next),
      get endsAt() {
        return open.watch?.endsAt;
      },
    };
  }

  #free(id: string, user: string, labels: { kind: string }): Promise<void> {
    this.#open.delete(id);
    const left = (this.#perUser.get(user) ?? 1) - 1;
    if (left <= 0) this.#perUser.delete(user);
    else this.#perUser.set(user, left);
    this.#connections.dec(labels);
    return this.#ledger?.release(id, user) ?? Promise.resolve();
  }

  /** This replica's streams. */
  list(): StreamRow[] {
    const replica = this.#ledger === undefined ? {} : { replica: this.#ledger.replicaId };
    return [...this.#open].map(([id, o]) => {
      const details = o.details();
      return {
        id,
        ...o.identity,
        openedAt: o.openedAt.toISOString(),
        symbols: o.symbols(),
        sent: o.sent,
        dropped: o.dropped,
        ...replica,
        ...(details === undefined ? {} : { details }),
      };
    });
  }

  /** Every replica's streams; in cluster mode the others' figures are as of their last heartbeat. */
  async listAll(): Promise<StreamRow[]> {
    const mine = this.list();
    return this.#ledger === undefined ? mine : [...mine, ...(await this.#ledger.others())];
  }

  /**
   * Ends a stream wherever it is served; the ended stream's row, or undefined when no stream has this id.
   * `authorize` sees the row first and throws to refuse (the stream then stays open).
   */
  async end(
    id: string,
    authorize: (row: StreamRow) => void = () => undefined,
  ): Promise<StreamRow | undefined> {
    const row = this.list().find((r) => r.id === id);
    if (row !== undefined) {
      authorize(row);
      await this.terminate(id);
      return row;
    }
    return this.#ledger?.terminateElsewhere(id, authorize);
  }

  get size(): number {
    return this.#open.size;
  }

  /**
   * Ends one stream; false when no stream has this id. Its place is free on every replica before the client sees
   * the end, so a client told to go may come back at once without meeting its own stale count.
   */
  async terminate(id: string): Promise<boolean> {
    const open = this.#open.get(id);
    if (open === undefined) return false;
    await open.free();
    open.end?.('terminated');
    return true;
  }

  #checkLocal(identity: StreamIdentity): void {
    const { MaxPerUser, MaxTotal } = this.#limits;
    const mine = this.#perUser.get(identity.user) ?? 0;
    if (mine >= MaxPerUser) throw perUserRefusal(mine, MaxPerUser);
    if (this.#open.size >= MaxTotal) throw totalRefusal(this.#open.size, MaxTotal);
  }

  /** Shutdown: refuses new streams and ends every open one. */
  endAll(): void {
    this.#closing = true;
    for (const open of [...this.#open.values()]) open.end?.('shutdown');
  }
}

export function perUserRefusal(open: number, max: number): AppError {
  return new AppError(
    'CONNECTION_LIMIT',
    `This user already has ${open} open streams (ConnectionLimits:MaxPerUser ${max}).`,
  );
}

export function totalRefusal(open: number, max: number): AppError {
  return new AppError(
    'CONNECTION_LIMIT',
    `The gateway already serves ${open} streams (ConnectionLimits:MaxTotal ${max}).`,
  );
}
