// The alarm journals' traffic of one replica: the appends of every PLC whose lease it holds and the reads of every
// journal it follows. While the plant is busy they go to Redis together, one pipeline (appends, then a plain XREAD
// after each stream's newest entry held) at most every `coalesceMs`; once a round has nothing to send and reads
// nothing, a blocking XREAD on a connection of its own waits for the next append anywhere. Each round trip wakes
// the replica, and on a busy plant those wake-ups are most of what following the journal costs: paired, a busy
// replica makes one round trip per `coalesceMs` where separate appends and reads made two, each after a timer. A
// round that is due goes out with the next wake-up the replica has anyway (its own PLCs' transitions arriving to
// be appended), and only `slackMs` later on a timer of its own, so a busy holder rarely wakes just to send.
// One round is in flight at a time, so a PLC's appends reach Redis in order without a chain of their own.
import { once } from 'node:events';
import { performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import { appendTransitions } from './alarm-scripts.ts';
import type { StreamEntry } from './journal-mirror.ts';
import type { ClusterLog, RedisLink, ScriptAnswer, ScriptCall } from './redis-link.ts';

export interface FollowedStream {
  readonly key: string;
  /** The id after which to read (the newest entry held), read before every XREAD. */
  cursor(): string;
  /** New entries (possibly some already taken: two reads may overlap); the next read waits for the promise. */
  take(entries: StreamEntry[]): Promise<void>;
}

/** One PLC's pending append, built when its round goes out. */
export interface PendingAppend extends ScriptCall {
  /** The script's answer (or its error); called in round order. */
  settle(answer: ScriptAnswer): Promise<void>;
}

export interface Appender {
  /** What to append now, or undefined when there is nothing (any more). */
  nextAppend(): PendingAppend | undefined;
}

/**
 * The shortest time between two rounds: the most a transition waits to be appended, and then to be read by the
 * other replicas. Every round costs each replica a wake-up and Redis a round trip, whether it carries one
 * transition or twenty; 2 x (25 + 10) ms leaves room within the 100 ms a cluster may add to one process's latency.
 */
export const coalesceMs = 25;
/** How long a due round waits for a wake-up of the replica's own before a timer wakes it. */
export const slackMs = 10;
/** How long one blocking XREAD waits before it is sent again (streams added meanwhile join then). */
const blockMs = 2000;
const batch = 1000;
const retryMs = 500;

type XreadAnswer = Array<[key: string, entries: StreamEntry[]]> | null;

const keys = (streams: readonly FollowedStream[]): string[] => streams.map((s) => s.key);
const cursors = (streams: readonly FollowedStream[]): string[] => streams.map((s) => s.cursor());

export class JournalPump {
  readonly #link: RedisLink;
  readonly #log: ClusterLog;
  readonly #streams: FollowedStream[] = [];
  readonly #due = new Set<Appender>();
  /** Rounds go on while they find something to send or read. */
  #busy = false;
  /** The round's timer, set while it is not due yet. */
  #timer: NodeJS.Timeout | undefined;
  /** The round about to go out in this wake-up. */
  #immediate: NodeJS.Immediate | undefined;
  #round: Promise<void> | undefined;
  #nextRoundAt = -Infinity;
  /** Resumes the blocking reader once rounds stop. */
  #resumeReader: (() => void) | undefined;
  #blocking: Redis | undefined;
  #reader: Promise<void> | undefined;
  readonly #stopping = new AbortController();
  #stopped = false;

  constructor(link: RedisLink, log: ClusterLog) {
    this.#link = link;
    this.#log = log;
  }

  follow(stream: FollowedStream): void {
    this.#streams.push(stream);
    if (!this.#stopped) this.#reader ??= this.#read();
  }

  /** `appender` has something to append: it is asked for it in the next round. */
  request(appender: Appender): void {
    this.#due.add(appender);
    this.#wake();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#stopping.abort();
    clearTimeout(this.#timer);
    clearImmediate(this.#immediate);
    this.#resumeReader?.();
    this.#blocking?.disconnect();
    await this.#round;
    await this.#reader;
  }

  /** Called in a wake-up the replica has anyway: requests, answers. */
  #wake(): void {
    if (this.#stopped) return;
    this.#busy = true;
    if (this.#round !== undefined || this.#immediate !== undefined) return;
    const wait = this.#nextRoundAt - performance.now();
    if (wait > 0) {
      this.#timer ??= setTimeout(() => this.#start(), wait + slackMs);
      return;
    }
    // Due: the round goes out in this wake-up of the event loop, with every request made in it.
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#immediate = setImmediate(() => this.#start());
  }

  #start(): void {
    this.#timer = undefined;
    this.#immediate = undefined;
    this.#round = this.#pump().finally(() => {
      this.#round = undefined;
      if (this.#busy) this.#wake();
      else this.#resumeReader?.();
    });
  }

  async #pump(): Promise<void> {
    this.#nextRoundAt = performance.now() + coalesceMs;
    const appends = [...this.#due].map((a) => a.nextAppend()).filter((a) => a !== undefined);
    this.#due.clear();
    const streams = [...this.#streams];
    let answers: ScriptAnswer[];
    try {
      answers = await this.#link.evalMany('alarm-append', appendTransitions, appends, (pipeline) =>
        streams.length > 0
          ? pipeline.xread('COUNT', batch, 'STREAMS', ...keys(streams), ...cursors(streams))
          : pipeline,
      );
    } catch (err) {
      answers = appends.map(() => [err as Error, undefined]);
    }
    for (const [i, append] of appends.entries())
      await append.settle(answers[i] ?? [new Error('no answer from Redis'), undefined]);
    const [readErr, read] = answers[appends.length] ?? [null, null];
    if (readErr !== null) {
      // The blocking reader takes over; it waits for the connection when Redis is away (the link says so).
      if (this.#link.reachable) this.#log.warn({ err: readErr.message }, 'alarm journal read failed');
      this.#nextRoundAt = performance.now() + retryMs;
      this.#busy = this.#due.size > 0;
      return;
    }
    const taken = await deliver(streams, read as XreadAnswer);
    this.#busy = appends.length > 0 || taken > 0 || this.#due.size > 0;
  }

  /** Between busy spells: one blocking XREAD at a time, which ends a quiet spell at the first append anywhere. */
  async #read(): Promise<void> {
    const connection = this.#link.blockingConnection(blockMs);
    this.#blocking = connection;
    await connection.connect().catch(() => undefined);
    while (!this.#stopped) {
      if (this.#busy) {
        await new Promise<void>((resolve) => (this.#resumeReader = resolve));
        this.#resumeReader = undefined;
        continue;
      }
      if (connection.status !== 'ready') {
        // A failed reconnection emits 'error', which rejects `once`: the loop waits again. A connection
        // disconnected between two attempts never ends: stopping aborts the wait.
        const signal = this.#stopping.signal;
        await Promise.race([
          once(connection, 'ready', { signal }),
          once(connection, 'end', { signal }),
        ]).catch(() => undefined);
        continue;
      }
      const streams = [...this.#streams];
      try {
        const answer = await this.#link.run('alarm-follow', () =>
          connection.xread(
            'COUNT',
            batch,
            'BLOCK',
            blockMs,
            'STREAMS',
            ...keys(streams),
            ...cursors(streams),
          ),
        );
        if ((await deliver(streams, answer)) > 0) this.#wake();
      } catch (err) {
        if (this.#stopped) break;
        // The connection reports its own loss; the loop waits for it to be ready again.
        if (connection.status === 'ready') {
          this.#log.warn({ err: (err as Error).message }, 'alarm journal blocking read failed');
          await delay(retryMs);
        }
      }
    }
  }
}

/** Hands each stream its entries, in order; answers how many there were. */
async function deliver(streams: readonly FollowedStream[], answer: XreadAnswer): Promise<number> {
  let count = 0;
  for (const [key, entries] of answer ?? []) {
    count += entries.length;
    await streams.find((s) => s.key === key)?.take(entries);
  }
  return count;
}
