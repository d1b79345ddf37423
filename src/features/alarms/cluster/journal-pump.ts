// The alarm journals' traffic of one replica. Appends: those of every PLC whose lease it holds go to Redis in one
// script run per round, and rounds fall on a grid shared by every replica, every `roundMs` of Redis's clock. One
// round is in flight at a time, so a PLC's appends reach Redis in order without a chain of their own.
// Follows: the append script publishes the entries it added, all its PLCs' in one message on one channel, so a
// follower learns of them when Redis pushes them, without asking. What costs a replica here is being woken and
// handling messages (far more than the bytes): Redis pushes one message per holder and round to every replica, so
// the leases gather on one holder (see LeaseRounds), and where they are split (the senior cannot reach some PLC),
// the shared grid brings the holders' appends to Redis together, so a replica is still woken about twice a round
// (its timer, then its answer with everyone's pushes). A replica whose clock estimate is off only wakes more often.
// Pub/sub is at most once, so the stream stays the record: a follower reads it after every (re)subscription,
// where a push does not follow on from what it holds (see FollowedStream.pushed), and every `checkMs`.
import { decodeAlarmPush } from './alarm-push.ts';
import { alarmPushChannel, appendTransitions } from './alarm-scripts.ts';
import { sharedEntry, type SharedEntry } from './journal-mirror.ts';
import type { ClusterLog, RedisLink, ScriptAnswer, ScriptCall } from '../../../cluster/redis-link.ts';

export interface FollowedStream {
  /** The journal's key, which its pushed entries are published under. */
  readonly key: string;
  /** The id after which to read (the newest entry held). */
  cursor(): string;
  /** Entries read from the stream after the cursor (possibly some already taken: reads and pushes overlap). */
  take(entries: SharedEntry[]): Promise<void>;
  /** Entries Redis pushed as they were appended; the stream decides whether they follow on from what it holds. */
  pushed(entries: SharedEntry[]): Promise<void>;
}

/** One PLC's pending append (its part of the round's script run), built when its round goes out. */
export interface PendingAppend extends ScriptCall {
  /** Its part's answer, `[newest seq, epoch, Redis ms]`, or its error; called in round order. */
  settle(answer: ScriptAnswer): Promise<void>;
}

export interface Appender {
  /** What to append now, or undefined when there is nothing (any more). */
  nextAppend(): PendingAppend | undefined;
}

/**
 * The grid of rounds: the most a transition waits to reach Redis, which pushes it to every replica at once. Each
 * round wakes every replica, whether it carries one transition or twenty, so this is what a cluster trades between
 * latency and CPU. 50 ms keeps a transition's p99 well inside the 100 ms a cluster may add to one process's (on the
 * bench, p99 148–155 ms against 105 ms, the same as with 40 ms rounds; 80 ms rounds measured 195–237 ms).
 */
const roundMs = 50;
/**
 * How often every followed stream is read, in case a push was lost without the subscription dropping; the
 * estimate of Redis's clock is renewed with it.
 */
const checkMs = 1000;
const batch = 1000;
const pushChannel = Buffer.from(alarmPushChannel);

export class JournalPump {
  readonly #link: RedisLink;
  readonly #log: ClusterLog;
  readonly #streams = new Map<string, FollowedStream>();
  readonly #due = new Set<Appender>();
  /** The next round's timer. */
  #timer: NodeJS.Timeout | undefined;
  #round: Promise<void> | undefined;
  /** Redis's clock minus this replica's (ms): where the shared grid lies. */
  #clockOffsetMs = 0;
  #check: NodeJS.Timeout | undefined;
  readonly #reads = new Set<Promise<void>>();
  #stopped = false;
  readonly #onMessage = (channel: Buffer, message: Buffer): void => this.#push(channel, message);
  readonly #onReady = (): void => this.#subscribe([...this.#streams.values()]);

  constructor(link: RedisLink, log: ClusterLog) {
    this.#link = link;
    this.#log = log;
    link.subscriber.on('messageBuffer', this.#onMessage);
    // Every (re)connection of the subscriber: pushes sent while it was away are lost, the stream has them.
    link.subscriber.on('ready', this.#onReady);
  }

  follow(stream: FollowedStream): void {
    if (this.#stopped) return;
    this.#streams.set(stream.key, stream);
    if (this.#link.subscriber.status === 'ready') this.#subscribe([stream]);
    if (this.#check === undefined) {
      this.#check = setInterval(() => {
        this.#read([...this.#streams.values()]);
        void this.#syncClock();
      }, checkMs);
      this.#check.unref();
      void this.#syncClock();
    }
  }

  /** `appender` has something to append: it is asked for it in the next round. */
  request(appender: Appender): void {
    this.#due.add(appender);
    this.#wake();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    clearInterval(this.#check);
    this.#link.subscriber.off('messageBuffer', this.#onMessage);
    this.#link.subscriber.off('ready', this.#onReady);
    await this.#round;
    await Promise.all(this.#reads);
  }

  /** Sets the timer of the next round on the grid, unless one is set or in flight (it sets one when done). */
  #wake(): void {
    if (this.#stopped || this.#round !== undefined || this.#timer !== undefined) return;
    const redisNow = Date.now() + this.#clockOffsetMs;
    this.#timer = setTimeout(() => this.#start(), roundMs - (redisNow % roundMs));
  }

  #start(): void {
    this.#timer = undefined;
    this.#round = this.#append().finally(() => {
      this.#round = undefined;
      if (this.#due.size > 0) this.#wake();
    });
  }

  async #append(): Promise<void> {
    const appends = [...this.#due].map((a) => a.nextAppend()).filter((a) => a !== undefined);
    this.#due.clear();
    if (appends.length === 0) return;
    const call = { keys: appends.flatMap((a) => a.keys), args: [alarmPushChannel, appends.length] };
    for (const append of appends) call.args.push(...append.args);
    let answers: ScriptAnswer[];
    try {
      const [[err, reply] = [new Error('no answer from Redis'), undefined]] = await this.#link.evalMany(
        'alarm-append',
        appendTransitions,
        [call],
      );
      if (err !== null) throw err;
      answers = partAnswers(reply, appends.length);
    } catch (err) {
      answers = appends.map(() => [err as Error, undefined]);
    }
    for (const [i, append] of appends.entries()) await append.settle(answers[i] as ScriptAnswer);
  }

  /** Estimates Redis's clock from TIME, as of the middle of the round trip. */
  async #syncClock(): Promise<void> {
    if (!this.#link.reachable) return;
    const sent = Date.now();
    const time = await this.#link.run('clock', (r) => r.time()).catch(() => undefined);
    if (time === undefined) return;
    const [seconds, micros] = time.map(Number) as [number, number];
    this.#clockOffsetMs = seconds * 1000 + micros / 1000 - (sent + Date.now()) / 2;
  }

  #subscribe(streams: readonly FollowedStream[]): void {
    if (streams.length === 0) return;
    // Read once the subscription holds, so nothing appended in between is missed (subscribing again is harmless).
    this.#link.subscriber.subscribe(alarmPushChannel).then(
      () => this.#read(streams),
      // The subscriber's next 'ready' subscribes again.
      (err: unknown) => this.#log.warn({ err: (err as Error).message }, 'alarm journal subscribe failed'),
    );
  }

  #push(channel: Buffer, message: Buffer): void {
    if (this.#stopped || !channel.equals(pushChannel)) return;
    const pushed = decodeAlarmPush(message);
    if (pushed === undefined) {
      // Not the append script's: the periodic read of the streams finds whatever was appended.
      this.#log.warn(
        { channel: alarmPushChannel },
        "alarm journal push ignored: not the append script's frames",
      );
      return;
    }
    for (const [key, entries] of pushed) void this.#streams.get(key)?.pushed(entries);
  }

  /** Reads every entry after the streams' cursors and hands them over. */
  #read(streams: readonly FollowedStream[]): void {
    if (this.#stopped || streams.length === 0 || !this.#link.reachable) return;
    const read = readAfter(this.#link, streams)
      .catch((err: unknown) => {
        if (this.#link.reachable)
          this.#log.warn({ err: (err as Error).message }, 'alarm journal read failed');
      })
      .finally(() => this.#reads.delete(read));
    this.#reads.add(read);
  }
}

/** The round's answer per part: `[newest seq, epoch, Redis ms]`, or the error its script part returned. */
function partAnswers(reply: unknown, parts: number): ScriptAnswer[] {
  const results = reply as Array<[number, string, string?]>;
  const redisMs = results[parts] as unknown as number;
  return Array.from({ length: parts }, (_, i): ScriptAnswer => {
    const [ok, newest, epoch] = results[i] ?? [0, 'no answer for this PLC from Redis'];
    return ok === 1 ? [null, [newest, epoch, redisMs]] : [new Error(newest), undefined];
  });
}

/** Reads the streams after their cursors until nothing is left, handing each its entries in order. */
async function readAfter(link: RedisLink, streams: readonly FollowedStream[]): Promise<void> {
  for (;;) {
    const answer = await link.run('alarm-follow', (r) =>
      r.xread('COUNT', batch, 'STREAMS', ...streams.map((s) => s.key), ...streams.map((s) => s.cursor())),
    );
    let full = false;
    for (const [key, entries] of answer ?? []) {
      full ||= entries.length === batch;
      await streams.find((s) => s.key === key)?.take(entries.map(sharedEntry));
    }
    if (!full) return;
  }
}

/** The stream's entries after `cursor`, all of them (the stream is bounded by its journal length). */
export async function readStream(link: RedisLink, key: string, cursor: string): Promise<SharedEntry[]> {
  const answer = await link.run('alarm-follow', (r) => r.xread('STREAMS', key, cursor));
  return (answer?.[0]?.[1] ?? []).map(sharedEntry);
}
