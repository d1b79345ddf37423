// Shared by the symbol, type, device, variable and method HTTP tests: a program with every value kind, and the
// factory that puts a PLC target in front of it, on either driver: the in-process simulated target, or the ADS
// target (Mode: Real) talking over loopback TCP to the simulator's ADS server serving the same program.
// Tests reach the PLC only through the target and HTTP, so each runs its assertions on both drivers.
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { AppError, type ErrorCode } from '../../../src/errors.ts';
import {
  ProgramBuilder,
  SimulatedPlc,
  type FileStore,
  type Program,
} from '../../../src/simulator/engine/index.ts';
import { createAdsTarget } from '../../../src/targets/ads/index.ts';
import { SimulatedTarget } from '../../../src/targets/simulated/index.ts';
import type { ConnectionState, PlcTarget } from '../../../src/targets/target.ts';
import { testConfig } from '../../helpers/config.ts';
import { FakeTarget } from '../../helpers/fake-target.ts';
import { bearer, mintToken } from '../../helpers/tokens.ts';
import { buildTestApp, type TestAppOptions } from '../../helpers/app.ts';
import { realSettings, startPlant } from '../../targets/ads/harness.ts';

export type TestDriver = 'simulated' | 'real';
/** Every HTTP test file runs its suite once per driver. */
export const testDrivers: readonly TestDriver[] = ['simulated', 'real'];

export interface TestPlc {
  readonly driver: TestDriver;
  readonly target: PlcTarget;
  /** The simulated PLC behind the target: tests download new programs with `plc.load`. */
  readonly plc: SimulatedPlc;
  /** The connection drops: resolves once operations fail with PLC_UNAVAILABLE. */
  disconnect(): Promise<void>;
  /** The connection is (re-)established: resolves once connected again; caches of the old connection are gone. */
  reconnect(): Promise<void>;
  /** Closes the target (and the ADS server of a Real one). */
  close(): Promise<void>;
}

/** The PLC clock of the simulated driver and the gateway clock of the Real one: timestamps are predictable. */
export const testNow = (): number => Date.UTC(2024, 4, 17, 8, 30, 0, 250);

/** A connected target of `driver` over a fresh simulated PLC running `program` (files in memory or `files`). */
export async function startTestPlc(
  id: string,
  driver: TestDriver = 'simulated',
  program: Program = richProgram(),
  clock: () => number = testNow,
  files?: FileStore,
): Promise<TestPlc> {
  const plc = new SimulatedPlc(program, { clock, ...(files ? { files } : {}) });
  return driver === 'simulated' ? startSimulated(id, plc) : startReal(id, plc);
}

async function startSimulated(id: string, plc: SimulatedPlc): Promise<TestPlc> {
  const target = new SimulatedTarget(id, id, plc);
  await target.start();
  return {
    driver: 'simulated',
    target,
    plc,
    disconnect: () => Promise.resolve(target.disconnect()),
    reconnect: () => Promise.resolve(target.reconnect()),
    close: () => target.close(),
  };
}

// Short reconnect backoff so a restarted server is found quickly; timeouts generous for a busy machine.
const realTuning = { backoff: { baseMs: 10, capMs: 100 }, now: testNow };

async function startReal(id: string, plc: SimulatedPlc): Promise<TestPlc> {
  const plant = await startPlant(plc);
  const config = testConfig({ AmsRouter: { NetId: '127.0.0.1.1.20', LocalAdsPort: 32750 } });
  const settings = realSettings(plant.port, { DisplayName: id, TimeoutMs: 3000 });
  const target = createAdsTarget(id, settings, { config }, realTuning);
  await target.start();
  await stateChange(target, (s) => s === 'Connected', 'connect');
  let running = true;
  const disconnect = async (): Promise<void> => {
    if (!running) return;
    const lost = stateChange(target, (s) => s !== 'Connected', 'notice the dropped connection');
    await plant.stop();
    running = false;
    await lost;
  };
  return {
    driver: 'real',
    target,
    plc,
    disconnect,
    reconnect: async () => {
      await disconnect();
      const connected = stateChange(target, (s) => s === 'Connected', 'reconnect');
      await plant.restart();
      running = true;
      await connected;
    },
    close: async () => {
      await target.close();
      if (running) await plant.stop();
      running = false;
    },
  };
}

/** Resolves when the target's state satisfies `want` (at once if it does already); fails after a bound. */
function stateChange(
  target: PlcTarget,
  want: (state: ConnectionState) => boolean,
  what: string,
  limitMs = 10_000,
): Promise<void> {
  if (want(target.connectionState())) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(new Error(`the target did not ${what} within ${limitMs} ms (is ${target.connectionState()})`));
    }, limitMs);
    const off = target.onConnectionState((state) => {
      if (!want(state)) return;
      clearTimeout(timer);
      off();
      resolve();
    });
  });
}

/** Types used by the rich program; `enumMembers` is the E_Mode declaration tests compare against. */
export const modeMembers = [
  { name: 'eOff', value: -5 },
  { name: 'eIdle', value: 0 },
  { name: 'eRun', value: 10 },
  { name: 'eDone', value: 12 },
];

export function richBuilder(modes = modeMembers): ProgramBuilder {
  const b = new ProgramBuilder();
  b.enum('E_Mode', modes);
  b.enum(
    'E_Small',
    [
      { name: 'A', value: 3 },
      { name: 'B', value: 1 },
    ],
    'USINT',
  );
  b.struct('ST_Axis', [
    { name: 'sId', type: 'STRING(15)', comment: 'Axis name' },
    { name: 'rPosition', type: 'LREAL', comment: 'Actual position' },
    { name: 'bEnabled', type: 'BOOL' },
    { name: 'eMode', type: 'E_Mode' },
  ]);
  b.struct('ST_Nested', [
    { name: 'stAxis', type: 'ST_Axis' },
    { name: 'aValues', type: 'ARRAY [1..3] OF INT' },
    { name: 'aGrid', type: 'ARRAY [0..1, 0..1] OF BOOL' },
  ]);
  b.functionBlock(
    'FB_Counter',
    [{ name: 'nCount', type: 'DINT' }],
    [
      {
        name: 'Add',
        returnType: 'DINT',
        parameters: [
          { name: 'nBy', type: 'DINT' },
          { name: 'nBefore', type: 'DINT', direction: 'out' },
        ],
        implementation: ({ plc, instancePath }, { nBy }) => {
          const before = plc.read(`${instancePath}.nCount`) as number;
          const after = before + (nBy as number);
          plc.write(`${instancePath}.nCount`, after);
          return { returnValue: after, outputs: { nBefore: before } };
        },
      },
      {
        name: 'Reset',
        returnType: null,
        implementation: ({ plc, instancePath }) => {
          plc.write(`${instancePath}.nCount`, 0);
          return { returnValue: null };
        },
      },
      {
        name: 'Describe',
        returnType: 'STRING(40)',
        parameters: [
          { name: 'sPrefix', type: 'STRING(10)' },
          { name: 'eMode', type: 'E_Mode' },
        ],
        implementation: ({ plc, instancePath }, { sPrefix, eMode }) => ({
          returnValue: `${sPrefix as string}:${modes.find((m) => m.value === eMode)?.name ?? '?'}:${plc.read(`${instancePath}.nCount`) as number}`,
        }),
      },
    ],
  );
  const g = 'GVL_Test';
  b.symbol(`${g}.bFlag`, 'BOOL', { comment: 'A flag' });
  for (const t of [
    'SINT',
    'USINT',
    'INT',
    'UINT',
    'DINT',
    'UDINT',
    'LINT',
    'ULINT',
    'LWORD',
    'REAL',
    'LREAL',
    'BOOL',
  ]) {
    b.symbol(`${g}.v${t}`, t);
  }
  b.symbol(`${g}.sText`, 'STRING(10)', { value: 'hello' });
  b.symbol(`${g}.wsText`, 'WSTRING(10)');
  b.symbol(`${g}.tTime`, 'TIME');
  b.symbol(`${g}.dDate`, 'DATE');
  b.symbol(`${g}.dtStamp`, 'DT');
  b.symbol(`${g}.todTime`, 'TOD');
  b.symbol(`${g}.eMode`, 'E_Mode', { value: 0 });
  b.symbol(`${g}.stAxis`, 'ST_Axis', { value: { sId: 'X', rPosition: 1.5, bEnabled: true, eMode: 10 } });
  b.symbol(`${g}.aInts`, 'ARRAY [1..5] OF INT', { value: [1, 2, 3, 4, 5] });
  b.symbol(`${g}.stNested`, 'ST_Nested');
  b.symbol('GVL_HMI.aAxes', 'ARRAY [1..4] OF ST_Axis', { comment: 'The axes' });
  b.symbol('GVL_HMI.fbCounter', 'FB_Counter');
  b.symbol('GVL_HMI.aCounters', 'ARRAY [1..2] OF FB_Counter');
  return b;
}

export function richProgram(modes = modeMembers): Program {
  return richBuilder(modes).build();
}

/** A target whose every PLC operation fails with `code` (ADS_ERROR, ADS_TIMEOUT, ...), as a failing driver would. */
export function failingTarget(id: string, code: ErrorCode): PlcTarget {
  const fail = (): Promise<never> => Promise.reject(new AppError(code, `${code} from the driver`));
  return Object.assign(new FakeTarget(id), {
    deviceInfo: fail,
    deviceState: fail,
    symbols: fail,
    enumMembers: fail,
    read: fail,
    readMany: fail,
    write: fail,
    writeMany: fail,
    invoke: fail,
    setAdsState: fail,
    files: { read: fail, openRead: fail, write: fail, list: fail },
  });
}

/** The two PLC-side failures every feature test answers besides its own PLCs. */
export function failingTargets(): PlcTarget[] {
  return [failingTarget('ads-err', 'ADS_ERROR'), failingTarget('ads-slow', 'ADS_TIMEOUT')];
}

export interface FeatureApp {
  sim: TestPlc;
  app: FastifyInstance;
  call: Call;
  close(): Promise<void>;
}

/** A test PLC `sim1` on `driver` and the failing targets behind the real app, with a full-access caller. */
export async function startFeatureApp(
  driver: TestDriver,
  options: Omit<TestAppOptions, 'targets'> = {},
): Promise<FeatureApp> {
  const sim = await startTestPlc('sim1', driver);
  const app = await buildTestApp({ ...options, targets: [sim.target, ...failingTargets()] });
  return {
    sim,
    app,
    call: await caller(app),
    close: async () => {
      await app.close();
      await sim.close();
    },
  };
}

export type Call = (
  method: 'GET' | 'PUT' | 'POST',
  url: string,
  payload?: unknown,
) => Promise<LightMyRequestResponse>;

/** Requests on `app` with a token carrying `claims` (default: admin, every scope, every PLC). */
export async function caller(app: FastifyInstance, claims: Record<string, unknown> = {}): Promise<Call> {
  const headers = bearer(await mintToken(claims));
  return (method, url, payload) =>
    app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as object }) });
}
