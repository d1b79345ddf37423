// Per-subscription options through the real streams on both drivers (the in-process simulated target, and a Real
// target over ADS to sim-ads), driven by sim/step with a PLC clock the test moves: clients on one symbol with
// different cycles and deadbands each get what they asked for and share the PLC notifications they can; cyclic
// sends the unchanged value every cycle; maxIntervalMs resends it; the spec's forms stay as they were.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { HttpTransportType, HubConnectionBuilder, LogLevel } from '@microsoft/signalr';
import { MessagePackHubProtocol } from '@microsoft/signalr-protocol-msgpack';
import type { FastifyInstance } from 'fastify';
import { createAdsTarget } from '../../../src/targets/ads/index.ts';
import { createSimulatedTarget, type SimulatedTarget } from '../../../src/targets/simulated/index.ts';
import type { PlcTarget } from '../../../src/targets/target.ts';
import { buildTestApp } from '../../helpers/app.ts';
import { testConfig } from '../../helpers/config.ts';
import { Signal } from '../../helpers/signal.ts';
import { bearer, mintToken } from '../../helpers/tokens.ts';
import { contractSettings } from '../../contract/fixture.ts';
import { ProgramBuilder } from '../../../src/simulator/engine/index.ts';
import {
  authHeaders,
  countingTarget,
  RawSse,
  sseUrl,
  startStreamApp,
  waitLimitMs,
  type SseEvent,
  type StreamApp,
} from './clients.ts';
import { realSettings, reach, startPlant, type Plant } from '../../targets/ads/harness.ts';
import { testDrivers, type TestDriver } from '../variables/fixture.ts';
import { scenarioDoc, writeScenario } from '../../simulator/scenario/helpers.ts';

const scenario = writeScenario(scenarioDoc({ scanMs: 100 }));
/** Moves every scan while the axis travels to its target. */
const moving = 'GVL_HMI.aAxes[1].rPosition';
/** No axis 2 is configured: it stays 0. */
const still = 'GVL_HMI.aAxes[2].rPosition';

interface Rig {
  app: FastifyInstance;
  base: string;
  token: string;
  /** The plcId sim/step drives: the PLC itself, or (Real driver) the in-process twin sim-ads serves. */
  simId: string;
  /** The subscriptions the gateway holds on line1's target. */
  target: PlcTarget & { open: number };
  /** Notifications the PLC holds (sim-ads' registrations; the simulated PLC's watches). */
  plcNotifications(): number;
  /** Moves the PLC clock. */
  advance(ms: number): void;
  close(): Promise<void>;
}

async function startRig(driver: TestDriver): Promise<Rig> {
  let t = Date.UTC(2026, 10, 28, 8, 0, 0);
  const plantId = driver === 'real' ? 'plant' : 'line1';
  const plant: SimulatedTarget = await createSimulatedTarget(
    plantId,
    contractSettings({ InitialValues: {}, Scenario: scenario }),
    { config: testConfig(), clock: () => t },
  );
  await plant.start();
  let server: Plant | undefined;
  let line1: PlcTarget = plant;
  if (driver === 'real') {
    server = await startPlant(plant.plc);
    const config = testConfig({ AmsRouter: { NetId: '127.0.0.1.1.20', LocalAdsPort: 32750 } });
    line1 = createAdsTarget('line1', realSettings(server.port, { TimeoutMs: 3000 }), { config });
    await line1.start();
    await reach(line1, 'Connected', 10_000);
  }
  const target = countingTarget(line1);
  const app = await buildTestApp({
    targets: driver === 'real' ? [target, plant] : [target],
    settings: {
      Features: { Simulation: true, Notifications: true, Variables: true },
      Notifications: { MinResendIntervalMs: 100 },
      RateLimiting: { NotificationConnections: 1000 },
    },
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    app,
    base: `http://127.0.0.1:${port}`,
    token: await mintToken(),
    simId: plantId,
    target,
    plcNotifications: () => server?.server.stats().notifications ?? plant.plc.watchCount,
    advance: (ms) => void (t += ms),
    close: async () => {
      await app.close();
      if (line1 !== plant) await line1.close();
      await plant.close();
      await server?.stop();
    },
  };
}

interface Change {
  symbol: string;
  value: number;
  timestamp: string;
}

const changes = (c: RawSse, symbol: string): number[] =>
  c.events
    .filter((e) => e.event === 'change' && (e.data as Change).symbol === symbol)
    .map((e) => (e.data as Change).value);

/** What a client with `deadband` gets of `values`: each at least the deadband away from the last one sent. */
function throughDeadband(values: readonly number[], deadband: number): number[] {
  const out: number[] = [];
  for (const v of values) {
    const last = out.at(-1);
    if (last === undefined || Math.abs(v - last) >= deadband) out.push(v);
  }
  return out;
}

for (const driver of testDrivers) {
  describe(`per-subscription options on the streams (${driver} driver)`, () => {
    let rig: Rig;
    before(async () => {
      rig = await startRig(driver);
    });
    after(async () => {
      await rig.close();
    });

    const step = async (cycles: number): Promise<void> => {
      const res = await rig.app.inject({
        method: 'POST',
        url: `/api/plcs/${rig.simId}/sim/step?cycles=${cycles}`,
        headers: bearer(rig.token),
      });
      assert.equal(res.statusCode, 200, res.body);
    };
    const reset = async (): Promise<void> => {
      const res = await rig.app.inject({
        method: 'POST',
        url: `/api/plcs/${rig.simId}/sim/reset`,
        headers: bearer(rig.token),
      });
      assert.equal(res.statusCode, 200, res.body);
    };
    const current = async (path: string): Promise<number> => {
      const res = await rig.app.inject({
        url: `/api/plcs/line1/variables/${encodeURIComponent(path)}`,
        headers: bearer(rig.token),
      });
      return res.json<{ data: { value: number } }>().data.value;
    };
    const open = (symbols: readonly string[], query = ''): Promise<RawSse> => {
      const q = symbols.map((s) => `symbols=${encodeURIComponent(s)}`).join('&');
      const url = `${rig.base}/api/plcs/line1/notifications/sse?${q}${query ? `&${query}` : ''}`;
      return new RawSse(url, bearer(rig.token)).opened();
    };
    const valueOf = (symbol: string, value: number) => (e: SseEvent) =>
      e.event === 'change' && (e.data as Change).symbol === symbol && (e.data as Change).value === value;

    test('two clients with different cycles and deadbands get what each asked for; equal ones share', async () => {
      await reset();
      const baseline = { gateway: rig.target.open, plc: rig.plcNotifications() };
      // A and D ask for the same cycle and mode: one notification; B a slower cycle: its own.
      const a = await open([moving], 'cycleMs=100&deadband=10');
      const d = await open([moving], 'cycleMs=100');
      const b = await open([moving], 'cycleMs=200');
      try {
        const start = await current(moving);
        for (const c of [a, b, d]) await c.next(valueOf(moving, start));
        assert.deepEqual((await a.next((e) => e.event === 'subscribed')).data, {
          symbols: [moving],
          options: { cycleMs: 100, mode: 'on-change', deadband: 10, maxIntervalMs: 0 },
        });
        assert.equal(rig.target.open - baseline.gateway, 2);
        assert.equal(rig.plcNotifications() - baseline.plc, 2);
        // One scan per step, the PLC clock a cycle on: every client's notification is due each step (B's
        // slower one reports at the step's end, as every differing one does).
        for (let i = 0; i < 12; i++) {
          rig.advance(100);
          await step(1);
          const now = await current(moving);
          await d.next(valueOf(moving, now));
          await b.next(valueOf(moving, now));
        }
        const seen = changes(d, moving);
        assert.ok(seen.length >= 10, `the axis moved: ${JSON.stringify(seen)}`);
        assert.deepEqual(changes(b, moving), seen);
        // A's changes are decided in the same delivery as D's (the one notification they share).
        const expected = throughDeadband(seen, 10);
        assert.ok(expected.length >= 2 && expected.length < seen.length, JSON.stringify(expected));
        await a.next(valueOf(moving, expected.at(-1) as number));
        assert.deepEqual(changes(a, moving), expected);
      } finally {
        for (const c of [a, b, d]) c.close();
      }
    });

    test('cyclic: the unchanged value every cycle, while on-change sends it once', async () => {
      await reset();
      const cyclic = await open([still], 'cycleMs=100&mode=cyclic');
      const onChange = await open([still, moving], 'cycleMs=100');
      try {
        await cyclic.next(valueOf(still, 0));
        await onChange.next(valueOf(still, 0));
        for (let i = 1; i <= 3; i++) {
          rig.advance(100);
          await step(1);
          // The moving symbol marks the step's end on the on-change stream.
          await onChange.next(valueOf(moving, await current(moving)));
          await cyclic.next((e) => changes(cyclic, still).length > i && e.event === 'change');
        }
        assert.ok(changes(cyclic, still).every((v) => v === 0));
        assert.deepEqual(changes(onChange, still), [0]);
      } finally {
        cyclic.close();
        onChange.close();
      }
    });

    test('maxIntervalMs: the unchanged value is sent again; a client without it gets it once', async () => {
      await reset();
      const resending = await open([still, moving], 'cycleMs=100&maxIntervalMs=100');
      const plain = await open([still, moving], 'cycleMs=100');
      try {
        await plain.next(valueOf(still, 0));
        await resending.next(valueOf(still, 0));
        // Three resends, on the gateway's clock.
        const resends = await resending.next(() => changes(resending, still).length >= 4);
        assert.ok(resends);
        const stamps = resending.events
          .filter((e) => e.event === 'change' && (e.data as Change).symbol === still)
          .map((e) => Date.parse((e.data as Change).timestamp));
        assert.ok(
          stamps.slice(2).every((s, i) => s - (stamps[i + 1] as number) >= 99),
          `resends at least maxIntervalMs apart: ${JSON.stringify(stamps)}`,
        );
        rig.advance(100);
        await step(1);
        await plain.next(valueOf(moving, await current(moving)));
        assert.deepEqual(changes(plain, still), [0]);
      } finally {
        resending.close();
        plain.close();
      }
    });

    for (const protocol of ['json', 'messagepack'] as const) {
      test(`hub (${protocol}): Subscribe(symbols, options) confirms with the options; Subscribe(symbols) keeps the spec's form`, async () => {
        await reset();
        const confirmed: unknown[][] = [];
        const values: Array<{ symbol: string; value: unknown }> = [];
        const signal = new Signal();
        let builder = new HubConnectionBuilder()
          .withUrl(`${rig.base}/api/plcs/line1/notifications/ws`, {
            accessTokenFactory: () => rig.token,
            transport: HttpTransportType.WebSockets,
          })
          .configureLogging(LogLevel.None);
        if (protocol === 'messagepack') builder = builder.withHubProtocol(new MessagePackHubProtocol());
        const connection = builder.build();
        connection.on('SubscriptionConfirmed', (...args: unknown[]) => {
          confirmed.push(args);
          signal.notify();
        });
        connection.on('VariableChanged', (e: { symbol: string; value: unknown }) => {
          values.push(e);
          signal.notify();
        });
        await connection.start();
        try {
          assert.deepEqual(await connection.invoke('Subscribe', [still]), [still]);
          assert.deepEqual(await connection.invoke('Subscribe', [moving], { cycleMs: 200, deadband: 0.5 }), [
            moving,
          ]);
          await signal.until(
            () => (confirmed.length >= 2 ? true : undefined),
            waitLimitMs,
            () => 'confirmations',
          );
          assert.deepEqual(confirmed, [
            [[still]],
            [[moving], { cycleMs: 200, mode: 'on-change', deadband: 0.5, maxIntervalMs: 0 }],
          ]);
          await assert.rejects(
            connection.invoke('Subscribe', [moving], { cycleMs: 5 }),
            /CYCLE_TIME_OUT_OF_RANGE/,
          );
          await assert.rejects(
            connection.invoke('Subscribe', ['GVL_HMI.aParts[1]'], { deadband: 1 }),
            /DEADBAND_NOT_NUMERIC/,
          );
          await assert.rejects(
            connection.invoke('Subscribe', [moving], { every: 5 }),
            /SUBSCRIPTION_OPTIONS_INVALID/,
          );
          await signal.until(
            () => values.find((v) => v.symbol === moving),
            waitLimitMs,
            () => `VariableChanged after ${JSON.stringify(values)}`,
          );
        } finally {
          await connection.stop();
        }
      });
    }
  });
}

describe('subscription option bounds, at their edges (SSE query parameters)', () => {
  let s: StreamApp;
  before(async () => {
    const b = new ProgramBuilder();
    b.symbol('MAIN.nA', 'DINT', { value: 1 });
    b.symbol('MAIN.fSpeed', 'LREAL', { value: 0.5 });
    b.symbol('MAIN.nBig', 'LINT', { value: 5 });
    b.symbol('MAIN.bRun', 'BOOL', { value: true });
    b.symbol('MAIN.sName', 'STRING(20)', { value: 'x' });
    s = await startStreamApp('simulated', {
      program: b.build(),
      settings: {
        Notifications: {
          MinCycleTimeMs: 20,
          MaxCycleTimeMs: 1000,
          MaxResendIntervalMs: 5000,
          MinResendIntervalMs: 150,
        },
        RateLimiting: { NotificationConnections: 1000 },
        ConnectionLimits: { MaxPerUser: 100 },
      },
    });
  });
  after(async () => {
    await s.close();
  });

  /** Opens a stream with `query`: its status, and the error code or the `subscribed` options. */
  async function attempt(query: string, symbols = ['MAIN.fSpeed']): Promise<string | object> {
    const c = await new RawSse(`${sseUrl(s.base, symbols)}&${query}`, authHeaders(s.token)).opened();
    try {
      if (c.status !== 200) return `${c.status} ${(await c.json()).error?.code}`;
      const subscribed = await c.next((e) => e.event === 'subscribed');
      return (subscribed.data as { options: object }).options;
    } finally {
      c.close();
    }
  }
  const options = (o: object) => ({ cycleMs: 100, mode: 'on-change', deadband: 0, maxIntervalMs: 0, ...o });

  test('cycleMs: MinCycleTimeMs - 1 and MaxCycleTimeMs + 1 are 400 CYCLE_TIME_OUT_OF_RANGE; the bounds open', async () => {
    assert.equal(await attempt('cycleMs=19'), '400 CYCLE_TIME_OUT_OF_RANGE');
    assert.deepEqual(await attempt('cycleMs=20'), options({ cycleMs: 20 }));
    assert.deepEqual(await attempt('cycleMs=1000'), options({ cycleMs: 1000 }));
    assert.equal(await attempt('cycleMs=1001'), '400 CYCLE_TIME_OUT_OF_RANGE');
    assert.equal(await attempt('cycleMs=20.5'), '400 SUBSCRIPTION_OPTIONS_INVALID');
    // Absent: DefaultCycleTimeMs.
    assert.deepEqual(await attempt('mode=on-change'), options({}));
  });

  test('cycleMs is revised down onto the cycle ladder (20, 50, 100, 200, 500, 1000 here): N - 1 and N', async () => {
    assert.deepEqual(await attempt('cycleMs=49'), options({ cycleMs: 20 }));
    assert.deepEqual(await attempt('cycleMs=50'), options({ cycleMs: 50 }));
    assert.deepEqual(await attempt('cycleMs=999'), options({ cycleMs: 500 }));
    // The longest interval is held to the revised cycle.
    assert.deepEqual(
      await attempt('cycleMs=210&maxIntervalMs=200'),
      options({ cycleMs: 200, maxIntervalMs: 200 }),
    );
  });

  test('distinct cycles asked on one symbol share the ladder step they revise to: one target subscription', async () => {
    const before = s.target.opened;
    const streams: RawSse[] = [];
    try {
      // 20..49 ms: thirty distinct requests, one step (20) on the ladder; 50 opens the next step.
      for (let cycle = 20; cycle <= 50; cycle++) {
        const c = await new RawSse(
          `${sseUrl(s.base, ['MAIN.nA'])}&cycleMs=${cycle}`,
          authHeaders(s.token),
        ).opened();
        streams.push(c);
        assert.equal(c.status, 200);
        await c.next((e) => e.event === 'change');
      }
      assert.equal(s.target.opened - before, 2);
    } finally {
      for (const c of streams) c.close();
    }
  });

  test('maxIntervalMs: 0, the larger of the cycle and MinResendIntervalMs, and MaxResendIntervalMs open; one below and the maximum + 1 are 400', async () => {
    assert.deepEqual(await attempt('maxIntervalMs=0'), options({}));
    // MinResendIntervalMs (150) above the cycle (100): the floor.
    assert.equal(await attempt('cycleMs=100&maxIntervalMs=149'), '400 SUBSCRIPTION_OPTIONS_INVALID');
    assert.deepEqual(await attempt('cycleMs=100&maxIntervalMs=150'), options({ maxIntervalMs: 150 }));
    // The cycle (200) above it: the cycle.
    assert.equal(await attempt('cycleMs=200&maxIntervalMs=199'), '400 SUBSCRIPTION_OPTIONS_INVALID');
    assert.deepEqual(
      await attempt('cycleMs=200&maxIntervalMs=200'),
      options({ cycleMs: 200, maxIntervalMs: 200 }),
    );
    assert.deepEqual(await attempt('maxIntervalMs=5000'), options({ maxIntervalMs: 5000 }));
    assert.equal(await attempt('maxIntervalMs=5001'), '400 SUBSCRIPTION_OPTIONS_INVALID');
    assert.equal(await attempt('maxIntervalMs=-1'), '400 SUBSCRIPTION_OPTIONS_INVALID');
  });

  test('deadband: 0 and above open, below 0 is 400; mode is on-change or cyclic; cyclic takes neither filter', async () => {
    assert.deepEqual(await attempt('deadband=0'), options({}));
    assert.deepEqual(await attempt('deadband=0.001'), options({ deadband: 0.001 }));
    assert.equal(await attempt('deadband=-0.001'), '400 SUBSCRIPTION_OPTIONS_INVALID');
    assert.deepEqual(await attempt('mode=cyclic'), options({ mode: 'cyclic' }));
    assert.equal(await attempt('mode=sometimes'), '400 SUBSCRIPTION_OPTIONS_INVALID');
    assert.equal(await attempt('mode=cyclic&deadband=1'), '400 SUBSCRIPTION_OPTIONS_INVALID');
    assert.equal(await attempt('mode=cyclic&maxIntervalMs=1000'), '400 SUBSCRIPTION_OPTIONS_INVALID');
  });

  test('a deadband on BOOL or STRING is 400 DEADBAND_NOT_NUMERIC before the stream opens; numbers of any width take one', async () => {
    const opened = s.target.opened;
    assert.equal(await attempt('deadband=1', ['MAIN.fSpeed', 'MAIN.bRun']), '400 DEADBAND_NOT_NUMERIC');
    assert.equal(await attempt('deadband=1', ['MAIN.sName']), '400 DEADBAND_NOT_NUMERIC');
    // Refused before anything was subscribed.
    assert.equal(s.target.opened, opened);
    assert.deepEqual(
      await attempt('deadband=1', ['MAIN.nA', 'MAIN.nBig', 'MAIN.fSpeed']),
      options({ deadband: 1 }),
    );
  });

  test("without options, `subscribed` is the spec's { symbols }", async () => {
    const c = await new RawSse(sseUrl(s.base, ['MAIN.nA']), authHeaders(s.token)).opened();
    try {
      assert.deepEqual((await c.next((e) => e.event === 'subscribed')).data, { symbols: ['MAIN.nA'] });
    } finally {
      c.close();
    }
  });
});

describe('Notifications.MaxSubscriptionsPerUser: distinct (symbol, cycle, mode) per user on a PLC, at its edge', () => {
  let s: StreamApp;
  before(async () => {
    const b = new ProgramBuilder();
    for (const name of ['nA', 'nB', 'nC', 'nD', 'nE']) b.symbol(`MAIN.${name}`, 'DINT', { value: 1 });
    s = await startStreamApp('simulated', {
      program: b.build(),
      settings: {
        Notifications: { MaxSubscriptionsPerUser: 4 },
        RateLimiting: { NotificationConnections: 1000 },
      },
    });
  });
  after(async () => {
    await s.close();
  });

  async function attempt(symbols: string[], query = '', token = s.token): Promise<RawSse | string> {
    const c = await new RawSse(`${sseUrl(s.base, symbols)}${query}`, authHeaders(token)).opened();
    if (c.status === 200) {
      await c.next((e) => e.event === 'subscribed');
      return c;
    }
    const code = `${c.status} ${(await c.json()).error?.code}`;
    c.close();
    return code;
  }

  test('SSE and hub: N distinct open across one user’s streams, N + 1 is 400; shared keys count once; others keep theirs', async () => {
    const open: RawSse[] = [];
    const keep = (r: RawSse | string): RawSse => {
      assert.ok(typeof r !== 'string', typeof r === 'string' ? `refused: ${r}` : 'opened');
      open.push(r);
      return r;
    };
    const other = await mintToken({ sub: 'someone-else' });
    const connection = new HubConnectionBuilder()
      .withUrl(`${s.base}/api/plcs/plc1/notifications/ws`, {
        accessTokenFactory: () => other,
        transport: HttpTransportType.WebSockets,
      })
      .configureLogging(LogLevel.None)
      .build();
    try {
      keep(await attempt(['MAIN.nA', 'MAIN.nB'])); // 2
      keep(await attempt(['MAIN.nA'], '&cycleMs=20')); // 3: another cycle is another subscription
      keep(await attempt(['MAIN.nA', 'MAIN.nB'])); // still 3: the same keys, held again
      // Cycles revised onto one ladder step are one key.
      keep(await attempt(['MAIN.nA'], '&cycleMs=25')); // still 3
      assert.equal(await attempt(['MAIN.nC', 'MAIN.nD']), '400 SUBSCRIPTION_LIMIT_EXCEEDED'); // 5
      keep(await attempt(['MAIN.nC'])); // 4 = N
      assert.equal(await attempt(['MAIN.nD']), '400 SUBSCRIPTION_LIMIT_EXCEEDED'); // N + 1
      assert.equal(await attempt(['MAIN.nA'], '&mode=cyclic'), '400 SUBSCRIPTION_LIMIT_EXCEEDED');
      // Another user has a quota of its own.
      keep(await attempt(['MAIN.nD', 'MAIN.nE'], '', other));
      // The hub counts against the same quota (the other user's here: 2 held by its stream).
      await connection.start();
      assert.deepEqual(await connection.invoke('Subscribe', ['MAIN.nA', 'MAIN.nB']), ['MAIN.nA', 'MAIN.nB']); // 4
      await assert.rejects(connection.invoke('Subscribe', ['MAIN.nC']), /SUBSCRIPTION_LIMIT_EXCEEDED/); // 5
      // Moving a held symbol to other options counts it once, as its new key: 4 stays 4.
      assert.deepEqual(await connection.invoke('Subscribe', ['MAIN.nA'], { cycleMs: 20 }), ['MAIN.nA']);
      // A key the same user's stream holds is not moved away by the hub: nD at 20 ms would be a fifth.
      await assert.rejects(
        connection.invoke('Subscribe', ['MAIN.nD'], { cycleMs: 20 }),
        /SUBSCRIPTION_LIMIT_EXCEEDED/,
      );
      // A released subscription frees its place.
      assert.deepEqual(await connection.invoke('Unsubscribe', ['MAIN.nA']), ['MAIN.nB']);
      assert.deepEqual(await connection.invoke('Subscribe', ['MAIN.nC']), ['MAIN.nC']);
    } finally {
      await connection.stop();
      for (const c of open) c.close();
    }
  });
});
