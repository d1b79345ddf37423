// MQTT publishing as a whole: for Sparkplug B one edge node session with a device per PLC, for JSON one session
// per PLC (each with its own `$state` will); each PLC's values from a PlcFeed on the shared notification
// subscriptions and its alarms from the alarm feature's transition feed. Never imports fastify.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { AuditTrail } from '../../audit/trail.ts';
import type { Config, MqttConfig } from '../../config/schema.ts';
import type { PlcTarget } from '../../targets/target.ts';
import type { TargetRegistry } from '../../targets/registry.ts';
import type { HealthCheck } from '../health/index.ts';
import type { SharedSubscriptions } from '../notifications/index.ts';
import type { AlarmService } from '../alarms/index.ts';
import type { AlarmPort } from './alarm-port.ts';
import { DeviceCommands } from './device-commands.ts';
import { JsonPublisher } from './json-publisher.ts';
import { MqttLink, redacted, type LinkLog, type LinkOptions, type LinkState } from './link.ts';
import { PlcFeed } from './plc-feed.ts';
import { SessionCounter } from './session-counter.ts';
import { decode } from './sparkplug-codec.ts';
import { SparkplugNode } from './sparkplug-node.ts';

export interface MqttLog extends LinkLog {
  error(fields: Record<string, unknown>, message: string): void;
}

export interface MqttDeps {
  readonly log: MqttLog;
  readonly now: () => number;
  /** The shared notification subscriptions of a PLC. */
  readonly shared: (target: PlcTarget) => SharedSubscriptions;
  readonly alarms: AlarmService | undefined;
  /** Where DCMD writes are audited. */
  readonly audit: Pick<AuditTrail, 'record'>;
  /** Where relative file settings (CaFile, StateFile) resolve. */
  readonly contentRoot: string;
}

export interface MqttSessionStatus {
  clientId: string;
  /** JSON mode: the PLC the session publishes. */
  plcId?: string;
  state: LinkState;
  since: string;
  lastError?: string;
}

export interface MqttStatus {
  mode: MqttConfig['Mode'];
  url: string;
  sessions: MqttSessionStatus[];
  devices: Array<{ plcId: string; online: boolean; metrics: number }>;
  messages: number;
  bytes: number;
  buffered: number;
  dropped: number;
}

/** Most symbols one PLC publishes (a bound on the subscriptions and the birth message). */
export const maxSymbolsPerPlc = 10_000;

interface Publisher {
  readonly link: MqttLink;
  readonly plcId?: string;
  readonly buffered: () => number;
  readonly dropped: () => number;
}

export class MqttService {
  readonly #settings: MqttConfig;
  readonly #deps: MqttDeps;
  readonly #feeds: PlcFeed[] = [];
  readonly #publishers: Publisher[] = [];
  #node: SparkplugNode | undefined;

  constructor(config: Config, registry: TargetRegistry, deps: MqttDeps) {
    const settings = config.settings.Mqtt;
    this.#settings = settings;
    this.#deps = deps;
    const targets = new Map(registry.list().map((t) => [t.id, t] as const));
    for (const plcId of Object.keys(settings.Targets)) {
      if (!targets.has(plcId))
        throw new Error(`Mqtt.Targets.${plcId}: no PLC target '${plcId}' is configured.`);
    }
    const tls = this.#tls();
    const base = {
      url: settings.Url,
      username: settings.Username,
      password: settings.Password,
      ...tls,
      keepAliveSeconds: settings.KeepAliveSeconds,
      reconnectMs: settings.ReconnectMs,
    };
    const feedOptions = (plcId: string) => ({
      entries: settings.Targets[plcId]?.Symbols ?? [],
      birthTimeoutMs: settings.BirthTimeoutMs,
      maxSymbols: maxSymbolsPerPlc,
      now: deps.now,
      log: deps.log,
    });
    if (settings.Mode === 'SparkplugB') {
      const commands = new DeviceCommands(settings, deps.audit, deps.log);
      const node = new SparkplugNode(
        {
          groupId: settings.GroupId,
          edgeNodeId: settings.EdgeNodeId,
          bufferSize: settings.BufferSize,
          now: deps.now,
          log: deps.log,
          command: (plcId, writes) => {
            const target = targets.get(plcId);
            if (target) commands.submit(target, writes);
          },
        },
        new SessionCounter(resolve(deps.contentRoot, settings.StateFile)),
      );
      this.#node = node;
      const options: LinkOptions = {
        ...base,
        clientId: settings.ClientId,
        will: () => node.nextWill(),
        subscriptions: node.subscriptions(),
      };
      const link = new MqttLink(
        options,
        {
          online: () => node.online(),
          offline: () => node.offline(),
          message: (topic, payload) => node.message(topic, payload, decode),
        },
        deps.log,
      );
      node.attach(link);
      this.#publishers.push({ link, buffered: () => node.buffer.size, dropped: () => node.buffer.dropped });
      for (const [plcId, own] of Object.entries(settings.Targets)) {
        const target = targets.get(plcId) as PlcTarget;
        const sink = node.device(plcId, own.Alarms ? this.#alarmsOf(plcId) : undefined);
        this.#feeds.push(new PlcFeed(target, deps.shared(target), sink, feedOptions(plcId)));
      }
      return;
    }
    for (const [plcId, own] of Object.entries(settings.Targets)) {
      const target = targets.get(plcId) as PlcTarget;
      const renderer = deps.alarms?.renderer([]);
      const publisher = new JsonPublisher({
        prefix: settings.TopicPrefix,
        plcId,
        bufferSize: settings.BufferSize,
        log: deps.log,
        renderAlarm: (reading, ended) =>
          (renderer as NonNullable<typeof renderer>).render(plcId, reading, ended ? 'cleared' : undefined),
      });
      const link = new MqttLink(
        {
          ...base,
          clientId: `${settings.ClientId}-${plcId}`,
          will: () => publisher.will(),
          subscriptions: [],
        },
        { online: () => publisher.online(), offline: () => publisher.offline(), message: () => undefined },
        deps.log,
      );
      publisher.attach(link);
      this.#publishers.push({
        link,
        plcId,
        buffered: () => publisher.buffer.size,
        dropped: () => publisher.buffer.dropped,
      });
      const sink = publisher.sink(own.Alarms ? this.#alarmsOf(plcId) : undefined);
      this.#feeds.push(new PlcFeed(target, deps.shared(target), sink, feedOptions(plcId)));
    }
  }

  start(): void {
    for (const p of this.#publishers) p.link.start();
    for (const f of this.#feeds) f.start();
  }

  async stop(): Promise<void> {
    await Promise.all(this.#feeds.map((f) => f.stop()));
    const node = this.#node;
    await Promise.all(this.#publishers.map((p) => p.link.stop(node?.death())));
  }

  messages(): number {
    return this.#publishers.reduce((n, p) => n + p.link.messages, 0);
  }

  bytes(): number {
    return this.#publishers.reduce((n, p) => n + p.link.bytes, 0);
  }

  buffered(): number {
    return this.#publishers.reduce((n, p) => n + p.buffered(), 0);
  }

  dropped(): number {
    return this.#publishers.reduce((n, p) => n + p.dropped(), 0);
  }

  connected(): boolean {
    return this.#publishers.every((p) => p.link.connected);
  }

  status(): MqttStatus {
    const sessions = this.#publishers.map(({ link, plcId }) => ({
      clientId: link.clientId,
      ...(plcId === undefined ? {} : { plcId }),
      state: link.state,
      since: link.since.toISOString(),
      ...(link.lastError === undefined ? {} : { lastError: link.lastError }),
    }));
    return {
      mode: this.#settings.Mode,
      url: redacted(this.#settings.Url),
      sessions,
      devices: this.#feeds.map((f) => ({ plcId: f.plcId, online: f.born, metrics: f.metrics().length })),
      messages: this.messages(),
      bytes: this.bytes(),
      buffered: this.buffered(),
      dropped: this.dropped(),
    };
  }

  /** `mqtt`: Healthy while every session is connected, Degraded otherwise (changes are buffered meanwhile). */
  check(): HealthCheck {
    const s = this.status();
    const down = s.sessions.filter((x) => x.state !== 'Connected');
    const status = down.length === 0 ? 'Healthy' : 'Degraded';
    const description =
      down.length === 0
        ? `Connected to ${s.url} (${s.mode}).`
        : `${down.length} of ${s.sessions.length} MQTT sessions not connected to ${s.url}; changes are buffered.`;
    const data: Record<string, unknown> = { broker: s.url, buffered: s.buffered, dropped: s.dropped };
    for (const x of s.sessions) {
      data[x.clientId] = x.state;
      if (x.lastError !== undefined) data[`${x.clientId}.lastError`] = x.lastError;
    }
    return { name: 'mqtt', status, description, data };
  }

  #alarmsOf(plcId: string): AlarmPort | undefined {
    const alarms = this.#deps.alarms;
    if (alarms === undefined || !alarms.isMonitored(plcId)) {
      this.#deps.log.warn(
        { plcId },
        'Mqtt.Targets.<plcId>.Alarms is set but the PLC has no alarm monitoring',
      );
      return undefined;
    }
    return alarms.monitor(plcId);
  }

  #tls(): Pick<LinkOptions, 'ca' | 'cert' | 'key'> {
    const s = this.#settings;
    const read = (file: string | undefined): Buffer | undefined =>
      file === undefined ? undefined : readFileSync(resolve(this.#deps.contentRoot, file));
    return { ca: read(s.CaFile), cert: read(s.CertFile), key: read(s.KeyFile) };
  }
}
