// The alarm test rig: the alarm scenario on a simulated PLC, monitored as `line1` either in process (simulated
// driver) or through a Real target talking ADS over loopback TCP to the simulator's ADS server. On the Real
// driver the scenario PLC is also registered as `plant`, so `sim/step` drives it through HTTP as well.
import { isDeepStrictEqual } from 'node:util';
import { resolve } from 'node:path';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { PlcTargetConfig } from '../../../src/config/schema.ts';
import { errorEntryMembers, errorTypeMembers, timeStructMembers } from '../../../src/plc/index.ts';
import type { ProgramBuilder, SimulatedPlc } from '../../../src/simulator/engine/index.ts';
import { createAdsTarget } from '../../../src/targets/ads/index.ts';
import { createSimulatedTarget, SimulatedTarget } from '../../../src/targets/simulated/index.ts';
import type { PlcTarget, PlcValue } from '../../../src/targets/target.ts';
import { buildTestApp, type TestAppOptions } from '../../helpers/app.ts';
import { testConfig, type SettingsOverrides } from '../../helpers/config.ts';
import { Signal } from '../../helpers/signal.ts';
import { bearer, mintToken } from '../../helpers/tokens.ts';
import { contractSettings } from '../../contract/fixture.ts';
import { realSettings, reach, startPlant, type Plant } from '../../targets/ads/harness.ts';
import type { TestDriver } from '../variables/fixture.ts';

export { testDrivers, type TestDriver } from '../variables/fixture.ts';

export const scenarioDir = resolve(import.meta.dirname, 'scenario');
export const arrayPath = 'GVL_HMI.fbAlarms.aAlarms';
export const cycleTimeMs = 100;

export type Call = (
  method: 'GET' | 'PUT' | 'POST' | 'DELETE',
  url: string,
  payload?: unknown,
  headers?: Record<string, string>,
) => Promise<LightMyRequestResponse>;

export interface RigOptions {
  /** Extra settings for `PlcAlarms.Targets.line1`. */
  alarm?: Record<string, unknown>;
  settings?: SettingsOverrides;
  /** Extra targets in the registry. */
  targets?: PlcTarget[];
  now?: () => number;
  /** Start the app while the PLC is down (Real driver: the server is stopped first). */
  plcDown?: boolean;
  /** A PLC of the test's own instead of the alarm scenario (no sim/step then). */
  plc?: SimulatedPlc;
  /** Shorter stream timers (SSE heartbeat, hub ping and timeout). */
  streamTimings?: TestAppOptions['streamTimings'];
  /** Token clock with its timers (streams ending with their tokens). */
  tokenClock?: TestAppOptions['tokenClock'];
  /** Gateway clock with its timers (alarm shelves running out). */
  deadlines?: TestAppOptions['deadlines'];
  /** Services published before the features register (a stand-in alarm archive). */
  provide?: TestAppOptions['provide'];
}

export interface AlarmRig {
  readonly driver: TestDriver;
  readonly app: FastifyInstance;
  readonly plc: SimulatedPlc;
  readonly target: PlcTarget;
  readonly logs: Array<Record<string, unknown>>;
  call: Call;
  /** POST sim/step on the scenario PLC, then wait until the gateway has seen the result. */
  step(cycles?: number): Promise<void>;
  reset(): Promise<void>;
  /** Writes one whole ST_ErrorEntry through the variables API of line1. */
  writeSlot(index: number, entry: Record<string, unknown>): Promise<void>;
  /** Resolves once the monitor has processed the alarm array as the PLC now holds it. */
  settle(): Promise<void>;
  disconnect(): Promise<void>;
  reconnect(): Promise<void>;
  close(): Promise<void>;
}

function plantSettings(): PlcTargetConfig {
  return contractSettings({ DisplayName: 'Alarm cell', InitialValues: {}, Scenario: scenarioDir });
}

/**
 * Declares E_ErrorType, TIMESTRUCT and ST_ErrorEntry as PLC programs do; `activeMember` renames IsActive,
 * as a download that no longer matches the bound shape would.
 */
export function declareErrorEntry(b: ProgramBuilder, activeMember = 'IsActive'): void {
  b.enum('E_ErrorType', [...errorTypeMembers], 'INT');
  b.struct(
    'TIMESTRUCT',
    timeStructMembers.map((name) => ({ name, type: 'WORD' })),
  );
  b.struct(
    'ST_ErrorEntry',
    errorEntryMembers.map((m) => (m.name === 'IsActive' ? { ...m, name: activeMember } : m)),
  );
}

export function alarmSettings(
  alarm: Record<string, unknown> = {},
  extra: SettingsOverrides = {},
): SettingsOverrides {
  const alarms = (extra.PlcAlarms ?? {}) as { Targets?: object };
  return {
    Features: { Alarms: true, Simulation: true, Variables: true, Rpc: true },
    ...extra,
    PlcAlarms: {
      ...alarms,
      Targets: { line1: { SymbolPath: arrayPath, CycleTimeMs: cycleTimeMs, ...alarm }, ...alarms.Targets },
    },
  };
}

interface Driven {
  target: PlcTarget;
  simId: string;
  extra: PlcTarget[];
  disconnect(): Promise<void>;
  reconnect(): Promise<void>;
  close(): Promise<void>;
}

function simulatedDriver(plant: SimulatedTarget): Driven {
  return {
    target: plant,
    simId: 'line1',
    extra: [],
    disconnect: () => Promise.resolve(plant.disconnect()),
    reconnect: () => Promise.resolve(plant.reconnect()),
    close: () => plant.close(),
  };
}

async function realDriver(plant: SimulatedTarget, down: boolean): Promise<Driven> {
  const server: Plant = await startPlant(plant.plc);
  if (down) await server.stop();
  const config = testConfig({ AmsRouter: { NetId: '127.0.0.1.1.20', LocalAdsPort: 32750 } });
  const target = createAdsTarget(
    'line1',
    realSettings(server.port, { DisplayName: 'line1', TimeoutMs: 3000 }),
    { config },
    {
      backoff: { baseMs: 10, capMs: 100 },
    },
  );
  await target.start();
  if (!down) await reach(target, 'Connected', 10_000);
  let running = !down;
  const disconnect = async (): Promise<void> => {
    if (!running) return;
    const lost = new Promise<void>((done) => {
      const off = target.onConnectionState((s) => {
        if (s !== 'Connected') {
          off();
          done();
        }
      });
    });
    await server.stop();
    running = false;
    await lost;
  };
  return {
    target,
    simId: 'plant',
    extra: [plant],
    disconnect,
    reconnect: async () => {
      await disconnect();
      const connected = reach(target, 'Connected', 10_000);
      await server.restart();
      running = true;
      await connected;
    },
    close: async () => {
      await target.close();
      if (running) await server.stop();
      await plant.close();
    },
  };
}

/** A connected in-process simulated PLC running the alarm scenario. */
export async function createPlant(id: string, clock?: () => number): Promise<SimulatedTarget> {
  const plant = await createSimulatedTarget(id, plantSettings(), {
    config: testConfig(),
    ...(clock ? { clock } : {}),
  });
  await plant.start();
  return plant;
}

/** A scenario PLC on a stepped clock (see steppedClock): call `stepping` before each sim/step. */
export async function createSteppedPlant(
  id: string,
): Promise<{ plant: SimulatedTarget; stepping: (cycles: number) => void }> {
  const clock = steppedClock();
  const plant = await createPlant(id, clock.now);
  clock.follow(plant);
  return { plant, stepping: (cycles) => clock.stepping(cycles) };
}

/**
 * The PLC clock: wall time plus the simulated time stepped so far (never going back on reset), so that every
 * stepped scan is one CycleTimeMs later for the PLC and each scan's change is sampled on its own. A scan samples
 * its watches before the simulation counts it, so `stepping` moves the clock ahead by the scans about to run:
 * the samples of a step never depend on how much wall time passed since the previous one.
 */
function steppedClock(): {
  now: () => number;
  follow(target: SimulatedTarget): void;
  stepping(cycles: number): void;
} {
  let followed: SimulatedTarget | undefined;
  let carried = 0;
  let last = 0;
  let ahead = 0;
  return {
    now: () => {
      const elapsed = followed?.simulation?.state().elapsedMs ?? 0;
      if (elapsed < last) carried += last;
      last = elapsed;
      return Date.now() + carried + ahead + elapsed;
    },
    follow: (target) => void (followed = target),
    stepping: (cycles) => {
      ahead += cycles * (followed?.simulation?.state().scanMs ?? 0);
    },
  };
}

export async function startAlarmRig(driver: TestDriver, options: RigOptions = {}): Promise<AlarmRig> {
  const clock = steppedClock();
  const plantId = driver === 'real' ? 'plant' : 'line1';
  let plant: SimulatedTarget;
  if (options.plc) {
    plant = new SimulatedTarget(plantId, plantId, options.plc);
    await plant.start();
  } else {
    plant = await createPlant(plantId, clock.now);
    clock.follow(plant);
  }
  const driven =
    driver === 'real' ? await realDriver(plant, options.plcDown === true) : simulatedDriver(plant);
  if (driver === 'simulated' && options.plcDown) plant.disconnect();
  const logs: Array<Record<string, unknown>> = [];
  const app = await buildTestApp({
    targets: [driven.target, ...driven.extra, ...(options.targets ?? [])],
    settings: alarmSettings(options.alarm, options.settings),
    logger: {
      level: 'info',
      stream: { write: (line: string) => void logs.push(JSON.parse(line) as Record<string, unknown>) },
    },
    ...(options.now ? { now: options.now } : {}),
    ...(options.streamTimings ? { streamTimings: options.streamTimings } : {}),
    ...(options.tokenClock ? { tokenClock: options.tokenClock } : {}),
    ...(options.deadlines ? { deadlines: options.deadlines } : {}),
    ...(options.provide ? { provide: options.provide } : {}),
  });
  const headers = bearer(await mintToken());
  const call: Call = (method, url, payload, extra = {}) =>
    app.inject({
      method,
      url,
      headers: { ...headers, ...extra },
      ...(payload === undefined ? {} : { payload: payload as object }),
    });

  // The array the rig watches and writes: the configured one, or the scenario's when it names nothing.
  const configured = options.alarm?.SymbolPath;
  const resolves = (path: string): boolean => {
    try {
      plant.plc.resolve(path);
      return true;
    } catch {
      return false;
    }
  };
  const watched = typeof configured === 'string' && resolves(configured) ? configured : arrayPath;
  // The gateway shares one notification per symbol and calls its subscribers in order: this listener,
  // subscribed after the monitor, hears a value only once the monitor has processed it.
  let latest: PlcValue | undefined;
  let heard = 0;
  const signal = new Signal();
  let listening = false;
  const listen = async (): Promise<void> => {
    if (listening || driven.target.connectionState() !== 'Connected') return;
    listening = true;
    await driven.target.subscribe(watched, {
      cycleTimeMs,
      onChange: (e) => {
        latest = e.value;
        heard++;
        signal.notify();
      },
    });
  };
  await listen();
  /** `after`: only a notification counted after this many counts (a restored subscription's first value). */
  const settle = async (after = 0): Promise<void> => {
    if (driver === 'simulated') return;
    await listen();
    await signal.until(
      () => heard > after && isDeepStrictEqual(latest, plant.plc.read(watched)),
      10_000,
      () => 'alarm array notification',
    );
  };
  const expectOk = (res: LightMyRequestResponse, what: string): void => {
    if (res.statusCode !== 200) throw new Error(`${what}: ${res.statusCode} ${res.body}`);
  };

  return {
    driver,
    app,
    plc: plant.plc,
    target: driven.target,
    logs,
    call,
    settle,
    step: async (cycles = 1) => {
      clock.stepping(cycles);
      expectOk(await call('POST', `/api/plcs/${driven.simId}/sim/step?cycles=${cycles}`), 'sim/step');
      await settle();
    },
    reset: async () => {
      expectOk(await call('POST', `/api/plcs/${driven.simId}/sim/reset`), 'sim/reset');
      await settle();
    },
    writeSlot: async (index, entry) => {
      const path = encodeURIComponent(`${watched}[${index}]`);
      expectOk(await call('PUT', `/api/plcs/line1/variables/${path}`, { value: entry }), 'write slot');
      await settle();
    },
    disconnect: () => driven.disconnect(),
    reconnect: async () => {
      const before = heard;
      await driven.reconnect();
      await settle(before);
    },
    close: async () => {
      await app.close();
      await driven.close();
    },
  };
}

/** Starts the rig's app on a real socket (127.0.0.1, a free port); answers its base URL. */
export async function listen(rig: AlarmRig): Promise<string> {
  await rig.app.listen({ host: '127.0.0.1', port: 0 });
  const address = rig.app.server.address();
  return `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
}

/** A whole ST_ErrorEntry value with defaults a test overrides. */
export function entry(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    sKey: 'RAW_1',
    Id: 'raw',
    ErrorCode: 42,
    ErrorType: 2,
    IsActive: true,
    NeedsAck: true,
    IsAcked: false,
    PLCTimeStamp: time(2024, 5, 17, 8, 30, 0, 250),
    ...overrides,
  };
}

export function time(y: number, mo: number, d: number, h = 0, mi = 0, s = 0, ms = 0): Record<string, number> {
  return {
    wYear: y,
    wMonth: mo,
    wDayOfWeek: 0,
    wDay: d,
    wHour: h,
    wMinute: mi,
    wSecond: s,
    wMilliseconds: ms,
  };
}

export interface AlarmJson {
  code: string;
  sourceId: string;
  scope: string;
  severity: number;
  severityLabel: string;
  status: string;
  description: string;
  lastOccurred?: string;
  capabilities: string[];
  'x-ads': {
    equipmentId: string;
    errorCode: number;
    slotIndex: number;
    needsAcknowledgement: boolean;
    isAcknowledged: boolean;
    plcTimestamp?: string;
    plcClock?: string;
  };
}

export interface AlarmListJson {
  count: number;
  partial: boolean;
  failedPeers: string[];
  'x-ads-failed': Array<{ peer: string; state: string; reason: string; since: string }>;
  items: AlarmJson[];
}

export interface HistoryJson {
  items: Array<{ seq: number; at: string; kind: string; alarm: AlarmJson; user?: string }>;
  nextAfter: number;
}
