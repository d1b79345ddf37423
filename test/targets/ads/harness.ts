// Test harness for the ADS target: a simulated PLC behind the ADS server, fault-injecting TCP proxies,
// and a target with short timers. Servers bind 127.0.0.1 on free ports.
import { EventEmitter } from 'node:events';
import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';
import type { PlcTargetConfig } from '../../../src/config/schema.ts';
import { AdsCommand } from '../../../src/plc/ads/constants.ts';
import {
  createAdsServer,
  type AdsServer,
  type AdsServerOptions,
} from '../../../src/simulator/ads-server/server.ts';
import { ProgramBuilder, SimulatedPlc, type Program } from '../../../src/simulator/engine/index.ts';
import { createAdsTarget, type AdsTarget, type AdsTuning } from '../../../src/targets/ads/index.ts';
import type { ConnectionState, PlcTarget } from '../../../src/targets/target.ts';
import { testConfig } from '../../helpers/config.ts';

export const fastTuning: AdsTuning = {
  backoff: { baseMs: 20, capMs: 200 },
  connectionCheckIntervalMs: 50,
  // Long enough that a loaded machine's event-loop stalls are not taken for a silent PLC.
  connectionDownDelayMs: 1500,
  pollFloorMs: 10,
};

export function realSettings(port: number, overrides: Partial<PlcTargetConfig> = {}): PlcTargetConfig {
  return {
    DisplayName: 'Press',
    Mode: 'Real',
    AmsNetId: '127.0.0.1.1.1',
    Address: '127.0.0.1',
    Port: 851,
    TcpPort: port,
    TimeoutMs: 1000,
    SymbolBrowseTimeoutMs: 5000,
    NotificationBudget: 500,
    Rpc: { Invokable: [] },
    InitialValues: {},
    ScenarioAutoStart: false,
    ...overrides,
  };
}

export function makeTarget(
  port: number,
  overrides: Partial<PlcTargetConfig> = {},
  tuning = fastTuning,
): AdsTarget {
  const config = testConfig({ AmsRouter: { NetId: '127.0.0.1.1.20', LocalAdsPort: 32750 } });
  return createAdsTarget('press', realSettings(port, overrides), { config }, tuning);
}

export const onlineChangeCounter = 'TwinCAT_SystemInfoVarList._AppInfo.OnlineChangeCnt';

/**
 * A small program: counters to watch and a symbol a later download removes. `extra` symbols are
 * declared first, so every other symbol moves; `onlineChanges` publishes TwinCAT's online-change counter.
 */
export function program(options: { withB?: boolean; extra?: number; onlineChanges?: boolean } = {}): Program {
  const b = new ProgramBuilder();
  for (let i = 0; i < (options.extra ?? 0); i++) b.symbol(`MAIN.aN${i}`, 'DINT', { value: i });
  b.symbol('MAIN.nA', 'DINT', { value: 1 });
  if (options.withB ?? true) b.symbol('MAIN.nB', 'DINT', { value: 2 });
  b.symbol('MAIN.fSpeed', 'LREAL', { value: 0.5 });
  for (let i = 0; i < 8; i++) b.symbol(`MAIN.aValues${i}`, 'INT', { value: i });
  if (options.onlineChanges) b.symbol(onlineChangeCounter, 'UDINT', { value: 0 });
  return b.build();
}

export interface Plant {
  plc: SimulatedPlc;
  server: AdsServer;
  port: number;
  /** Client events of the server (also across restarts) by kind, with the client id. */
  clientEvents: EventEmitter;
  /** Stops the server (every client connection drops). */
  stop(): Promise<void>;
  /** Starts a fresh server for the same PLC on the same port. */
  restart(): Promise<void>;
}

/** `options`: further server options (a notification limit per connection, ...). */
export async function startPlant(
  plc = new SimulatedPlc(program()),
  port = 0,
  options: Partial<AdsServerOptions> = {},
): Promise<Plant> {
  const clientEvents = new EventEmitter();
  const serve = (at: number) =>
    createAdsServer({
      ...options,
      plc,
      host: '127.0.0.1',
      port: at,
      tickMs: 5,
      onClient: (event) => clientEvents.emit(event.kind, event.id),
    });
  let server = serve(port);
  const address = await server.listen();
  const plant: Plant = {
    plc,
    server,
    port: address.port,
    clientEvents,
    stop: () => server.close(),
    restart: async () => {
      server = serve(address.port);
      plant.server = server;
      await server.listen();
    },
  };
  return plant;
}

export type ProxyMode = 'pass' | 'mute' | 'hold';

/** An ADS request as the proxy sees it (indexGroup is 0 for WriteControl, which has none). */
export interface AdsRequest {
  command: number;
  indexGroup: number;
  invokeId: number;
}

/** Picks ADS requests (Read, Write, WriteControl, ReadWrite) the proxy answers itself with an error code. */
export type RequestFault = (request: AdsRequest) => number | undefined;
/** Picks one ADS request (Read, Write, WriteControl, ReadWrite). */
export type RequestPick = (request: AdsRequest) => boolean;

/** Splits a TCP stream into whole AMS/TCP frames: a 6-byte header whose u32 at offset 2 is the length after it. */
class FrameReader {
  #pending = Buffer.alloc(0);

  *frames(chunk: Buffer): Generator<Buffer> {
    this.#pending = Buffer.concat([this.#pending, chunk]);
    while (this.#pending.length >= 6 && this.#pending.length >= 6 + this.#pending.readUInt32LE(2)) {
      const size = 6 + this.#pending.readUInt32LE(2);
      yield this.#pending.subarray(0, size);
      this.#pending = this.#pending.subarray(size);
    }
  }
}

const { Read, Write, WriteControl, AddNotification, ReadWrite } = AdsCommand;
/** Requests that start with an index group. */
const indexedCommands: number[] = [Read, Write, AddNotification, ReadWrite];
/** Requests `FaultProxy.fault` can fail. */
const faultableCommands: number[] = [Read, Write, WriteControl, AddNotification, ReadWrite];

/** The ADS request in an AMS/TCP frame, whatever its command (indexGroup 0 for commands without one). */
function amsRequest(frame: Buffer): AdsRequest | undefined {
  if (frame.length < 38 || frame.readUInt16LE(0) !== 0) return undefined;
  const ams = frame.subarray(6);
  const command = ams.readUInt16LE(16);
  const indexGroup = indexedCommands.includes(command) && ams.length >= 36 ? ams.readUInt32LE(32) : 0;
  return { command, indexGroup, invokeId: ams.readUInt32LE(28) };
}

/** The ADS request in an AMS/TCP frame, if it is a Read, Write, WriteControl, AddNotification or ReadWrite. */
function adsRequest(frame: Buffer): AdsRequest | undefined {
  const request = amsRequest(frame);
  return request && faultableCommands.includes(request.command) && frame.length >= 42 ? request : undefined;
}

/**
 * A TCP proxy that forwards, swallows everything (mute) or keeps requests until `release()` (hold); `fault` fails
 * chosen ADS requests with an ADS error code, `swallow` leaves chosen requests unanswered, `answer` rewrites the
 * answers, `cut` closes the connection in the middle of the answer to a chosen request, `dropAll()` cuts every
 * connection.
 */
export class FaultProxy {
  mode: ProxyMode = 'pass';
  fault: RequestFault | undefined;
  /**
   * Picks one request whose answer is cut in half, the connection closing right after the half. The answer is
   * found by invoke id: the connection check's answers, sent meanwhile, pass untouched.
   */
  cut: RequestPick | undefined;
  /** Picks requests (any command) that are neither forwarded nor answered. */
  swallow: RequestPick | undefined;
  /** Rewrites whole answer frames (AMS/TCP header included) on their way to the client. */
  answer: ((frame: Buffer) => Buffer) | undefined;
  readonly #upstream: number;
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  readonly #held: Array<() => void> = [];
  /** Client connections accepted so far. */
  connections = 0;

  constructor(upstreamPort: number) {
    this.#upstream = upstreamPort;
    this.#server = createServer((client) => this.#accept(client));
  }

  async listen(): Promise<number> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    return (this.#server.address() as AddressInfo).port;
  }

  async close(): Promise<void> {
    this.dropAll();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  /** Forwards the requests held so far, in order, and passes everything from now on. */
  release(): void {
    this.mode = 'pass';
    for (const forward of this.#held.splice(0)) forward();
  }

  dropAll(): void {
    for (const s of this.#sockets) s.destroy();
  }

  #accept(client: Socket): void {
    this.connections++;
    const up = connect(this.#upstream, '127.0.0.1');
    this.#sockets.add(client).add(up);
    const drop = (): void => {
      client.destroy();
      up.destroy();
    };
    const requests = new FrameReader();
    let cutInvokeId: number | undefined;
    client.on('data', (d) => {
      if (this.mode === 'mute') return;
      if (this.mode === 'hold') {
        this.#held.push(() => client.emit('data', d));
        return;
      }
      for (const frame of requests.frames(d)) {
        const any = this.swallow ? amsRequest(frame) : undefined;
        if (any && this.swallow?.(any)) continue;
        const request = adsRequest(frame);
        if (request && this.cut?.(request)) {
          this.cut = undefined;
          cutInvokeId = request.invokeId;
        }
        const answer = this.#faultAnswer(frame);
        if (answer) client.write(answer);
        else up.write(frame);
      }
    });
    const answers = new FrameReader();
    up.on('data', (d) => {
      if (this.mode === 'mute') return;
      for (const frame of answers.frames(d)) {
        if (cutInvokeId !== undefined && frame.length >= 38 && frame.readUInt32LE(6 + 28) === cutInvokeId) {
          client.write(frame.subarray(0, frame.length >> 1), drop);
          return;
        }
        client.write(this.answer ? this.answer(Buffer.from(frame)) : frame);
      }
    });
    for (const s of [client, up]) {
      s.on('error', drop);
      s.on('close', () => {
        this.#sockets.delete(s);
        drop();
      });
    }
  }

  /** The error answer to an ADS request `fault` picks (Read, Write, AddNotification or ReadWrite by index group). */
  #faultAnswer(frame: Buffer): Buffer | undefined {
    const request = this.fault ? adsRequest(frame) : undefined;
    if (!this.fault || !request) return undefined;
    const { command } = request;
    const code = this.fault(request);
    if (code === undefined) return undefined;
    const ams = frame.subarray(6);
    // Read and ReadWrite answers carry result + length, AddNotification result + handle, Write and WriteControl
    // the result alone.
    const data = Buffer.alloc(command === Write || command === WriteControl ? 4 : 8);
    data.writeUInt32LE(code, 0);
    const header = Buffer.alloc(32);
    ams.copy(header, 0, 8, 16); // the request's source becomes the target
    ams.copy(header, 8, 0, 8);
    header.writeUInt16LE(command, 16);
    header.writeUInt16LE(0x0005, 18);
    header.writeUInt32LE(data.length, 20);
    header.writeUInt32LE(0, 24);
    header.writeUInt32LE(ams.readUInt32LE(28), 28);
    const tcp = Buffer.alloc(6);
    tcp.writeUInt32LE(32 + data.length, 2);
    return Buffer.concat([tcp, header, data]);
  }
}

/** A server that accepts TCP connections and never answers. */
export async function silentServer(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createServer((s) => {
    sockets.add(s);
    s.on('error', () => undefined);
    s.resume();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Starts the target and waits for its first connection (start() itself returns after a grace period). */
export async function startConnected(target: PlcTarget): Promise<void> {
  await target.start();
  await reach(target, 'Connected');
}

/** Resolves when the target reaches `state` (at once if it is there already); the limit only ends a hang. */
export function reach(target: PlcTarget, state: ConnectionState, limitMs = 15_000): Promise<void> {
  if (target.connectionState() === state) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(
        new Error(`target did not reach ${state} within ${limitMs} ms (is ${target.connectionState()})`),
      );
    }, limitMs);
    const off = target.onConnectionState((s) => {
      if (s !== state) return;
      clearTimeout(timer);
      off();
      resolve();
    });
  });
}

/** Re-checks an (async) condition every few milliseconds until it holds; fails after `limitMs`. */
export async function eventually<T>(
  probe: () => T | undefined | Promise<T | undefined>,
  limitMs = 5000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const hit = await probe();
    if (hit !== undefined) return hit;
    if (Date.now() > deadline) throw new Error(`${what} not reached within ${limitMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
