// MQTT publishing as a whole: for Sparkplug B one edge node session with a device per PLC, for JSON one session
// per PLC (each with its own `$state` will); each PLC's values from a PlcFeed on the shared notification
// subscriptions and its alarms from the alarm feature's transition feed. In cluster mode each replica is its own
// Sparkplug edge node (`<EdgeNodeId>-<ReplicaId>`) and publishes the PLCs whose MQTT lease it holds; a JSON session
// is open only on the replica holding its PLC. Never imports fastify.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { AuditTrail } from '../../audit/trail.ts';
import type { Cluster } from '../../cluster/cluster.ts';
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
import { PublishLeases, type LeaseGate } from './cluster/publish-leases.ts';
import { PlcFeed, type FeedSink } from './plc-feed.ts';
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
  /** Cluster mode: one replica publishes each PLC. */
  readonly cluster?: Cluster | undefined;
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
  /** Sparkplug: this gateway's (this replica's) edge node id. */
  edgeNodeId?: string;
  /** Cluster mode: this replica. */
  replicaId?: string;
  sessions: MqttSessionStatus[];
  devices: Array<{ plcId: string; online: boolean; metrics: number }>;
  messages: number;
  bytes: number;
  buffered: number;
  dropped: number;
}

/** Most symbols one PLC publishes (a bound on the subscriptions and the birth message). */
export const maxSymbolsPerPlc = 10_000;

/** A ReplicaId as it may stand in an MQTT topic level, a client id and a file name. */
export function replicaSuffix(replicaId: string): string {
  return replicaId.replace(/[^A-Za-z0-9._-]/g, '_');
}

/** `data/mqtt-state.json` -> `data/mqtt-state.<suffix>.json`: each replica's edge node counts its own bdSeq. */
function stateFileOf(file: string, suffix: string | undefined): string {
  if (suffix === undefined) return file;
  const dot = file.lastIndexOf('.');
  return dot > file.lastIndexOf('/') && dot > 0
    ? `${file.slice(0, dot)}.${suffix}${file.slice(dot)}`
    : `${file}.${suffix}`;
}

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
  readonly #leases: PublishLeases | undefined;
  readonly #gates = new Map<string, LeaseGate>();
  #node: SparkplugNode | undefined;

  constructor(config: Config, registry: TargetRegistry, deps: MqttDeps) {
    const settings = config.settings.Mqtt;
    this.#settings = settings;
    this.#deps = deps;
    // The loader checked Mqtt.Targets against PlcTargets; each is matched ignoring case, as plcIds are everywhere,
    // and published under the PLC's own id.
    const published = Object.entries(settings.Targets).map(([id, own]) => {
      const target = registry.get(id);
      if (target === undefined) throw new Error(`Mqtt.Targets.${id}: names no configured PLC`);
      return [target, own] as const;
    });
    const targets = new Map(published.map(([t]) => [t.id, t] as const));
    const cluster = deps.cluster;
    const leases = cluster === undefined ? undefined : new PublishLeases(cluster, deps.log);
    this.#leases = leases;
    const suffix = cluster === undefined ? undefined : replicaSuffix(cluster.replicaId);
    /** The feed's sink: in cluster mode through the PLC's lease gate. */
    const gated = (
      target: PlcTarget,
      sink: FeedSink,
      hooks: Parameters<PublishLeases['gate']>[2],
    ): FeedSink => {
      if (leases === undefined) return sink;
      const gate = leases.gate(target, sink, hooks);
      this.#gates.set(target.id, gate);
      return gate;
    };
    const tls = this.#tls();
    const base = {
      url: settings.Url,
      username: settings.Username,
      password: settings.Password,
      ...tls,
      keepAliveSeconds: settings.KeepAliveSeconds,
      reconnectMs: settings.ReconnectMs,
    };
    const feedOptions = (own: (typeof published)[number][1]) => ({
      entries: own.Symbols,
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
          edgeNodeId: suffix === undefined ? settings.EdgeNodeId : `${settings.EdgeNodeId}-${suffix}`,
          bufferSize: settings.BufferSize,
          now: deps.now,
          log: deps.log,
          command: (plcId, writes) => {
            const target = targets.get(plcId);
            if (target) commands.submit(target, writes);
          },
        },
        new SessionCounter(stateFileOf(resolve(deps.contentRoot, settings.StateFile), suffix)),
      );
      this.#node = node;
      const options: LinkOptions = {
        ...base,
        clientId: suffix === undefined ? settings.ClientId : `${settings.ClientId}-${suffix}`,
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
      for (const [target, own] of published) {
        const plcId = target.id;
        const sink = gated(target, node.device(plcId, own.Alarms ? this.#alarmsOf(plcId) : undefined), {
          deathOnLoss: true,
        });
        this.#feeds.push(new PlcFeed(target, deps.shared(target), sink, feedOptions(own)));
      }
      return;
    }
    for (const [target, own] of published) {
      const plcId = target.id;
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
      // Cluster mode: the PLC's session is open only while this replica holds its lease (a session elsewhere
      // would leave its `$state offline` will behind when it ends), and closes cleanly when the lease goes.
      const sink = gated(target, publisher.sink(own.Alarms ? this.#alarmsOf(plcId) : undefined), {
        deathOnLoss: false,
        taken: () => link.start(),
        given: async () => {
          publisher.abandon();
          await link.stop();
        },
      });
      this.#feeds.push(new PlcFeed(target, deps.shared(target), sink, feedOptions(own)));
    }
  }

  start(): void {
    // JSON sessions in cluster mode open with their lease.
    for (const p of this.#publishers) if (this.#leases === undefined || p.plcId === undefined) p.link.start();
    for (const f of this.#feeds) f.start();
    this.#leases?.start();
  }

  async stop(): Promise<void> {
    // Leases first: each PLC's death is published and the next replica takes it at once.
    await this.#leases?.stop();
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

  /** The plcIds whose MQTT lease this replica holds (cluster mode; none in one process). */
  heldLeases(): string[] {
    return [...this.#gates.values()].filter((g) => g.lease.held).map((g) => g.plcId);
  }

  /** Every wanted session is up (in cluster JSON mode, those of the PLCs this replica publishes). */
  connected(): boolean {
    return this.#publishers.every((p) => p.link.connected || !p.link.active);
  }

  status(): MqttStatus {
    const sessions = this.#publishers.map(({ link, plcId }) => ({
      clientId: link.clientId,
      ...(plcId === undefined ? {} : { plcId }),
      state: link.state,
      since: link.since.toISOString(),
      ...(link.lastError === undefined ? {} : { lastError: link.lastError }),
    }));
    const node = this.#node;
    return {
      mode: this.#settings.Mode,
      url: redacted(this.#settings.Url),
      ...(node === undefined ? {} : { edgeNodeId: node.edgeNodeId }),
      ...(this.#leases === undefined ? {} : { replicaId: this.#leases.replicaId }),
      sessions,
      devices: this.#feeds.map((f) => ({
        plcId: f.plcId,
        online: this.#gates.get(f.plcId)?.publishing ?? f.born,
        metrics: f.metrics().length,
      })),
      messages: this.messages(),
      bytes: this.bytes(),
      buffered: this.buffered(),
      dropped: this.dropped(),
    };
  }

  /** `mqtt`: Healthy while every session is connected, Degraded otherwise (changes are buffered meanwhile). */
  check(): HealthCheck {
    const s = this.status();
    const idle = new Set(this.#publishers.filter((p) => !p.link.active).map((p) => p.link.clientId));
    const down = s.sessions.filter((x) => x.state !== 'Connected' && !idle.has(x.clientId));
    const status = down.length === 0 ? 'Healthy' : 'Degraded';
    const description =
      down.length === 0
        ? `Connected to ${s.url} (${s.mode}).`
        : `${down.length} of ${s.sessions.length - idle.size} MQTT sessions not connected to ${s.url}; changes are buffered.`;
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
