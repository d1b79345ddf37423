// The replica's connections to Redis: one for commands, one for pub/sub. Commands fail fast while Redis is away
// (no offline queue, a command timeout), so callers can fail open or closed instead of hanging; the link
// reconnects on its own and reports reachability for health and metrics. A command that times out marks Redis
// hung: until a probe is answered again every command fails at once, so a request that asks Redis several things
// waits one timeout at most, not one per call. Redis is not trusted blindly: the link authenticates (password,
// ACL user), speaks TLS when asked (a CA of its own, a client certificate), and warns at start-up when Redis lets
// anyone in.
import { createHash } from 'node:crypto';
import { Redis, ReplyError } from 'ioredis';
import { Counter, Gauge, type Registry } from 'prom-client';
import { defaultCommandTimeoutMs, redisOptions, type RedisLinkSettings } from './redis-options.ts';
import { RedisUnavailableError } from './redis-unavailable.ts';

/** The structured logger the link writes to (pino's call shape). */
export interface ClusterLog {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

/** A Lua script run by its SHA once Redis knows it. */
export interface LuaScript {
  readonly lua: string;
  readonly sha: string;
}

export function luaScript(lua: string): LuaScript {
  return { lua, sha: createHash('sha1').update(lua).digest('hex') };
}

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

const isTimeout = (err: unknown): boolean => err instanceof Error && err.message === 'Command timed out';

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
  readonly #timeoutMs: number;
  /** A command timed out on a live connection: commands fail at once until a probe is answered. */
  #hung = false;
  #probe: NodeJS.Timeout | undefined;
  #checkedAuthentication = false;
  #loggedRefusal = false;

  constructor(settings: RedisLinkSettings, log: ClusterLog, metrics: Registry) {
    this.#log = log;
    this.#timeoutMs = settings.commandTimeoutMs ?? defaultCommandTimeoutMs;
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
    this.commands.on('ready', () => {
      // A fresh connection answered its ready check: whatever hung is gone.
      this.#stopProbing();
      this.#setReachable(true);
      if (!this.#checkedAuthentication) {
        this.#checkedAuthentication = true;
        void this.#checkAuthentication();
      }
    });
    this.commands.on('close', () => this.#setReachable(false));
    // ioredis also emits every failed reconnect as an error; the state change is what gets logged, and refused
    // credentials once (never the credentials themselves).
    this.commands.on('error', (err: Error) => {
      if (this.#loggedRefusal || !/^(WRONGPASS|NOAUTH|NOPERM)/.test(err.message)) return;
      this.#loggedRefusal = true;
      this.#log.error({ redis: this.#address(), err: err.message }, 'shared Redis refused the credentials');
    });
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

  /**
   * Counts one operation and its failure; rethrows so the caller decides between failing open or closed. While
   * Redis is known to hang it fails at once (RedisUnavailableError 'hung'); a command that times out throws
   * RedisUnavailableError 'timeout'.
   */
  async run<T>(operation: string, fn: (redis: Redis) => Promise<T>): Promise<T> {
    this.#operations.inc({ operation });
    try {
      this.#ensureAnswering();
      return await fn(this.commands);
    } catch (err) {
      this.#errors.inc({ operation });
      throw this.#failed(err);
    }
  }

  #ensureAnswering(): void {
    if (this.#hung)
      throw new RedisUnavailableError(
        'hung',
        'It is not answering: a command timed out and Redis has not answered since.',
      );
    if (this.commands.status !== 'ready')
      throw new RedisUnavailableError('disconnected', 'It is unreachable (not connected).');
  }

  /** The error a caller sees; a timeout marks Redis hung. Errors Redis answered (scripts, NOSCRIPT) pass. */
  #failed(err: unknown): unknown {
    if (!isTimeout(err)) return err;
    this.#markHung();
    return new RedisUnavailableError(
      'timeout',
      `It did not answer within ${this.#timeoutMs} ms (Cluster.CommandTimeoutMs).`,
    );
  }

  #markHung(): void {
    if (this.#hung || this.#closed) return;
    this.#hung = true;
    this.#log.error({ timeoutMs: this.#timeoutMs }, 'shared Redis hangs: a command timed out');
    this.#setReachable(false);
    let probing = false;
    // Probes once per timeout; the first answer ends the outage.
    this.#probe = setInterval(() => {
      if (probing) return;
      probing = true;
      this.commands.ping().then(
        () => {
          probing = false;
          if (!this.#hung) return;
          this.#stopProbing();
          this.#setReachable(true);
        },
        () => {
          probing = false;
        },
      );
    }, this.#timeoutMs);
    this.#probe.unref();
  }

  #stopProbing(): void {
    this.#hung = false;
    clearInterval(this.#probe);
    this.#probe = undefined;
  }

  /** host:port of Redis, for log lines: never the credentials. */
  #address(): string {
    const { host, port } = this.commands.options;
    return `${String(host)}:${String(port)}`;
  }

  /**
   * Warns when Redis lets anyone in: this replica connected without credentials, or Redis's default user needs no
   * password (whoever reaches the port could read and forge audit records, stream listings and alarm journals).
   */
  async #checkAuthentication(): Promise<void> {
    const where = { redis: this.#address() };
    const { password } = this.commands.options;
    if (password === undefined || password === null || password === '') {
      this.#log.warn(
        where,
        'cluster mode on a Redis without authentication: anyone who reaches it can read and forge the ' +
          "replicas' shared state; give Redis a password or ACL user (Cluster.Password, Cluster.Username)",
      );
      return;
    }
    // Authenticated, yet the default user may still be open. NOPERM (a restricted user) or no ACL: not known.
    const answer: unknown = await this.commands.call('ACL', 'GETUSER', 'default').catch(() => undefined);
    if (!Array.isArray(answer)) return;
    const flags: unknown = answer[answer.indexOf('flags') + 1];
    if (Array.isArray(flags) && flags.includes('on') && flags.includes('nopass'))
      this.#log.warn(
        where,
        "Redis's default user needs no password: anyone who reaches it can read and forge the replicas' " +
          'shared state; disable it (ACL SETUSER default off) or give it a password (requirepass)',
      );
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
    try {
      this.#ensureAnswering();
    } catch (err) {
      this.#errors.inc({ operation });
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
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
        (err: unknown) => {
          const failed = this.#failed(err) as Error;
          group.forEach((call) => {
            this.#errors.inc({ operation: call.operation });
            call.reject(failed);
          });
        },
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
    const answers = (await send(calls)).map(([err, value]): ScriptAnswer => [
      err === null ? null : (this.#failed(err) as Error),
      value,
    ]);
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
    this.#stopProbing();
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
