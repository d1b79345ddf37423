// Subscriptions beyond the notification budget: sampled with sum reads, delivered when their bytes change.
import type { Session } from './link-session.ts';
import type { AdsLinkSettings } from './settings.ts';
import type { SymbolAddress } from './symbol-table.ts';
import { readMany } from './value-io.ts';

/** A polled subscription: where its value lives, how often it was asked for and how it is sent. */
export interface PolledEntry {
  address: SymbolAddress;
  readonly cycleMs: number;
  /** cyclic: delivered once per its own cycle whether or not it changed; on-change: when its bytes change. */
  readonly transmission: 'on-change' | 'cyclic';
}

/** The live connection to poll on, if any. */
export interface PollHost {
  session(): Session | undefined;
  /** A poll failed (it is retried next period): the target logs it. */
  failed(what: string, err: unknown): void;
}

export class Poller<Entry extends PolledEntry> {
  readonly #settings: AdsLinkSettings;
  readonly #host: PollHost;
  readonly #deliver: (entry: Entry, data: Buffer, timestamp: Date) => void;
  readonly #entries = new Set<Entry>();
  readonly #seen = new WeakMap<Entry, Buffer>();
  /** Cyclic entries: when each is next delivered. */
  readonly #due = new WeakMap<Entry, number>();
  #timer: NodeJS.Timeout | undefined;
  #running = false;

  constructor(
    settings: AdsLinkSettings,
    host: PollHost,
    deliver: (entry: Entry, data: Buffer, timestamp: Date) => void,
  ) {
    this.#settings = settings;
    this.#host = host;
    this.#deliver = deliver;
  }

  get size(): number {
    return this.#entries.size;
  }

  add(e: Entry): void {
    this.#entries.add(e);
    this.#seen.delete(e);
    this.#due.delete(e);
    this.#schedule(0);
  }

  remove(e: Entry): void {
    this.#entries.delete(e);
    if (this.#entries.size === 0) this.stop();
  }

  stop(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** The polling period in use: the fastest requested cycle, never faster than the floor. */
  get period(): number {
    return this.#period();
  }

  /** The fastest requested cycle decides, never faster than the floor. */
  #period(): number {
    let min = Infinity;
    for (const e of this.#entries) min = Math.min(min, e.cycleMs);
    return Math.max(this.#settings.pollFloorMs, Number.isFinite(min) ? min : 1000);
  }

  #schedule(delay: number): void {
    if (this.#timer || this.#running || this.#entries.size === 0) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.#tick();
    }, delay);
  }

  async #tick(): Promise<void> {
    const session = this.#host.session();
    const entries = [...this.#entries];
    if (session && entries.length > 0) {
      this.#running = true;
      try {
        const results = await session.run('Polling subscriptions', (client) =>
          readMany(
            client,
            entries.map((e) => e.address),
            this.#settings.batchLimits,
          ),
        );
        const at = this.#settings.now();
        const now = new Date(at);
        entries.forEach((e, i) => {
          const r = results[i];
          if (!r?.ok || !this.#entries.has(e)) return;
          if (e.transmission === 'cyclic') {
            const due = this.#due.get(e) ?? at;
            if (at < due) return;
            // On its own grid, like a cyclic notification; a late poll does not shift the next one.
            const cycle = Math.max(1, e.cycleMs);
            this.#due.set(e, due + cycle * (Math.floor((at - due) / cycle) + 1));
            this.#deliver(e, r.data, now);
            return;
          }
          const before = this.#seen.get(e);
          if (before?.equals(r.data)) return;
          this.#seen.set(e, Buffer.from(r.data));
          this.#deliver(e, r.data, now);
        });
      } catch (err) {
        // A failed poll is retried next period; a lost link is handled by the connection.
        if (session.alive) this.#host.failed('Polling subscriptions', err);
      } finally {
        this.#running = false;
      }
    }
    this.#schedule(this.#period());
  }
}
