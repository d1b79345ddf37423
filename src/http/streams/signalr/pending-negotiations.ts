// Negotiated hub connections not yet connected: each good for one upgrade by its user on its hub URL within a
// time to live, bounded per user and in all, so one user's flood of negotiations refuses that user (429
// NEGOTIATION_LIMIT) and never evicts another user's pending negotiation.
import { AppError } from '../../../errors.ts';

export interface NegotiationBounds {
  readonly ttlMs: number;
  /** Hubs:MaxPendingNegotiations */
  readonly maxTotal: number;
  /** Hubs:MaxPendingNegotiationsPerUser */
  readonly maxPerUser: number;
}

interface Pending {
  readonly user: string;
  readonly url: string;
  readonly expires: number;
}

export class PendingNegotiations {
  readonly #bounds: NegotiationBounds;
  readonly #now: () => number;
  // Insertion order is expiry order: every entry lives the same TTL.
  readonly #pending = new Map<string, Pending>();
  readonly #perUser = new Map<string, number>();

  constructor(bounds: NegotiationBounds, now: () => number) {
    this.#bounds = bounds;
    this.#now = now;
  }

  get size(): number {
    return this.#pending.size;
  }

  /** Records a negotiation, or throws 429 NEGOTIATION_LIMIT when the user or the gateway holds the most allowed. */
  add(token: string, user: string, url: string): void {
    const t = this.#now();
    this.#expire(t);
    const mine = this.#perUser.get(user) ?? 0;
    if (mine >= this.#bounds.maxPerUser) {
      throw new AppError(
        'NEGOTIATION_LIMIT',
        `This user already has ${mine} negotiated hub connections not yet connected ` +
          `(Hubs:MaxPendingNegotiationsPerUser ${this.#bounds.maxPerUser}); connect or wait for them to expire.`,
      );
    }
    if (this.#pending.size >= this.#bounds.maxTotal) {
      throw new AppError(
        'NEGOTIATION_LIMIT',
        `The gateway already holds ${this.#pending.size} negotiated hub connections not yet connected ` +
          `(Hubs:MaxPendingNegotiations ${this.#bounds.maxTotal}).`,
      );
    }
    this.#pending.set(token, { user, url, expires: t + this.#bounds.ttlMs });
    this.#perUser.set(user, mine + 1);
  }

  /** Uses up a negotiation: true when it exists, is unexpired, and belongs to this user and hub URL. */
  take(token: string, user: string, url: string): boolean {
    const p = this.#pending.get(token);
    if (p === undefined || p.expires <= this.#now() || p.user !== user || p.url !== url) return false;
    this.#delete(token, p);
    return true;
  }

  #expire(t: number): void {
    for (const [token, p] of this.#pending) {
      if (p.expires > t) break;
      this.#delete(token, p);
    }
  }

  #delete(token: string, p: Pending): void {
    this.#pending.delete(token);
    const left = (this.#perUser.get(p.user) ?? 1) - 1;
    if (left <= 0) this.#perUser.delete(p.user);
    else this.#perUser.set(p.user, left);
  }
}
