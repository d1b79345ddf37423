// The one ADS connection of a PLC: connect, watch, and reconnect with capped exponential backoff and jitter.
import type { ConnectionListener, ConnectionState } from '../target.ts';
import { backoffDelay } from './backoff.ts';
import { Session } from './link-session.ts';
import { checkOnBeat } from './state-beat.ts';
import { TimedClient } from './timed-client.ts';
import type { AdsLinkSettings } from './settings.ts';

export interface LinkHooks {
  /** A connection was established (first or re-established): restore what depends on it. */
  onSession(session: Session): void;
  /** The PLC program was downloaded again (symbol version changed to `version`) on a live connection. */
  onSymbolVersionChange(session: Session, version: number): void;
  /** A connection attempt failed (the loop retries after its backoff). */
  onConnectFailed(err: unknown): void;
}

const noop = (): void => undefined;
/** The longest a Node timer can wait: ads-client's own connection check never runs. */
const neverMs = 2 ** 31 - 1;
/** Longest start() waits for the first connection attempt. */
const startGraceMs = 1000;

export class AdsLink {
  readonly #settings: AdsLinkSettings;
  readonly #hooks: LinkHooks;
  readonly #listeners = new Set<ConnectionListener>();
  #state: ConnectionState = 'Disconnected';
  #session: Session | undefined;
  #ids = 0;
  #attempts = 0;
  #closed = false;
  #loop: Promise<void> | undefined;
  #wake: (() => void) | undefined;
  /** Abandons the connection attempt in flight, so close() need not wait for its timeouts. */
  #abort: (() => void) | undefined;

  constructor(settings: AdsLinkSettings, hooks: LinkHooks) {
    this.#settings = settings;
    this.#hooks = hooks;
  }

  get state(): ConnectionState {
    return this.#state;
  }

  /** Connection attempts made so far (diagnostics). */
  get attempts(): number {
    return this.#attempts;
  }

  /** The live session, if connected. */
  get session(): Session | undefined {
    return this.#session?.alive ? this.#session : undefined;
  }

  onState(listener: ConnectionListener): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  /**
   * Starts the connect loop. Resolves after the first attempt or after a short grace period, whichever
   * is first: an unreachable PLC never throws here and never holds up the gateway's start.
   */
  async start(): Promise<void> {
    if (this.#loop || this.#closed) return;
    let first: () => void = noop;
    const attempted = new Promise<void>((resolve) => {
      first = resolve;
    });
    this.#loop = this.#run(() => first());
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, Math.min(this.#settings.timeoutMs, startGraceMs));
    });
    await Promise.race([attempted, bound]);
    clearTimeout(timer);
  }

  /** Ends the current connection so the loop reconnects (silence, online change, broken handles). */
  drop(session: Session): void {
    if (session !== this.#session) return;
    session.end();
  }

  /** Stops reconnecting; `beforeDisconnect` releases PLC-side resources while the link still works. */
  async close(beforeDisconnect: (session: Session) => Promise<void>): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#wake?.();
    this.#abort?.();
    const session = this.session;
    if (session) {
      await withTimeout(beforeDisconnect(session), this.#settings.timeoutMs * 2).catch(noop);
      // A clean disconnect deletes ads-client's own notifications and ends the socket.
      await withTimeout(session.client.disconnect(), this.#settings.timeoutMs).catch(() =>
        session.client.disconnect(true).catch(noop),
      );
      session.end();
    }
    await this.#loop;
    this.#setState('Disconnected');
  }

  async #run(firstAttemptDone: () => void): Promise<void> {
    let failures = 0;
    while (!this.#closed) {
      this.#setState('Connecting');
      let session: Session;
      try {
        session = await this.#connectOnce();
      } catch (err) {
        if (!this.#closed) this.#hooks.onConnectFailed(err);
        firstAttemptDone();
        if (this.#closed) break;
        await this.#sleep(backoffDelay(failures++, this.#settings.backoff, this.#settings.random));
        continue;
      }
      if (this.#closed) {
        await session.client.disconnect().catch(() => session.client.disconnect(true).catch(noop));
        session.end();
        break;
      }
      const connectedAt = this.#settings.now();
      this.#session = session;
      checkOnBeat(session, {
        intervalMs: this.#settings.connectionCheckIntervalMs,
        downDelayMs: this.#settings.connectionDownDelayMs,
      });
      this.#setState('Connected');
      firstAttemptDone();
      this.#hooks.onSession(session);
      await session.ended;
      if (this.#closed) break;
      this.#session = undefined;
      await session.client.disconnect(true).catch(noop);
      session.client.removeAllListeners();
      this.#setState('Disconnected');
      // Only a connection that held counts as recovered: one dropped right after connecting keeps backing off.
      if (this.#settings.now() - connectedAt >= this.#settings.backoff.capMs) failures = 0;
      await this.#sleep(backoffDelay(failures++, this.#settings.backoff, this.#settings.random));
    }
    this.#session = undefined;
  }

  async #connectOnce(): Promise<Session> {
    this.#attempts++;
    const s = this.#settings;
    const client = new TimedClient(
      {
        targetAmsNetId: s.targetNetId,
        targetAdsPort: s.targetPort,
        routerAddress: s.host,
        routerTcpPort: s.tcpPort,
        ...(s.localNetId ? { localAmsNetId: s.localNetId } : {}),
        ...(s.localAdsPort ? { localAdsPort: s.localAdsPort } : {}),
        timeoutDelay: s.timeoutMs,
        // Reconnecting is ours: a fresh client per connection, our own backoff, our own subscription map.
        autoReconnect: false,
        hideConsoleWarnings: true,
        // The connection check is ours, on one timer for every session (state-beat.ts).
        connectionCheckInterval: neverMs,
        readAndCacheSymbols: false,
        readAndCacheDataTypes: false,
        deleteUnknownSubscriptions: true,
      },
      s.symbolBrowseTimeoutMs,
    );
    const session = new Session(++this.#ids, client, s.plcId);
    client.on('connectionLost', () => session.end());
    client.on('plcSymbolVersionChange', (version, previous) => {
      if (previous !== undefined && version !== previous && session.alive) {
        this.#hooks.onSymbolVersionChange(session, version);
      }
    });
    // Without listeners these events are only informational; errors surface through the calls.
    client.on('client-error', noop);
    client.on('warning', noop);
    const connecting = client.connect();
    connecting.catch(noop);
    const aborted = new Promise<never>((_, reject) => {
      this.#abort = () => reject(new Error('closed while connecting'));
    });
    aborted.catch(noop);
    try {
      // Connecting takes a few requests (system state, device info, upload info, symbol version).
      await withTimeout(Promise.race([connecting, aborted]), s.timeoutMs * 4);
      return session;
    } catch (err) {
      session.end();
      await client.disconnect(true).catch(noop);
      client.removeAllListeners();
      forgetPendingRequests(client);
      throw err;
    } finally {
      this.#abort = undefined;
    }
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.#wake = done;
    });
  }

  #setState(state: ConnectionState): void {
    if (state === this.#state) return;
    this.#state = state;
    for (const l of [...this.#listeners]) l(state);
  }
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, limit]).finally(() => clearTimeout(timer));
}

/**
 * ads-client keeps a timer per unanswered request even after a forced disconnect, so an abandoned attempt
 * (close() while a silent peer holds the connect) would keep the process alive for up to TimeoutMs. The
 * client is discarded: its requests will never be answered, and nobody waits on them.
 */
function forgetPendingRequests(client: TimedClient): void {
  const pending = (
    client as unknown as { activeAdsRequests?: Record<string, { timeoutTimerHandle?: NodeJS.Timeout }> }
  ).activeAdsRequests;
  for (const request of Object.values(pending ?? {})) clearTimeout(request.timeoutTimerHandle);
}
