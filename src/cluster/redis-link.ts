// The replica's connections to Redis: one for commands, one for pub/sub. Commands fail fast while Redis is away
// (no offline queue, a command timeout), so callers can fail open or closed instead of hanging; the link
// reconnects on its own and reports reachability for health and metrics.
import { createHash } from 'node:crypto';
import { Redis, ReplyError, type RedisOptions } from 'ioredis';
import { Counter, Gauge, type Registry } from 'prom-client';

/** The structured logger the link writes to (pino's call shape). */
export interface ClusterLog {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

export interface RedisLinkSettings {
  readonly url: string;
  readonly password?: string | undefined;
}

/** A Lua script run by its SHA once Redis knows it. */
export interface LuaScript {
  readonly lua: string;
  readonly sha: string;
}

export function luaScript(lua: string): LuaScript {
  return { lua, sha: createHash('sha1').update(lua).digest('hex') };
}

const commandTimeoutMs = 1000;
/** What Redis answered a script with (ioredis types its class loosely). */
const scriptError = ReplyError as ErrorConstructor;

/** One run of a script in a batch: its keys and arguments. */
export interface ScriptCall {
  readonly keys: readonly string[];
  readonly args: readonly (string | number)[];
}

/** One call's outcome in a batch: its error, or null and the script's answer. */
export type ScriptAnswer = [Error | null, unknown];

/** A script call waiting for the end of the tick. */
interface QueuedEval extends ScriptCall {
  readonly operation: string;
  readonly script: LuaScript;
  resolve(value: unknown): void;
  reject(err: Error): void;
}

const isNoScript = (err: Error | null | undefined): boolean => err?.message.startsWith('NOSCRIPT') === true;

export function redisOptions(settings: RedisLinkSettings): RedisOptions {
  return {
    // TLS comes from the rediss:// scheme; a password may be in the URL or given apart (kept out of files).
    ...(settings.password === undefined ? {} : { password: settings.password }),
    enableOfflineQueue: false,
    commandTimeout: commandTimeoutMs,
    maxRetriesPerRequest: 0,
    connectTimeout: 2000,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
    lazyConnect: true,
  };
}

export class RedisLink {
  readonly commands: Redis;
  readonly subscriber: Redis;
  readonly #log: ClusterLog;
  readonly #up: Gauge;
  readonly #errors: Counter;
  readonly #operations: Counter;
  #reachable = false;
  #unreachableSince = Date.now();
  #closed = false;
  readonly #onRestored = new Set<() => void>();
  /** Script calls made this tick, sent together at its end. */
  readonly #queued: QueuedEval[] = [];

  constructor(settings: RedisLinkSettings, log: ClusterLog, metrics: Registry) {
    this.#log = log;
    this.commands = new Redis(settings.url, redisOptions(settings));
    // The subscriber queues its SUBSCRIBE until connected and resubscribes after every reconnect.
    this.subscriber = new Redis(settings.url, { ...redisOptions(settings), enableOfflineQueue: true });
    this.#up = new Gauge({
      name: 'cluster_redis_up',
      help: 'Whether the shared Redis is reachable (1) or not (0).',
      registers: [metrics],
    });
    this.#errors = new Counter({
      name: 'cluster_redis_errors_total',
      help: 'Redis operations that failed, by operation.',
      labelNames: ['operation'],
      registers: [metrics],
    });
    this.#operations = new Counter({
      name: 'cluster_redis_operations_total',
      help: 'Redis operations sent by this replica, by operation.',
      labelNames: ['operation'],
      registers: [metrics],
    });
    this.commands.on('ready', () => this.#setReachable(true));
    this.commands.on('close', () => this.#setReachable(false));
    // ioredis also emits every failed reconnect as an error; the state change is what gets logged.
    this.commands.on('error', () => undefined);
    this.subscriber.on('error', () => undefined);
  }

  get reachable(): boolean {
    return this.#reachable;
  }

  /** When Redis was last found unreachable (Date.now() ms; the start, until first connected). */
  get unreachableSince(): number {
    return this.#unreachableSince;
  }

  /** Connects both clients; resolves once the first attempt has succeeded or failed (it keeps retrying). */
  async connect(): Promise<void> {
    await Promise.all([
      this.commands.connect().catch(() => undefined),
      this.subscriber.connect().catch(() => undefined),
    ]);
  }

  /** Runs `fn` after each reconnect that follows an outage (Redis may have come back empty). */
  onRestored(fn: () => void): () => void {
    this.#onRestored.add(fn);
    return () => void this.#onRestored.delete(fn);
  }

  /** Counts one operation and its failure; rethrows so the caller decides between failing open or closed. */
  async run<T>(operation: string, fn: (redis: Redis) => Promise<T>): Promise<T> {
    this.#operations.inc({ operation });
    try {
      return await fn(this.commands);
    } catch (err) {
      this.#errors.inc({ operation });
      throw err;
    }
  }

  /**
   * EVALSHA, loading the script on first use (and after Redis restarts empty). Calls made in the same tick go out
   * together, one pipeline per script: a lease round makes twenty at once, and each write wakes Redis.
   */
  eval(
    operation: string,
    script: LuaScript,
    keys: readonly string[],
    args: readonly (string | number)[],
  ): Promise<unknown> {
    this.#operations.inc({ operation });
    return new Promise((resolve, reject) => {
      if (this.#queued.push({ operation, script, keys, args, resolve, reject }) === 1)
        queueMicrotask(() => this.#sendQueued());
    });
  }

  /**
   * Runs a script once per call in one pipeline (one write, one read). Answers per call its error or result, in
   * order.
   */
  async evalMany(
    operation: string,
    script: LuaScript,
    calls: readonly ScriptCall[],
  ): Promise<ScriptAnswer[]> {
    return this.run(operation, () => this.#pipelined(script, calls));
  }

  #sendQueued(): void {
    const byScript = new Map<LuaScript, QueuedEval[]>();
    for (const call of this.#queued.splice(0)) {
      const group = byScript.get(call.script);
      if (group === undefined) byScript.set(call.script, [call]);
      else group.push(call);
    }
    for (const [script, group] of byScript)
      this.#pipelined(script, group).then(
        (answers) =>
          group.forEach((call, i) => {
            const [err, value] = answers[i] ?? [new Error('no answer from Redis'), undefined];
            if (err === null) return call.resolve(value);
            this.#errors.inc({ operation: call.operation });
            call.reject(err);
          }),
        (err: unknown) =>
          group.forEach((call) => {
            this.#errors.inc({ operation: call.operation });
            call.reject(err as Error);
          }),
      );
  }

  /**
   * One pipeline of the script's calls, loading the script first when Redis does not know it: a call that failed
   * NOSCRIPT had no effect, so only those are sent again.
   */
  async #pipelined(script: LuaScript, calls: readonly ScriptCall[]): Promise<ScriptAnswer[]> {
    const send = async (some: readonly ScriptCall[]): Promise<ScriptAnswer[]> => {
      // An append round is one call: a pipeline's own bookkeeping would cost more than the call.
      if (some.length === 1 && some[0] !== undefined) return [await this.#evalOne(script, some[0])];
      const pipeline = this.commands.pipeline();
      for (const { keys, args } of some) pipeline.evalsha(script.sha, keys.length, ...keys, ...args);
      return (await pipeline.exec()) ?? [];
    };
    const answers = await send(calls);
    const missing = calls.filter((_, i) => isNoScript(answers[i]?.[0]));
    if (missing.length === 0) return answers;
    await this.commands.script('LOAD', script.lua);
    const again = await send(missing);
    let next = 0;
    return answers.map((answer) => (isNoScript(answer[0]) ? (again[next++] ?? answer) : answer));
  }

  /** One call's answer as a pipeline gives it: the script's error is its answer; a failed connection throws. */
  async #evalOne(script: LuaScript, { keys, args }: ScriptCall): Promise<ScriptAnswer> {
    try {
      return [null, await this.commands.evalsha(script.sha, keys.length, ...keys, ...args)];
    } catch (err) {
      if (err instanceof scriptError) return [err, undefined];
      throw err;
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.commands.disconnect();
    this.subscriber.disconnect();
    await Promise.resolve();
  }

  #setReachable(reachable: boolean): void {
    if (reachable === this.#reachable || this.#closed) return;
    this.#reachable = reachable;
    if (!reachable) this.#unreachableSince = Date.now();
    this.#up.set(reachable ? 1 : 0);
    if (reachable) {
      this.#log.info({}, 'shared Redis reachable');
      for (const fn of [...this.#onRestored]) fn();
    } else {
      this.#log.error({}, 'shared Redis unreachable: limits fail open, Lifecycle is refused');
    }
  }
}
