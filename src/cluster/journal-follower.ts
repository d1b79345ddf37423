// Follows every monitored PLC's journal stream with one blocking XREAD on a connection of its own (a blocked
// connection can send nothing else), handing each stream's new entries to its reader in order. Reads are at
// least `coalesceMs` apart: with many PLCs appending at their own moments, a read per append would wake every
// replica hundreds of times a second; this way a busy plant's appends arrive in batches, a quiet one's at once.
import { once } from 'node:events';
import { performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import type { ClusterLog, RedisLink } from './redis-link.ts';
import type { StreamEntry } from './journal-mirror.ts';

export interface FollowedStream {
  readonly key: string;
  /** The id after which to read (the newest entry held), read before every XREAD. */
  cursor(): string;
  /** New entries; the next XREAD waits until the promise settles. */
  take(entries: StreamEntry[]): Promise<void>;
}

/** How long one XREAD blocks before it is sent again (streams added meanwhile join then). */
const blockMs = 2000;
const batch = 1000;
const retryMs = 500;
/** The shortest time between two reads: the most a transition waits for its batch. */
export const coalesceMs = 20;

export class JournalFollower {
  readonly #link: RedisLink;
  readonly #log: ClusterLog;
  readonly #streams: FollowedStream[] = [];
  #connection: Redis | undefined;
  #running: Promise<void> | undefined;
  #stopped = false;
  #lastRead = -Infinity;

  constructor(link: RedisLink, log: ClusterLog) {
    this.#link = link;
    this.#log = log;
  }

  follow(stream: FollowedStream): void {
    this.#streams.push(stream);
    if (this.#running === undefined && !this.#stopped) this.#running = this.#loop();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#connection?.disconnect();
    await this.#running;
  }

  async #loop(): Promise<void> {
    const connection = this.#link.blockingConnection(blockMs);
    this.#connection = connection;
    await connection.connect().catch(() => undefined);
    while (!this.#stopped) {
      if (connection.status !== 'ready') {
        // A failed reconnection emits 'error', which rejects `once`: the loop waits again.
        await Promise.race([once(connection, 'ready'), once(connection, 'end')]).catch(() => undefined);
        continue;
      }
      const wait = this.#lastRead + coalesceMs - performance.now();
      if (wait > 0) await delay(wait);
      if (this.#stopped) break;
      this.#lastRead = performance.now();
      const streams = [...this.#streams];
      try {
        const answer = await this.#link.run('alarm-follow', () =>
          connection.xread(
            'COUNT',
            batch,
            'BLOCK',
            blockMs,
            'STREAMS',
            ...streams.map((s) => s.key),
            ...streams.map((s) => s.cursor()),
          ),
        );
        for (const [key, entries] of answer ?? []) {
          await streams.find((s) => s.key === key)?.take(entries);
        }
      } catch (err) {
        if (this.#stopped) break;
        // The connection reports its own loss; the loop waits for it to be ready again.
        if (connection.status === 'ready') {
          this.#log.warn({ err: (err as Error).message }, 'alarm journal follower read failed');
          await delay(retryMs);
        }
      }
    }
  }
}
