// One MQTT session at a time to the broker, reconnected by hand (not by MQTT.js) so every session gets a fresh
// will: the Sparkplug NDEATH carries the bdSeq of its own session. Publishing never waits: a publish while the
// session is down or its socket is backed up answers false, and the caller keeps the message.
import { connect, type IClientOptions, type MqttClient } from 'mqtt';

export type LinkState = 'Connecting' | 'Connected' | 'Disconnected';

export interface WillMessage {
  readonly topic: string;
  readonly payload: Buffer;
  readonly qos: 0 | 1;
  readonly retain: boolean;
}

export interface LinkOptions {
  readonly url: string;
  readonly clientId: string;
  readonly username?: string | undefined;
  readonly password?: string | undefined;
  readonly ca?: Buffer | undefined;
  readonly cert?: Buffer | undefined;
  readonly key?: Buffer | undefined;
  readonly keepAliveSeconds: number;
  readonly reconnectMs: number;
  /** Asked once per session, right before it connects. */
  readonly will: () => WillMessage;
  /** Topics subscribed at each session start. */
  readonly subscriptions: readonly string[];
}

export interface LinkEvents {
  /** A session is up (subscriptions requested); publish births here. */
  online(): void;
  offline(): void;
  message(topic: string, payload: Buffer): void;
}

export interface LinkLog {
  warn(fields: Record<string, unknown>, message: string): void;
  info(fields: Record<string, unknown>, message: string): void;
}

/** A socket holding more unsent bytes than this is backed up: publishes wait in the caller's buffer instead. */
const maxUnsentBytes = 8 * 1024 * 1024;

export class MqttLink {
  readonly #options: LinkOptions;
  readonly #events: LinkEvents;
  readonly #log: LinkLog;
  #client: MqttClient | undefined;
  #state: LinkState = 'Disconnected';
  #timer: NodeJS.Timeout | undefined;
  #stopped = true;
  #lastError: string | undefined;
  #since = new Date();
  messages = 0;
  bytes = 0;

  constructor(options: LinkOptions, events: LinkEvents, log: LinkLog) {
    this.#options = options;
    this.#events = events;
    this.#log = log;
  }

  get clientId(): string {
    return this.#options.clientId;
  }

  get state(): LinkState {
    return this.#state;
  }

  get connected(): boolean {
    return this.#state === 'Connected';
  }

  /** Why the last session failed, while not connected. */
  get lastError(): string | undefined {
    return this.#state === 'Connected' ? undefined : this.#lastError;
  }

  /** Started and not stopped: the session is wanted (connected, or being connected). */
  get active(): boolean {
    return !this.#stopped;
  }

  /** When the state last changed. */
  get since(): Date {
    return this.#since;
  }

  start(): void {
    if (!this.#stopped) return;
    this.#stopped = false;
    this.#open();
  }

  /** Publishes `last` (when connected) and disconnects cleanly, so the broker does not send the will. */
  async stop(last?: WillMessage): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    const client = this.#client;
    if (client === undefined) return;
    if (last && this.connected) this.publish(last.topic, last.payload, last.qos, last.retain);
    this.#client = undefined;
    this.#setState('Disconnected');
    await client.endAsync(false).catch(() => undefined);
  }

  /** Hands the message to the socket; false when there is no session or its socket is backed up. */
  publish(topic: string, payload: Buffer, qos: 0 | 1, retain: boolean): boolean {
    const client = this.#client;
    if (client === undefined || !this.connected) return false;
    if (client.stream.writableLength > maxUnsentBytes) return false;
    client.publish(topic, payload, { qos, retain }, (err) => {
      if (err) this.#lastError = err.message;
    });
    this.messages += 1;
    this.bytes += payload.length;
    return true;
  }

  #open(): void {
    const o = this.#options;
    const will = o.will();
    const options: IClientOptions = {
      clientId: o.clientId,
      clean: true,
      keepalive: o.keepAliveSeconds,
      reconnectPeriod: 0,
      connectTimeout: Math.max(1000, o.reconnectMs * 5),
      queueQoSZero: false,
      will: { topic: will.topic, payload: will.payload, qos: will.qos, retain: will.retain },
      ...(o.username === undefined ? {} : { username: o.username }),
      ...(o.password === undefined ? {} : { password: o.password }),
      ...(o.ca === undefined ? {} : { ca: o.ca }),
      ...(o.cert === undefined ? {} : { cert: o.cert }),
      ...(o.key === undefined ? {} : { key: o.key }),
    };
    this.#setState('Connecting');
    const client = connect(o.url, options);
    this.#client = client;
    client.on('connect', () => {
      if (this.#client !== client) return;
      this.#setState('Connected');
      this.#log.info({ url: redacted(o.url), clientId: o.clientId }, 'MQTT broker connected');
      if (o.subscriptions.length > 0) client.subscribe([...o.subscriptions], { qos: 0 });
      this.#events.online();
    });
    client.on('message', (topic, payload) => {
      if (this.#client === client) this.#events.message(topic, payload);
    });
    client.on('error', (err) => {
      this.#lastError = err.message;
    });
    client.on('close', () => {
      if (this.#client !== client) return;
      this.#client = undefined;
      client.removeAllListeners('connect');
      client.end(true);
      const was = this.#state;
      this.#setState('Disconnected');
      if (was === 'Connected') {
        this.#log.warn({ url: redacted(o.url), error: this.#lastError }, 'MQTT broker connection lost');
        this.#events.offline();
      }
      if (!this.#stopped) this.#timer = setTimeout(() => this.#open(), o.reconnectMs);
    });
  }

  #setState(state: LinkState): void {
    if (state === this.#state) return;
    this.#state = state;
    this.#since = new Date();
  }
}

/** The URL without any credentials it holds, for logs. */
export function redacted(url: string): string {
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    return u.toString();
  } catch {
    return 'mqtt://(invalid)';
  }
}
