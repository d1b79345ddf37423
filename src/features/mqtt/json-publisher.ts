// JSON mode for one PLC (a unified namespace): retained `<prefix>/<plcId>/<path with dots as slashes>` topics
// carrying `{ value, type, timestamp }`, the PLC's outstanding alarms retained on `<prefix>/<plcId>/alarms/<key>`
// (cleared when they end), and a retained `<prefix>/<plcId>/$state`, online or offline, whose offline is also
// the will of the PLC's own MQTT session. Changes of a broker outage follow, in order and with their own
// timestamps, when the broker is back.
import type { PlcValue } from '../../targets/target.ts';
import type { Alarm } from '../alarms/index.ts';
import type { AlarmReading } from '../alarms/index.ts';
import { ChangeBuffer } from './change-buffer.ts';
import type { AlarmPort } from './alarm-port.ts';
import type { MqttLink, WillMessage } from './link.ts';
import type { FeedMetric, FeedSink } from './plc-feed.ts';

interface Pending {
  readonly topic: string;
  /** Empty: clears a retained topic (an alarm that ended). */
  readonly payload: string;
}

export interface JsonLog {
  warn(fields: Record<string, unknown>, message: string): void;
}

export interface JsonOptions {
  readonly prefix: string;
  readonly plcId: string;
  readonly bufferSize: number;
  readonly log: JsonLog;
  /** The alarm resource of a reading, as the alarm routes render it. */
  readonly renderAlarm: (reading: AlarmReading, ended: boolean) => Alarm;
}

/** `MAIN.aValues[3]` -> `MAIN/aValues[3]`. */
export function symbolTopicPath(path: string): string {
  return path.replaceAll('.', '/');
}

export class JsonPublisher {
  readonly #options: JsonOptions;
  readonly buffer: ChangeBuffer<Pending>;
  #link: MqttLink | undefined;
  #plcOnline = false;
  #linkOnline = false;
  #alarms: AlarmPort | undefined;

  constructor(options: JsonOptions) {
    this.#options = options;
    this.buffer = new ChangeBuffer(options.bufferSize);
  }

  get stateTopic(): string {
    return `${this.#base()}/$state`;
  }

  attach(link: MqttLink): void {
    this.#link = link;
  }

  will(): WillMessage {
    return { topic: this.stateTopic, payload: Buffer.from('offline'), qos: 1, retain: true };
  }

  /** The feed sink of the PLC; `alarms` when its alarms are published. */
  sink(alarms: AlarmPort | undefined): FeedSink {
    this.#alarms = alarms;
    alarms?.onTransitions((entries) => {
      if (!this.#plcOnline) return;
      for (const e of entries) this.#alarm(e.reading, e.kind === 'ended');
    });
    return {
      online: (metrics) => {
        this.#plcOnline = true;
        for (const m of metrics) if (m.value !== undefined) this.#value(m, m.value, m.timestamp);
        for (const r of this.#alarms?.outstanding() ?? []) this.#alarm(r, false);
        this.#put(this.stateTopic, 'online');
      },
      changes: (changes) => {
        for (const c of changes) this.#value(c.metric, c.value, c.timestamp);
      },
      offline: () => {
        this.#plcOnline = false;
        this.#put(this.stateTopic, 'offline');
      },
    };
  }

  /** Another replica publishes the PLC now (cluster mode): what is held here is not sent. */
  abandon(): void {
    this.#plcOnline = false;
    this.buffer.drain();
  }

  /** The session is up: the state it left, then the outage's changes in order. */
  online(): void {
    this.#linkOnline = true;
    this.#flush();
    // The will may have said offline while the PLC stayed reachable.
    if (this.#plcOnline) this.#put(this.stateTopic, 'online');
  }

  offline(): void {
    this.#linkOnline = false;
  }

  #base(): string {
    return `${this.#options.prefix}/${this.#options.plcId}`;
  }

  #value(m: FeedMetric, value: PlcValue, timestamp: number): void {
    const payload = JSON.stringify({ value, type: m.typeName, timestamp: new Date(timestamp).toISOString() });
    this.#put(`${this.#base()}/${symbolTopicPath(m.path)}`, payload);
  }

  #alarm(reading: AlarmReading, ended: boolean): void {
    const topic = `${this.#base()}/alarms/${reading.key}`;
    this.#put(topic, ended ? '' : JSON.stringify(this.#options.renderAlarm(reading, ended)));
  }

  #put(topic: string, payload: string): void {
    const p = { topic, payload };
    if (this.#linkOnline && this.buffer.size > 0) this.#flush();
    if (!this.#linkOnline || this.buffer.size > 0 || !this.#publish(p)) this.#hold(p);
  }

  /** Sends what is held, in order; what the socket does not take stays held, still in order. */
  #flush(): void {
    const held = this.buffer.drain();
    let i = 0;
    while (i < held.length && this.#publish(held[i] as Pending)) i += 1;
    for (; i < held.length; i++) this.#hold(held[i] as Pending);
  }

  #publish(p: Pending): boolean {
    return this.#link?.publish(p.topic, Buffer.from(p.payload), 1, true) ?? false;
  }

  #hold(p: Pending): void {
    if (this.buffer.push(p) && this.buffer.dropped % 10_000 === 1) {
      this.#options.log.warn(
        { plcId: this.#options.plcId, dropped: this.buffer.dropped },
        'MQTT buffer full: the oldest buffered changes are dropped',
      );
    }
  }
}
