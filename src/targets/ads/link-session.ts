// One established ADS connection: the ads-client instance, its lifetime, and guarded calls on it.
import type { Client } from 'ads-client';
import { AppError } from '../../errors.ts';
import { toAppError } from './ads-errors.ts';

export class Session {
  readonly id: number;
  readonly client: Client;
  readonly plcId: string;
  /** Resolves when the connection ends (lost or closed). */
  readonly ended: Promise<void>;
  readonly #onEnd = new Set<() => void>();
  #resolveEnded: () => void = () => undefined;
  #alive = true;

  constructor(id: number, client: Client, plcId: string) {
    this.id = id;
    this.client = client;
    this.plcId = plcId;
    this.ended = new Promise((resolve) => {
      this.#resolveEnded = resolve;
    });
  }

  get alive(): boolean {
    return this.#alive;
  }

  /** Idempotent: marks the session dead and fails every call still waiting on it. */
  end(): void {
    if (!this.#alive) return;
    this.#alive = false;
    for (const l of [...this.#onEnd]) l();
    this.#onEnd.clear();
    this.#resolveEnded();
  }

  unavailable(): AppError {
    return new AppError('PLC_UNAVAILABLE', `PLC '${this.plcId}' is not connected.`);
  }

  /**
   * Runs ADS calls on this connection. A lost connection fails the call at once with PLC_UNAVAILABLE
   * (instead of waiting for its timeout); ADS failures become catalog errors named after `what`.
   */
  run<T>(what: string, fn: (client: Client) => Promise<T>): Promise<T> {
    if (!this.#alive) return Promise.reject(this.unavailable());
    return new Promise<T>((resolve, reject) => {
      const lost = (): void => reject(this.unavailable());
      this.#onEnd.add(lost);
      let work: Promise<T>;
      try {
        work = fn(this.client);
      } catch (err) {
        work = Promise.reject(err instanceof Error ? err : new Error(String(err)));
      }
      work.then(
        (value) => {
          this.#onEnd.delete(lost);
          resolve(value);
        },
        (err: unknown) => {
          this.#onEnd.delete(lost);
          reject(this.#failure(err, what));
        },
      );
    });
  }

  #failure(err: unknown, what: string): AppError {
    // A client that lost its socket says so by its state, not by a message worth parsing.
    const connected = this.#alive && this.client.connection.connected;
    return connected ? toAppError(err, what, this.plcId) : this.unavailable();
  }
}
