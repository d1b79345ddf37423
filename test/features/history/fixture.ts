// The history test rig: a simulated PLC on a PLC clock the test sets, recorded by the real app into a real store
// (SQLite on a file in a temporary folder, or a PostgreSQL the test started), queried through HTTP.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { ProgramBuilder, SimulatedPlc } from '../../../src/simulator/engine/index.ts';
import { SimulatedTarget } from '../../../src/targets/simulated/index.ts';
import { buildTestApp } from '../../helpers/app.ts';
import type { SettingsOverrides } from '../../helpers/config.ts';
import { Signal } from '../../helpers/signal.ts';
import { bearer, mintToken } from '../../helpers/tokens.ts';

/** Unix ms of the PLC clock at the start of each test: 2026-11-28T10:00:00Z. */
export const t0 = Date.UTC(2026, 10, 28, 10, 0, 0);
export const iso = (ms: number): string => new Date(ms).toISOString();

/** The recorded program; `withTemp: false` is a download without MAIN.fTemp. */
export function historyProgram(
  options: { withTemp?: boolean; retypedCount?: boolean } = {},
): SimulatedPlc['program'] {
  const b = new ProgramBuilder();
  b.struct('ST_Axis', [
    { name: 'rPosition', type: 'LREAL' },
    { name: 'bEnabled', type: 'BOOL' },
  ]);
  b.symbol('GVL_HMI.aAxes', 'ARRAY [0..2] OF ST_Axis');
  if (options.withTemp ?? true) b.symbol('MAIN.fTemp', 'LREAL', { value: 20 });
  b.symbol('MAIN.nBig', 'LINT', { value: '0' });
  b.symbol('MAIN.uBig', 'ULINT', { value: '0' });
  b.symbol('MAIN.bOn', 'BOOL', { value: false });
  b.symbol('MAIN.sText', 'STRING(20)', { value: 'idle' });
  if (options.retypedCount === true) b.symbol('MAIN.nCount', 'LREAL', { value: 2.5 });
  else b.symbol('MAIN.nCount', 'DINT', { value: 0 });
  return b.build();
}

export interface HistoryRig {
  readonly app: FastifyInstance;
  readonly plc: SimulatedPlc;
  readonly target: SimulatedTarget;
  /** The PLC clock (ms); samples carry it. */
  plcTime: number;
  /** The gateway clock (ms). */
  gatewayTime: number;
  get(url: string, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
  /** Writes through the PLC target at PLC time `at` (the notification carries it). */
  write(path: string, value: unknown, at?: number): Promise<void>;
  /** Polls `probe` (async) until it holds. */
  until(probe: () => Promise<boolean>, what: string): Promise<void>;
  /** Closes the app (the PLC stays). */
  closeApp(): Promise<void>;
  /** A new app over the same PLC and store (a gateway restart). */
  restart(): Promise<void>;
  close(): Promise<void>;
}

export interface RigOptions {
  symbols: unknown[];
  /** History settings merged over the rig's (Store, Path, FlushIntervalMs...). */
  history?: Record<string, unknown>;
  settings?: SettingsOverrides;
  /** The folder of the SQLite file; default a new temporary one, removed on close. */
  dir?: string;
  plc?: SimulatedPlc;
  logs?: Array<Record<string, unknown>>;
}

export async function startHistoryRig(options: RigOptions): Promise<HistoryRig> {
  const ownDir = options.dir === undefined;
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'history-'));
  const state = { plcTime: t0, gatewayTime: t0 };
  const plc = options.plc ?? new SimulatedPlc(historyProgram(), { clock: () => state.plcTime });
  const target = new SimulatedTarget('line1', 'line1', plc);
  await target.start();
  const headers = bearer(await mintToken());
  const settings: SettingsOverrides = {
    // Polling queries would spend the default budget on a clock that only the test moves.
    RateLimiting: { HistoryQueries: 1_000_000, GlobalPerUser: 1_000_000 },
    ...options.settings,
    Features: { History: true, ...(options.settings?.Features as object | undefined) },
    History: {
      Path: join(dir, 'history.db'),
      FlushIntervalMs: 10,
      ...options.history,
      Targets: { line1: { Symbols: options.symbols } },
    },
  };
  const logs = options.logs;
  const build = () =>
    buildTestApp({
      targets: [target],
      settings,
      now: () => state.gatewayTime,
      ...(logs
        ? {
            logger: {
              level: 'info',
              stream: {
                write: (line: string) => void logs.push(JSON.parse(line) as Record<string, unknown>),
              },
            },
          }
        : {}),
    });
  let app = await build();
  const rig: HistoryRig = {
    get app() {
      return app;
    },
    plc,
    target,
    get plcTime() {
      return state.plcTime;
    },
    set plcTime(v: number) {
      state.plcTime = v;
    },
    get gatewayTime() {
      return state.gatewayTime;
    },
    set gatewayTime(v: number) {
      state.gatewayTime = v;
    },
    get: (url, extra = {}) => app.inject({ method: 'GET', url, headers: { ...headers, ...extra } }),
    write: async (path, value, at) => {
      if (at !== undefined) state.plcTime = at;
      await target.write(path, value);
    },
    until: async (probe, what) => {
      const signal = new Signal();
      let hit = false;
      const check = (): void =>
        void probe().then(
          (v) => {
            hit = v;
            signal.notify();
          },
          () => signal.notify(),
        );
      const timer = setInterval(check, 10);
      try {
        await signal.until(
          () => hit,
          10_000,
          () => what,
        );
      } finally {
        clearInterval(timer);
      }
    },
    closeApp: () => app.close(),
    restart: async () => {
      app = await build();
    },
    close: async () => {
      await app.close();
      await target.close();
      if (ownDir) rmSync(dir, { recursive: true, force: true });
    },
  };
  return rig;
}

export interface Bucket {
  t: string;
  min: number | string;
  max: number | string;
  first: number | string;
  last: number | string;
  count: number;
}

export interface SeriesBody {
  symbol: string;
  type: string;
  kind: string;
  bucketMs?: number;
  buckets?: Bucket[];
  samples?: Array<{ t: string; value: unknown }>;
  nextCursor?: string;
  gaps: Array<{ from: string; to: string | null; reason: string }>;
}

export function historyUrl(
  symbols: string[],
  from: number,
  to: number,
  extra: Record<string, string | number> = {},
): string {
  const q = new URLSearchParams();
  for (const s of symbols) q.append('symbols', s);
  q.set('from', iso(from));
  q.set('to', iso(to));
  for (const [k, v] of Object.entries(extra)) q.set(k, String(v));
  return `/api/plcs/line1/history?${q.toString()}`;
}

/** The series of one symbol from a query (throws on an error envelope). */
export async function seriesOf(rig: HistoryRig, url: string): Promise<SeriesBody[]> {
  const res = await rig.get(url);
  if (res.statusCode !== 200) throw new Error(`${res.statusCode} ${res.body}`);
  return res.json<{ data: { series: SeriesBody[] } }>().data.series;
}

/** Waits until `symbol` holds `count` samples in [from, to) (raw). */
export async function untilSamples(
  rig: HistoryRig,
  symbol: string,
  count: number,
  from = t0 - 86_400_000,
  to = t0 + 86_400_000 * 365,
): Promise<SeriesBody> {
  let last: SeriesBody | undefined;
  await rig.until(async () => {
    const res = await rig.get(historyUrl([symbol], from, to, { aggregate: 'raw', maxPoints: 10_000 }));
    if (res.statusCode !== 200) return false;
    last = res.json<{ data: { series: SeriesBody[] } }>().data.series[0];
    return (last?.samples?.length ?? 0) >= count;
  }, `${count} samples of ${symbol}`);
  return last!;
}
