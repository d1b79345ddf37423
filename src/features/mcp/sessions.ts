// The open MCP sessions: each belongs to the user (sub) that opened it, is bounded per user and in all, and is
// closed after Mcp.SessionIdleMinutes without a request unless it is busy (listening for resource updates).
import { AppError } from '../../errors.ts';
import type { Clock } from '../../guards/rate-limit/limiter.ts';

/** What the table needs of a session: closing it ends its transport and its server. */
export interface SessionHandle {
  close(): Promise<void>;
  /** In use although it sends no request (e.g. a client listening for subscribed resource updates). */
  busy(): boolean;
}

interface Entry<S extends SessionHandle> {
  readonly session: S;
  readonly sub: string;
  lastSeen: number;
}

export interface SessionLimits {
  readonly idleMs: number;
  readonly maxPerUser: number;
  readonly maxTotal: number;
}

export class SessionTable<S extends SessionHandle> {
  readonly #entries = new Map<string, Entry<S>>();
  /** Places taken by initializations under way, per user; counted as sessions until they end. */
  readonly #pending = new Map<string, number>();
  #pendingTotal = 0;
  readonly #limits: SessionLimits;
  readonly #now: Clock;

  constructor(limits: SessionLimits, now: Clock) {
    this.#limits = limits;
    this.#now = now;
  }

  get size(): number {
    return this.#entries.size;
  }

  /**
   * Takes a place for a session being initialized, or throws 429 CONNECTION_LIMIT when the user, or the gateway,
   * holds as many sessions as allowed. The returned function gives the place back (once): call it when the
   * initialization has ended, whether it added the session or not.
   */
  reserve(sub: string): () => void {
    this.#checkRoom(sub);
    this.#pending.set(sub, (this.#pending.get(sub) ?? 0) + 1);
    this.#pendingTotal++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#pendingTotal--;
      const left = (this.#pending.get(sub) ?? 1) - 1;
      if (left === 0) this.#pending.delete(sub);
      else this.#pending.set(sub, left);
    };
  }

  #checkRoom(sub: string): void {
    const own =
      [...this.#entries.values()].filter((e) => e.sub === sub).length + (this.#pending.get(sub) ?? 0);
    if (own >= this.#limits.maxPerUser) {
      throw new AppError(
        'CONNECTION_LIMIT',
        `This user already holds ${own} MCP sessions (Mcp.MaxSessionsPerUser); end one with DELETE /mcp.`,
      );
    }
    if (this.#entries.size + this.#pendingTotal >= this.#limits.maxTotal) {
      throw new AppError(
        'CONNECTION_LIMIT',
        'The gateway holds as many MCP sessions as it allows (Mcp.MaxSessions).',
      );
    }
  }

  add(id: string, sub: string, session: S): void {
    this.#entries.set(id, { session, sub, lastSeen: this.#now() });
  }

  /** The session, touched; undefined when unknown, expired or opened by another user (indistinguishable). */
  use(id: string, sub: string): S | undefined {
    const entry = this.#entries.get(id);
    if (entry === undefined || entry.sub !== sub) return undefined;
    entry.lastSeen = this.#now();
    return entry.session;
  }

  /** Forgets a session that closed itself (DELETE, transport closed). */
  remove(id: string): void {
    this.#entries.delete(id);
  }

  /** Closes every session idle for the limit; a busy one counts as seen now. */
  async sweep(): Promise<void> {
    const now = this.#now();
    const expired = [...this.#entries].filter(([, e]) => {
      if (e.session.busy()) e.lastSeen = now;
      return now - e.lastSeen >= this.#limits.idleMs;
    });
    for (const [id] of expired) this.#entries.delete(id);
    await Promise.all(expired.map(([, e]) => e.session.close().catch(() => undefined)));
  }

  async closeAll(): Promise<void> {
    const all = [...this.#entries.values()];
    this.#entries.clear();
    await Promise.all(all.map((e) => e.session.close().catch(() => undefined)));
  }
}
