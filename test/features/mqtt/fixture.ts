// The MQTT test rig: a subscriber that keeps every message (Sparkplug payloads decoded with the same library the
// gateway encodes with) and waits on them, a TCP relay between gateway and broker that the test cuts and holds
// shut (the broker then sends the gateway's will), and the gateway over a simulated PLC publishing to mosquitto.
import { mkdtempSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { createServer, connect as tcpConnect, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { connect, type IClientOptions, type MqttClient } from 'mqtt';
import { decode, type UPayload } from '../../../src/features/mqtt/sparkplug-codec.ts';
import { ProgramBuilder } from '../../../src/simulator/engine/index.ts';
import { buildTestApp } from '../../helpers/app.ts';
import { bearer, mintToken } from '../../helpers/tokens.ts';
import { testConfig, type SettingsOverrides } from '../../helpers/config.ts';
import type { Mosquitto } from '../../../bench/servers/mosquitto.ts';
import { startTestPlc, type TestPlc } from '../variables/fixture.ts';
import { declareErrorEntry } from '../alarms/fixture.ts';

export { entry as alarmEntry } from '../alarms/fixture.ts';

export const waitLimitMs = 10_000;

export interface Message {
  readonly topic: string;
  readonly payload: Buffer;
  readonly retain: boolean;
}

export class Subscriber {
  readonly messages: Message[] = [];
  #waiters = new Set<() => void>();
  /** Messages before this index were taken by `next`. */
  #cursor = 0;

  private constructor(readonly client: MqttClient) {
    client.on('message', (topic, payload, packet) => {
      this.messages.push({ topic, payload, retain: packet.retain });
      for (const w of this.#waiters) w();
    });
  }

  static async connect(url: string, topics: string[], options: IClientOptions = {}): Promise<Subscriber> {
    const client = connect(url, { reconnectPeriod: 50, ...options });
    const s = new Subscriber(client);
    await new Promise<void>((resolve) => client.once('connect', () => resolve()));
    await client.subscribeAsync(topics, { qos: 1 });
    client.on('connect', () => {
      client.subscribe(topics, { qos: 1 }, () => {
        for (const r of s.#resubscribed.splice(0)) r();
      });
    });
    return s;
  }

  readonly #resubscribed: Array<() => void> = [];

  /** Resolves once the client has connected again (a restarted broker) and subscribed again. */
  resubscribed(): Promise<void> {
    return new Promise((resolve) => this.#resubscribed.push(resolve));
  }

  /** The next message (after those already taken) on a topic matching `topic`; the ones skipped are taken too. */
  next(topic: string | RegExp, what = String(topic)): Promise<Message> {
    const match = (m: Message): boolean =>
      typeof topic === 'string' ? m.topic === topic : topic.test(m.topic);
    return new Promise((resolve, reject) => {
      const check = (): boolean => {
        for (; this.#cursor < this.messages.length;) {
          const m = this.messages[this.#cursor++] as Message;
          if (match(m)) {
            resolve(m);
            return true;
          }
        }
        return false;
      };
      if (check()) return;
      const timer = setTimeout(() => {
        this.#waiters.delete(waiter);
        reject(
          new Error(
            `no message ${what} within ${waitLimitMs} ms; the last were ${this.topics().slice(-12).join(', ')}`,
          ),
        );
      }, waitLimitMs);
      const waiter = (): void => {
        if (!check()) return;
        clearTimeout(timer);
        this.#waiters.delete(waiter);
      };
      this.#waiters.add(waiter);
    });
  }

  /** The next message on `topic`, decoded as Sparkplug. */
  async sparkplug(topic: string | RegExp): Promise<UPayload & { topic: string }> {
    const m = await this.next(topic);
    return { ...decode(m.payload), topic: m.topic };
  }

  /** A decoded Int64 metric value (the decoder hands its bits over unsigned) as signed decimal text. */
  static int64(value: unknown): string {
    return BigInt.asIntN(64, BigInt(String(value))).toString();
  }

  topics(): string[] {
    return this.messages.map((m) => m.topic);
  }

  /** Skips everything received so far. */
  skip(): void {
    this.#cursor = this.messages.length;
  }

  async close(): Promise<void> {
    await this.client.endAsync(true);
  }
}

/** A TCP relay to the broker: `cut()` drops every connection and refuses new ones until `open()`. */
export class Relay {
  readonly #gate = { open: true, sockets: new Set<Socket>() };
  readonly #server: Server;
  #port = 0;

  private constructor(brokerPort: number) {
    const gate = this.#gate;
    this.#server = createServer((client) => {
      if (!gate.open) {
        client.destroy();
        return;
      }
      const upstream = tcpConnect(brokerPort, '127.0.0.1');
      gate.sockets.add(client).add(upstream);
      const end = (): void => {
        client.destroy();
        upstream.destroy();
        gate.sockets.delete(client);
        gate.sockets.delete(upstream);
      };
      client.on('error', end).on('close', end);
      upstream.on('error', end).on('close', end);
      client.pipe(upstream).pipe(client);
    });
  }

  static async start(brokerPort: number): Promise<Relay> {
    const relay = new Relay(brokerPort);
    relay.#server.listen(0, '127.0.0.1');
    await once(relay.#server, 'listening');
    const address = relay.#server.address();
    relay.#port = typeof address === 'object' && address !== null ? address.port : 0;
    return relay;
  }

  get url(): string {
    return `mqtt://127.0.0.1:${this.#port}`;
  }

  cut(): void {
    this.#gate.open = false;
    for (const s of this.#gate.sockets) s.destroy();
    this.#gate.sockets.clear();
  }

  open(): void {
    this.#gate.open = true;
  }

  async close(): Promise<void> {
    this.cut();
    this.#server.close();
    await once(this.#server, 'close');
  }
}

export const alarmArray = 'GVL.aAlarms';

/**
 * line1's program: a DINT, an LREAL, 64-bit integers beyond a double's exact range, an INT array, a struct, alarms.
 * `retyped`: the download that makes MAIN.nCount an LREAL.
 */
export function mqttProgram(retyped = false) {
  const b = new ProgramBuilder();
  declareErrorEntry(b);
  b.symbol(alarmArray, 'ARRAY [1..4] OF ST_ErrorEntry', {});
  b.struct('ST_Motor', [
    { name: 'bRunning', type: 'BOOL' },
    { name: 'rCurrent', type: 'REAL' },
  ]);
  if (retyped) b.symbol('MAIN.nCount', 'LREAL', { value: 7.5 });
  else b.symbol('MAIN.nCount', 'DINT', { value: 7 });
  b.symbol('MAIN.fSpeed', 'LREAL', { value: 0.5 });
  b.symbol('MAIN.nBig', 'LINT', { value: '9007199254740993' });
  b.symbol('MAIN.nHuge', 'ULINT', { value: '18446744073709551615' });
  b.symbol('MAIN.aLevels', 'ARRAY [1..3] OF INT', { value: [10, 20, 30] });
  b.symbol('MAIN.stMotor', 'ST_Motor', {});
  b.symbol('MAIN.sName', 'STRING(20)', { value: 'press' });
  b.symbol('MAIN.nHidden', 'DINT', { value: 0 });
  return b.build();
}

export interface GatewayRig {
  readonly app: FastifyInstance;
  readonly plc: TestPlc;
  readonly dir: string;
  /** Builds the app again over the same PLC and state folder (a restart). */
  restart(): Promise<FastifyInstance>;
  /** Calls `listener` with the message of each line the MQTT feature logs; returns the undo. */
  onMqttLog(listener: (message: string) => void): () => void;
  close(): Promise<void>;
}

/** Alarm monitoring of line1's alarm array (with `Mqtt.Targets.line1.Alarms: true` to publish them). */
export const alarmSettings: SettingsOverrides = {
  Features: { Alarms: true },
  PlcAlarms: { Targets: { line1: { SymbolPath: alarmArray, CycleTimeMs: 50 } } },
};

export function mqttSettings(url: string, mqtt: Record<string, unknown> = {}): SettingsOverrides {
  return {
    Mqtt: {
      Enabled: true,
      Url: url,
      ReconnectMs: 50,
      GroupId: 'plant',
      EdgeNodeId: 'gw1',
      Targets: {
        line1: {
          Symbols: [
            { Path: 'MAIN.nCount' },
            { Path: 'MAIN.fSpeed' },
            { Path: 'MAIN.nBig' },
            { Path: 'MAIN.nHuge' },
            { Path: 'MAIN.aLevels[*]' },
            { Path: 'MAIN.stMotor' },
            { Path: 'MAIN.sName' },
          ],
        },
      },
      ...mqtt,
    },
  };
}

/** The gateway over line1 (simulated), publishing per `settings`; state files in a temp folder. */
export async function startGateway(
  settings: SettingsOverrides,
  plc?: TestPlc,
  dir = mkdtempSync(join(tmpdir(), 'mqtt-gw-')),
): Promise<GatewayRig> {
  const line1 = plc ?? (await startTestPlc('line1', 'simulated', mqttProgram()));
  const listeners = new Set<(message: string) => void>();
  // Info lines too: the session coming up is logged at info. Only the feature's own lines are passed on, so a
  // listener that reads the app (each read logging its request) does not call itself.
  const logger = {
    level: 'info',
    stream: {
      write: (line: string) => {
        const { msg } = JSON.parse(line) as { msg?: unknown };
        if (typeof msg === 'string' && /^(MQTT|Sparkplug)/.test(msg)) for (const l of listeners) l(msg);
      },
    },
  };
  const build = () => buildTestApp({ config: testConfig(settings, dir), targets: [line1.target], logger });
  let app = await build();
  return {
    get app() {
      return app;
    },
    plc: line1,
    dir,
    restart: async () => {
      await app.close();
      app = await build();
      return app;
    },
    onMqttLog: (listener) => {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    close: async () => {
      await app.close();
      await line1.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export type { Mosquitto };

/** Resolves once the gateway holds `n` changes for the broker (readiness reports them). */
export async function buffered(app: FastifyInstance, n: number): Promise<void> {
  const started = Date.now();
  for (;;) {
    const res = await app.inject({ method: 'GET', url: '/health/ready', headers: bearer(await mintToken()) });
    const report = res.json<{ checks: Array<{ name: string; data: { buffered?: number } }> }>();
    const mqtt = report.checks.find((c) => c.name === 'mqtt');
    if (mqtt?.data.buffered === n) return;
    if (Date.now() - started > waitLimitMs) throw new Error(`the gateway never held ${n} changes`);
    await new Promise((r) => setTimeout(r, 5));
  }
}
