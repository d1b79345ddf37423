// What the PLC's refusals of new notifications taught about its capacity on the current connection, and when to
// ask it again: a capped, jittered backoff, so a PLC out of notification resources is probed, never hammered.
import { AppError } from '../../errors.ts';
import { AdsErrorCode } from '../../plc/ads/index.ts';
import { adsCodeOf, adsError } from './ads-errors.ts';
import { backoffDelay } from './backoff.ts';

/**
 * The ADS codes with which TwinCAT refuses an AddNotification for lack of resources (rather than for a bad
 * request): 1814 no more notification handles (the per-connection table is full), 1802 out of memory, and the
 * router's 1280 no locked memory, 1281 router memory not resizable and 1282 mailbox full.
 */
export const refusalCodes: ReadonlySet<number> = new Set([
  AdsErrorCode.NoMoreHandles,
  AdsErrorCode.NoMemory,
  AdsErrorCode.RouterNoLockedMemory,
  AdsErrorCode.RouterResizeMemory,
  AdsErrorCode.RouterMailboxFull,
]);

/**
 * A refusal for lack of resources, as an AppError so that it passes a session's error mapping (which turns
 * every other ADS failure into a catalog error and loses its code) and is still told apart.
 */
export class NotificationRefused extends AppError {
  readonly adsCode: number;

  constructor(code: number, what: string) {
    const mapped = adsError(code, what);
    super(mapped.code, mapped.message);
    this.adsCode = code;
  }
}

/** Throws NotificationRefused for a failed AddNotification the PLC refused for lack of resources. */
export function markRefusal(err: unknown, what: string): never {
  const code = adsCodeOf(err);
  if (code !== undefined && refusalCodes.has(code)) throw new NotificationRefused(code, what);
  throw err;
}

/** True when the PLC refused a notification for lack of resources: the symbol is polled instead. */
export function isRefusal(err: unknown): boolean {
  return err instanceof NotificationRefused;
}

export interface CapacitySettings {
  /** Delay before the first retry after a refusal, ms; doubled per refused retry. */
  retryMs: number;
  /** Upper bound of that delay, ms. */
  retryMaxMs: number;
  random: () => number;
  now: () => number;
}

export class NotificationCapacity {
  readonly #settings: CapacitySettings;
  readonly #retry: () => void;
  #ceiling: number | undefined;
  #attempt = 0;
  #timer: NodeJS.Timeout | undefined;
  #retryAt: number | undefined;
  #refusals = 0;

  /** `retry` is called when it is time to ask the PLC for one notification again. */
  constructor(settings: CapacitySettings, retry: () => void) {
    this.#settings = settings;
    this.#retry = retry;
  }

  /** Notifications of ours the PLC held when it last refused one; undefined: no refusal on this connection. */
  get ceiling(): number | undefined {
    return this.#ceiling;
  }

  /** Refusals since the target started. */
  get refusals(): number {
    return this.#refusals;
  }

  /** When the next retry is due (ms since the epoch), if one is planned. */
  get retryAt(): number | undefined {
    return this.#retryAt;
  }

  /** How many notifications may be in use: the budget, or less where the PLC refused earlier. */
  limit(budget: number): number {
    return Math.min(budget, this.#ceiling ?? Infinity);
  }

  /**
   * The PLC refused a notification while `inUse` of ours were registered: it is asked again only when one of
   * ours is released (below the ceiling) or when the retry comes.
   */
  refused(inUse: number): void {
    this.#refusals++;
    this.#ceiling = inUse;
  }

  /** A retry was accepted: the capacity freed, nothing is known about it any more. */
  recovered(): void {
    this.#ceiling = undefined;
    this.#attempt = 0;
    this.cancel();
  }

  /** A retry is planned (if none is yet): after retryMs, doubled for every retry refused in a row. */
  schedule(): void {
    if (this.#timer) return;
    const delay = backoffDelay(
      this.#attempt++,
      { baseMs: this.#settings.retryMs, capMs: this.#settings.retryMaxMs },
      this.#settings.random,
    );
    this.#retryAt = this.#settings.now() + delay;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#retryAt = undefined;
      this.#retry();
    }, delay);
    this.#timer.unref();
  }

  cancel(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#retryAt = undefined;
  }

  /** A new connection: its PLC's capacity is unknown again. */
  reset(): void {
    this.#ceiling = undefined;
    this.#attempt = 0;
    this.cancel();
  }
}
