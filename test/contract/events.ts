// Waits on subscription events: each wait ends with the matching event or fails after a generous bound.
import type { ChangeEvent } from '../../src/targets/target.ts';
import { Signal } from '../helpers/signal.ts';

export class EventLog {
  readonly events: ChangeEvent[] = [];
  readonly errors: Array<{ symbol: string; code: string; message: string }> = [];
  readonly #signal = new Signal();

  readonly onChange = (e: ChangeEvent): void => {
    this.events.push(e);
    this.#notify();
  };

  readonly onError = (e: { symbol: string; code: string; message: string }): void => {
    this.errors.push(e);
    this.#notify();
  };

  /** Resolves with the first event (from `from` on) matching `match`. */
  async next(match: (e: ChangeEvent) => boolean, from = 0, limitMs = 15_000): Promise<ChangeEvent> {
    return this.until(() => this.events.slice(from).find(match), limitMs, 'change event');
  }

  async error(limitMs = 15_000): Promise<{ symbol: string; code: string; message: string }> {
    return this.until(() => this.errors[0], limitMs, 'error event');
  }

  until<T>(probe: () => T | undefined, limitMs: number, what: string): Promise<T> {
    return this.#signal.until(probe, limitMs, () => what);
  }

  #notify(): void {
    this.#signal.notify();
  }
}
