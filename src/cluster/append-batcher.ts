// The journal appends of every PLC whose lease this replica holds, sent together: one pipeline of append scripts
// at most every `coalesceMs` (at once after a quiet spell). A busy plant's PLCs each append at their own moment;
// sent one by one they would cost this replica, Redis and every following replica a wake-up per transition.
// One batch is in flight at a time, so a PLC's appends reach Redis in order without a chain of their own.
import { performance } from 'node:perf_hooks';
import { appendTransitions } from './alarm-scripts.ts';
import { coalesceMs } from './journal-follower.ts';
import type { RedisLink, ScriptAnswer, ScriptCall } from './redis-link.ts';

/** One PLC's pending append, built when its batch goes out. */
export interface PendingAppend extends ScriptCall {
  /** The script's answer (or its error); called in batch order. */
  settle(answer: ScriptAnswer): Promise<void>;
}

export interface Appender {
  /** What to append now, or undefined when there is nothing (any more). */
  nextAppend(): PendingAppend | undefined;
}

export class AppendBatcher {
  readonly #link: RedisLink;
  readonly #due = new Set<Appender>();
  #timer: NodeJS.Timeout | undefined;
  #sending: Promise<void> | undefined;
  #lastSent = -Infinity;

  constructor(link: RedisLink) {
    this.#link = link;
  }

  /** `appender` has something to append: it is asked for it with the next batch. */
  request(appender: Appender): void {
    this.#due.add(appender);
    this.#schedule();
  }

  /** Waits for the batch in flight, if any. */
  async idle(): Promise<void> {
    await this.#sending;
  }

  #schedule(): void {
    if (this.#timer !== undefined || this.#sending !== undefined || this.#due.size === 0) return;
    const wait = Math.max(0, this.#lastSent + coalesceMs - performance.now());
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#sending = this.#send().finally(() => {
        this.#sending = undefined;
        this.#schedule();
      });
    }, wait);
  }

  async #send(): Promise<void> {
    this.#lastSent = performance.now();
    const due = [...this.#due];
    this.#due.clear();
    const appends = due.map((a) => a.nextAppend()).filter((a) => a !== undefined);
    if (appends.length === 0) return;
    let answers: ScriptAnswer[];
    try {
      answers = await this.#link.evalMany('alarm-append', appendTransitions, appends);
    } catch (err) {
      answers = appends.map(() => [err as Error, undefined]);
    }
    for (const [i, append] of appends.entries())
      await append.settle(answers[i] ?? [new Error('no answer from Redis'), undefined]);
  }
}
