// Re-registration of a connection's ADS notifications together, so the PLC checks them in one phase and sends
// one frame per task cycle instead of one on almost every cycle (see schedule).
import { isRefusal } from './notification-capacity.ts';
import type { Session } from './link-session.ts';
import type { AdsLinkSettings } from './settings.ts';
import type { Entry, NotificationHandle } from './subscription-entry.ts';

/** Notifications registered again at once (see NotificationAlignment). */
const alignChunk = 100;

export interface AlignmentDeps {
  readonly settings: AdsLinkSettings;
  /** Every subscribed symbol. */
  entries(): Iterable<Entry>;
  session(): Session | undefined;
  /** Registers a notification for the entry's binding `generation` on the session. */
  subscribe(e: Entry, session: Session, generation: number): Promise<NotificationHandle>;
  failed(what: string, err: unknown): void;
}

export class NotificationAlignment {
  readonly #deps: AlignmentDeps;
  #timer: NodeJS.Timeout | undefined;
  #running = false;
  #last = -Infinity;
  #count = 0;

  constructor(deps: AlignmentDeps) {
    this.#deps = deps;
  }

  /** Rounds of re-registration finished (a notification the PLC refused keeps its old registration). */
  get count(): number {
    return this.#count;
  }

  /** Closing: no round is started any more. */
  cancel(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /**
   * A PLC sends one frame per connection for the notifications due in a task cycle, and checks each on
   * its own grid of cycles, counted (as the simulator does; TwinCAT does not document it) from its
   * registration. Registered one by one as clients come, a connection's notifications fall on many
   * phases: a frame, and a wake-up of the gateway, on almost every task cycle. Registered again together
   * they share one phase, one frame per cycle. alignAfterMs after a new notification (a page's
   * subscriptions come together), at most once per alignEveryMs, on whatever connection is current then.
   */
  schedule(): void {
    if (this.#timer) return;
    const now = this.#deps.settings.now();
    const at = Math.max(
      now + this.#deps.settings.alignAfterMs,
      this.#last + this.#deps.settings.alignEveryMs,
    );
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      const session = this.#deps.session();
      if (session) void this.#align(session);
    }, at - now);
    this.#timer.unref();
  }

  async #align(session: Session): Promise<void> {
    if (!session.alive || this.#running) return;
    const entries = [...this.#deps.entries()].filter(
      (e) => e.mode === 'notify' && e.session === session && e.handle !== undefined,
    );
    if (entries.length < 2) return;
    this.#last = this.#deps.settings.now();
    this.#running = true;
    try {
      // A chunk's requests all leave before any answer is awaited, so the PLC registers them in the same
      // cycle; chunks keep what is in flight within what a PLC's router queues.
      for (let i = 0; i < entries.length; i += alignChunk) {
        await Promise.all(entries.slice(i, i + alignChunk).map((e) => this.#replace(e, session)));
      }
    } finally {
      this.#running = false;
    }
    this.#count++;
  }

  /** Make before break: the new notification delivers beside the old one until it takes over. */
  async #replace(e: Entry, session: Session): Promise<void> {
    const generation = e.generation;
    const old = e.handle;
    if (!old) return;
    e.settling = true;
    let next: NotificationHandle;
    try {
      next = await this.#deps.subscribe(e, session, generation);
    } catch (err) {
      // Out of notification resources with both registered: the old notification stays, unaligned.
      if (session.alive && !isRefusal(err)) this.#deps.failed(`Re-registering ${e.address.path}`, err);
      return;
    }
    if (generation !== e.generation) {
      await next.unsubscribe().catch(() => undefined);
      return;
    }
    e.handle = next;
    await session
      .run('Deleting a notification', () => old.unsubscribe())
      .catch((err) => {
        if (session.alive) this.#deps.failed(`Deleting the notification of ${e.address.path}`, err);
      });
  }
}
