// Tokens already verified in full, so a client sending the same bearer token on every request pays for one
// signature check, not one per request. Keyed by a SHA-256 of the token (the token itself is never kept), bounded
// in size, each entry valid until the earlier of the token's expiry (with the clock skew) and a short TTL, and
// dropped as a whole when the signing keys change.
import { hash } from 'node:crypto';
import type { JWTPayload } from 'jose';

export interface VerifiedTokenOptions {
  /** Most tokens remembered; the oldest entry makes room for a new one. */
  readonly maxEntries: number;
  /** Longest time an entry is trusted without a full verification. */
  readonly ttlMs: number;
  /** Leeway on `exp`, as the full verification applies it. */
  readonly clockSkewMs: number;
}

interface Entry {
  readonly payload: JWTPayload;
  readonly validUntil: number;
}

export class VerifiedTokens {
  readonly #entries = new Map<string, Entry>();
  readonly #options: VerifiedTokenOptions;
  #generation: number | undefined;

  constructor(options: VerifiedTokenOptions) {
    this.#options = options;
  }

  /** The claims of a token verified earlier and still valid at `now`; undefined when it must be verified. */
  get(token: string, now: number, generation: number | undefined): JWTPayload | undefined {
    if (generation !== this.#generation) {
      this.#entries.clear();
      this.#generation = generation;
      return undefined;
    }
    const key = keyOf(token);
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (now >= entry.validUntil) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry.payload;
  }

  /** Remembers a token just verified in full at `now` with the keys of `generation`. */
  set(token: string, payload: JWTPayload, now: number, generation: number | undefined): void {
    if (generation !== this.#generation) return;
    const expiry = typeof payload.exp === 'number' ? payload.exp * 1000 + this.#options.clockSkewMs : now;
    const validUntil = Math.min(expiry, now + this.#options.ttlMs);
    if (validUntil <= now) return;
    if (this.#entries.size >= this.#options.maxEntries) {
      const oldest = this.#entries.keys().next();
      if (oldest.done !== true) this.#entries.delete(oldest.value);
    }
    this.#entries.set(keyOf(token), { payload, validUntil });
  }

  get size(): number {
    return this.#entries.size;
  }
}

function keyOf(token: string): string {
  return hash('sha256', token, 'base64');
}
