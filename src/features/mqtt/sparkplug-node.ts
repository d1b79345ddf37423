// The gateway as a Sparkplug B 3.0 edge node: NBIRTH with bdSeq and Node Control/Rebirth, NDEATH as the will of
// each session, one device per PLC (DBIRTH with every metric and its alias, DDATA by exception with aliases,
// DDEATH while the PLC is unreachable), seq 0-255 over every message of a session, a rebirth on NCMD, and the
// changes of a broker outage sent as historical DDATA after the births of the new session.
import { encode, type UMetric, type UPayload } from './sparkplug-codec.ts';
import type { PlcValue } from '../../targets/target.ts';
import type { AlarmReading } from '../alarms/index.ts';
import type { AlarmPort } from './alarm-port.ts';
import type { CommandWrite } from './device-commands.ts';
import { ChangeBuffer } from './change-buffer.ts';
import { metricValue, type SparkplugType } from './datatypes.ts';
import type { MqttLink, WillMessage } from './link.ts';
import type { FeedChange, FeedMetric, FeedSink } from './plc-feed.ts';
import type { SessionCounter } from './session-counter.ts';

export const namespace = 'spBv1.0';
export const rebirthMetric = 'Node Control/Rebirth';

/** One metric change as it waits for the broker. */
interface Pending {
  readonly plcId: string;
  readonly name: string;
  readonly type: SparkplugType;
  readonly value: PlcValue;
  readonly timestamp: number;
}

interface MetricLine {
  readonly name: string;
  readonly type: SparkplugType;
  readonly value: PlcValue;
  readonly timestamp: number;
}

export interface NodeLog {
  warn(fields: Record<string, unknown>, message: string): void;
  info(fields: Record<string, unknown>, message: string): void;
}

/** A PLC as a Sparkplug device: its aliases stay the same for the life of the process. */
class Device {
  readonly aliases = new Map<string, number>();
  /** Metric names of its last DBIRTH; a DDATA may only carry these. */
  birth = new Set<string>();
  /** Sent a DBIRTH in the current session. */
  born = false;
  values: readonly FeedMetric[] | undefined;
  alarms: AlarmPort | undefined;

  constructor(readonly plcId: string) {}
}

function alarmLines(r: AlarmReading, timestamp: number): MetricLine[] {
  const base = `Alarms/${r.key}`;
  return [
    { name: `${base}/Active`, type: 'Boolean', value: r.isActive, timestamp },
    { name: `${base}/Acknowledged`, type: 'Boolean', value: r.isAcked || !r.needsAck, timestamp },
    { name: `${base}/Severity`, type: 'Int32', value: r.severity, timestamp },
  ];
}

export interface NodeOptions {
  readonly groupId: string;
  readonly edgeNodeId: string;
  readonly bufferSize: number;
  readonly now: () => number;
  readonly log: NodeLog;
  /** DCMD writes to a device's published metrics (names resolved from aliases). */
  readonly command?: (plcId: string, writes: readonly CommandWrite[]) => void;
}

export class SparkplugNode {
  readonly #options: NodeOptions;
  readonly #counter: SessionCounter;
  readonly #devices = new Map<string, Device>();
  readonly buffer: ChangeBuffer<Pending>;
  #link: MqttLink | undefined;
  #bdSeq = 0;
  #seq = 0;
  /** Changes of the outage are being sent: live ones queue behind them. */
  #live = false;

  constructor(options: NodeOptions, counter: SessionCounter) {
    this.#options = options;
    this.#counter = counter;
    this.buffer = new ChangeBuffer(options.bufferSize);
  }

  get bdSeq(): number {
    return this.#bdSeq;
  }

  get edgeNodeId(): string {
    return this.#options.edgeNodeId;
  }

  topic(type: string, device?: string): string {
    const { groupId, edgeNodeId } = this.#options;
    return `${namespace}/${groupId}/${type}/${edgeNodeId}${device === undefined ? '' : `/${device}`}`;
  }

  /** The topics the node listens on: its NCMD and the DCMD of its devices. */
  subscriptions(): string[] {
    return [this.topic('NCMD'), this.topic('DCMD', '+')];
  }

  attach(link: MqttLink): void {
    this.#link = link;
  }

  /** The will of the next session: NDEATH with that session's (new) bdSeq. */
  nextWill(): WillMessage {
    this.#bdSeq = this.#counter.next();
    return { topic: this.topic('NDEATH'), payload: this.#deathPayload(), qos: 1, retain: false };
  }

  /** The NDEATH of the current session, published before a clean disconnect. */
  death(): WillMessage {
    return { topic: this.topic('NDEATH'), payload: this.#deathPayload(), qos: 1, retain: false };
  }

  #deathPayload(): Buffer {
    return encode({
      timestamp: this.#options.now(),
      metrics: [{ name: 'bdSeq', type: 'UInt64', value: this.#bdSeq }],
    });
  }

  /** The device of `plcId`, and the sink its feed reports to. */
  device(plcId: string, alarms: AlarmPort | undefined): FeedSink {
    const device = new Device(plcId);
    device.alarms = alarms;
    this.#devices.set(plcId, device);
    alarms?.onTransitions((entries) => {
      if (!device.born) return;
      const lines: MetricLine[] = [];
      let unknown = false;
      for (const e of entries) {
        const at = Date.parse(e.at);
        for (const line of alarmLines(e.reading, at)) {
          if (!device.birth.has(line.name)) unknown = true;
          lines.push(line);
        }
      }
      // A new alarm key is a metric the host application has not been born with: the device is born again.
      if (unknown) this.#birthOf(device);
      else this.#data(device, lines);
    });
    return {
      online: (metrics) => {
        device.values = metrics;
        this.#birthOf(device);
      },
      changes: (changes) => this.#data(device, changes.map(lineOf)),
      offline: () => {
        device.values = undefined;
        const was = device.born;
        device.born = false;
        if (was && this.#link?.connected)
          this.#send(this.topic('DDEATH', plcId), { timestamp: this.#options.now() });
      },
    };
  }

  /** A session is up: NBIRTH, every reachable device's DBIRTH, then the outage's changes as history. */
  online(): void {
    this.#seq = 0;
    this.#live = false;
    this.#births();
    this.#forward();
    this.#live = true;
  }

  offline(): void {
    this.#live = false;
    for (const d of this.#devices.values()) d.born = false;
  }

  /** NCMD and DCMD. */
  message(topic: string, payload: Buffer, decode: (payload: Buffer) => UPayload): void {
    const dcmd = this.topic('DCMD', '');
    if (topic !== this.topic('NCMD') && !topic.startsWith(dcmd)) return;
    let command: UPayload;
    try {
      command = decode(payload);
    } catch {
      this.#options.log.warn({ topic }, 'Sparkplug command payload cannot be decoded');
      return;
    }
    if (topic.startsWith(dcmd)) {
      this.#deviceCommand(topic.slice(dcmd.length), command);
      return;
    }
    const rebirth = (command.metrics ?? []).some((m) => m.name === rebirthMetric && m.value === true);
    if (rebirth) {
      this.#options.log.info({ topic }, 'Sparkplug rebirth requested');
      this.#seq = 0;
      this.#births();
    }
  }

  #deviceCommand(plcId: string, command: UPayload): void {
    const device = this.#devices.get(plcId);
    const values = device?.values;
    if (device === undefined || values === undefined) {
      this.#options.log.warn({ plcId }, 'Sparkplug DCMD for a device that is not online');
      return;
    }
    const byAlias = new Map([...device.aliases].map(([name, alias]) => [alias, name] as const));
    const byName = new Map(values.map((m) => [m.path, m] as const));
    const writes: CommandWrite[] = [];
    for (const m of command.metrics ?? []) {
      const name = m.name ?? (m.alias == null ? undefined : byAlias.get(Number(m.alias.toString())));
      const metric = name === undefined ? undefined : byName.get(name);
      if (metric === undefined) {
        this.#options.log.warn(
          { plcId, metric: name ?? m.alias?.toString() },
          'Sparkplug DCMD names no symbol metric',
        );
        continue;
      }
      writes.push({ name: metric.path, type: metric.type, value: m.value, oldValue: metric.value });
    }
    if (writes.length > 0) this.#options.command?.(plcId, writes);
  }

  #births(): void {
    const now = this.#options.now();
    this.#send(
      this.topic('NBIRTH'),
      {
        timestamp: now,
        metrics: [
          { name: 'bdSeq', type: 'UInt64', value: this.#bdSeq, timestamp: now },
          { name: rebirthMetric, type: 'Boolean', value: false, timestamp: now },
        ],
      },
      true,
    );
    for (const d of this.#devices.values()) if (d.values !== undefined) this.#birthOf(d);
  }

  #birthOf(device: Device): void {
    if (device.values === undefined || !this.#link?.connected) return;
    const now = this.#options.now();
    const lines: MetricLine[] = device.values.map((m) => ({
      name: m.path,
      type: m.type,
      value: m.value ?? null,
      timestamp: m.timestamp || now,
    }));
    for (const r of device.alarms?.outstanding() ?? []) lines.push(...alarmLines(r, now));
    device.birth = new Set(lines.map((l) => l.name));
    device.born = true;
    this.#send(this.topic('DBIRTH', device.plcId), {
      timestamp: now,
      metrics: lines.map((l) => this.#metric(device, l, true, false)),
    });
  }

  #data(device: Device, lines: readonly MetricLine[]): void {
    // Changes held back by a backed-up socket go first, so nothing overtakes them.
    if (this.#live && this.buffer.size > 0 && this.#link?.connected) this.#forward();
    if (!this.#live || !device.born || this.buffer.size > 0) {
      for (const l of lines) this.#hold({ plcId: device.plcId, ...l });
      return;
    }
    const metrics = lines
      .filter((l) => device.birth.has(l.name))
      .map((l) => this.#metric(device, l, false, false));
    if (metrics.length === 0) return;
    const sent = this.#send(this.topic('DDATA', device.plcId), { timestamp: this.#options.now(), metrics });
    if (!sent) for (const l of lines) this.#hold({ plcId: device.plcId, ...l });
  }

  #hold(p: Pending): void {
    if (this.buffer.push(p) && this.buffer.dropped % 10_000 === 1) {
      this.#options.log.warn(
        { dropped: this.buffer.dropped, bufferSize: this.#options.bufferSize },
        'MQTT buffer full: the oldest buffered changes are dropped',
      );
    }
  }

  /** The outage's changes, in order, as historical DDATA of the devices born in this session. */
  #forward(): void {
    const held = this.buffer.drain();
    if (held.length === 0) return;
    let skipped = 0;
    const maxPerMessage = 500;
    for (let i = 0; i < held.length;) {
      const first = held[i] as Pending;
      const device = this.#devices.get(first.plcId);
      const run: Pending[] = [];
      while (i < held.length && (held[i] as Pending).plcId === first.plcId && run.length < maxPerMessage) {
        run.push(held[i] as Pending);
        i += 1;
      }
      if (device === undefined || !device.born) {
        skipped += run.length;
        continue;
      }
      const metrics = run
        .filter((p) => device.birth.has(p.name))
        .map((p) => this.#metric(device, p, false, true));
      skipped += run.length - metrics.length;
      if (metrics.length > 0)
        this.#send(this.topic('DDATA', device.plcId), { timestamp: this.#options.now(), metrics });
    }
    this.buffer.dropped += skipped;
    this.#options.log.info({ forwarded: held.length - skipped, skipped }, 'MQTT buffered changes forwarded');
  }

  #metric(device: Device, line: MetricLine, named: boolean, historical: boolean): UMetric {
    let alias = device.aliases.get(line.name);
    if (alias === undefined) {
      alias = device.aliases.size + 1;
      device.aliases.set(line.name, alias);
    }
    const value = metricValue(line.type, line.value);
    return {
      ...(named ? { name: line.name } : {}),
      alias,
      timestamp: line.timestamp,
      type: line.type,
      // Long bits stand for protobuf's Long: the encoder reads their low and high words.
      value,
      ...(value === null ? { isNull: true } : {}),
      ...(historical ? { isHistorical: true } : {}),
    };
  }

  /** Publishes with the next seq (NBIRTH: 0); false when the link did not take it. */
  #send(topic: string, payload: UPayload, birth = false): boolean {
    const link = this.#link;
    if (link === undefined) return false;
    if (birth) this.#seq = 0;
    const seq = this.#seq;
    const ok = link.publish(topic, encode({ ...payload, seq }), 0, false);
    if (ok) this.#seq = (seq + 1) % 256;
    return ok;
  }
}

function lineOf(c: FeedChange): MetricLine {
  return { name: c.metric.path, type: c.metric.type, value: c.value, timestamp: c.timestamp };
}
