// Test harness for the ADS target: a simulated PLC behind the ADS server, fault-injecting TCP proxies,
// and a target with short timers. Servers bind 127.0.0.1 on free ports.
import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';
import type { PlcTargetConfig } from '../../../src/config/schema.ts';
import { createAdsServer, type AdsServer } from '../../../src/simulator/ads-server/server.ts';
import { ProgramBuilder, SimulatedPlc, type Program } from '../../../src/simulator/engine/index.ts';
import { createAdsTarget, type AdsTarget, type AdsTuning } from '../../../src/targets/ads/index.ts';
import type { ConnectionState, PlcTarget } from '../../../src/targets/target.ts';
import { testConfig } from '../../helpers/config.ts';

export const fastTuning: AdsTuning = {
  backoff: { baseMs: 20, capMs: 200 },
  connectionCheckIntervalMs: 50,
  connectionDownDelayMs: 300,
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
    TimeoutMs: 400,
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
  /** Stops the server (every client connection drops). */
  stop(): Promise<void>;
  /** Starts a fresh server for the same PLC on the same port. */
  restart(): Promise<void>;
}

export async function startPlant(plc = new SimulatedPlc(program()), port = 0): Promise<Plant> {
  let server = createAdsServer({ plc, host: '127.0.0.1', port, tickMs: 5 });
  const address = await server.listen();
  const plant: Plant = {
    plc,
    server,
    port: address.port,
    stop: () => server.close(),
    restart: async () => {
      server = createAdsServer({ plc, host: '127.0.0.1', port: address.port, tickMs: 5 });
      plant.server = server;
      await server.listen();
    },
  };
  return plant;
}

export type ProxyMode = 'pass' | 'mute' | 'cut-next-answer';

/** Picks ADS requests the proxy answers itself with an error code instead of forwarding them. */
export type RequestFault = (request: { command: number; indexGroup: number }) => number | undefined;

/**
 * A TCP proxy that forwards, swallows everything (mute) or closes in the middle of the next answer;
 * `fault` fails chosen ADS requests with an ADS error code, `dropAll()` cuts every connection.
 */
export class FaultProxy {
  mode: ProxyMode = 'pass';
  fault: RequestFault | undefined;
  /** Rewrites whole answer frames (AMS/TCP header included) on their way to the client. */
  answer: ((frame: Buffer) => Buffer) | undefined;
  /** Requests it picks are swallowed: neither forwarded nor answered (indexGroup is 0 for commands without one). */
  hold: ((request: { command: number; indexGroup: number }) => boolean) | undefined;
  readonly #upstream: number;
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();

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

  dropAll(): void {
    for (const s of this.#sockets) s.destroy();
  }

  #accept(client: Socket): void {
    const up = connect(this.#upstream, '127.0.0.1');
    this.#sockets.add(client).add(up);
    const drop = (): void => {
      client.destroy();
      up.destroy();
    };
    let pending = Buffer.alloc(0);
    client.on('data', (d) => {
      if (this.mode === 'mute') return;
      pending = Buffer.concat([pending, d]);
      // Whole AMS/TCP frames only: 6-byte header whose u32 at offset 2 is the length of what follows.
      while (pending.length >= 6 && pending.length >= 6 + pending.readUInt32LE(2)) {
        const size = 6 + pending.readUInt32LE(2);
        const frame = pending.subarray(0, size);
        pending = pending.subarray(size);
        if (this.#held(frame)) continue;
        const answer = this.#faultAnswer(frame);
        if (answer) client.write(answer);
        else up.write(frame);
      }
    });
    let answers = Buffer.alloc(0);
    up.on('data', (chunk) => {
      if (this.mode === 'mute') return;
      let d = chunk;
      if (this.answer) {
        answers = Buffer.concat([answers, chunk]);
        const frames: Buffer[] = [];
        while (answers.length >= 6 && answers.length >= 6 + answers.readUInt32LE(2)) {
          const size = 6 + answers.readUInt32LE(2);
          frames.push(this.answer(Buffer.from(answers.subarray(0, size))));
          answers = answers.subarray(size);
        }
        if (frames.length === 0) return;
        d = Buffer.concat(frames);
      }
      if (this.mode === 'cut-next-answer') {
        this.mode = 'pass';
        client.write(d.subarray(0, Math.max(1, d.length >> 1)), drop);
        return;
      }
      client.write(d);
    });
    for (const s of [client, up]) {
      s.on('error', drop);
      s.on('close', () => {
        this.#sockets.delete(s);
        drop();
      });
    }
  }

  #held(frame: Buffer): boolean {
    if (!this.hold || frame.length < 38 || frame.readUInt16LE(0) !== 0) return false;
    const ams = frame.subarray(6);
    const command = ams.readUInt16LE(16);
    const indexGroup = [2, 3, 9].includes(command) && ams.length >= 36 ? ams.readUInt32LE(32) : 0;
    return this.hold({ command, indexGroup });
  }

  /** The error answer to an ADS request `fault` picks (Read, Write or ReadWrite by index group). */
  #faultAnswer(frame: Buffer): Buffer | undefined {
    if (!this.fault || frame.length < 38 || frame.readUInt16LE(0) !== 0) return undefined;
    const ams = frame.subarray(6);
    const command = ams.readUInt16LE(16);
    if (![2, 3, 9].includes(command) || ams.length < 36) return undefined;
    const code = this.fault({ command, indexGroup: ams.readUInt32LE(32) });
    if (code === undefined) return undefined;
    // Read and ReadWrite answers carry result + length, Write answers the result alone.
    const data = Buffer.alloc(command === 3 ? 4 : 8);
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

/** Resolves when the target reaches `state` (at once if it is there already). */
export function reach(target: PlcTarget, state: ConnectionState, limitMs = 5000): Promise<void> {
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
