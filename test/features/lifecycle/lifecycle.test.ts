// Lifecycle through HTTP on both drivers: start, stop and reset with the state read back, the scan halting
// and resuming, the Lifecycle limit at the edge of its window (injected clock), partitioning by PLC, the
// policy, ADS refusals and the flag.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildTestApp } from '../../helpers/app.ts';
import { FakeTarget } from '../../helpers/fake-target.ts';
import { caller, failingTarget, testDrivers, type Call } from '../variables/fixture.ts';
import { startLine, type Line } from './fixture.ts';

const errorMessage = (res: { json(): unknown }): string =>
  (res.json() as { error: { message: string } }).error.message;

const window = 5000;

for (const driver of testDrivers) {
  describe(`lifecycle routes (${driver})`, () => {
    let line: Line;
    let other: FakeTarget;
    let app: FastifyInstance;
    let call: Call;
    let t = 10_000_000;

    before(async () => {
      line = await startLine('line', driver);
      other = new FakeTarget('other');
      app = await buildTestApp({
        targets: [line.target, other, failingTarget('ads-err', 'ADS_ERROR')],
        settings: { Features: { Lifecycle: true } },
        now: () => t,
      });
      call = await caller(app);
    });
    after(async () => {
      await app.close();
      await line.close();
    });

    /** Sends a command after the previous window has passed. */
    const command = async (name: string, plcId = 'line', as: Call = call) => {
      t += window;
      return as('POST', `/api/plcs/${plcId}/lifecycle/${name}`);
    };
    const adsState = async () =>
      (await call('GET', '/api/plcs/line/device/state')).json().data.state as string;

    test('start, stop and reset answer the ADS state read back; device/state and /status follow', async () => {
      const steps: Array<[string, string]> = [
        ['stop', 'Stop'],
        ['start', 'Run'],
        ['reset', 'Stop'],
        ['start', 'Run'],
      ];
      for (const [name, state] of steps) {
        const res = await command(name);
        assert.equal(res.statusCode, 200, res.body);
        assert.deepEqual(res.json(), { data: { adsState: state }, error: null });
        assert.equal(line.plc.adsState, state);
        assert.equal(await adsState(), state);
        assert.equal((await call('GET', '/api/plcs/line/status')).json().data.adsState, state);
      }
    });

    test('stop halts a running simulation’s scan and start resumes it', async () => {
      const { simulation, timer } = line;
      const scanMs = simulation.state().scanMs;
      simulation.run();
      try {
        timer.advance(scanMs * 3);
        const running = simulation.state().cycleCount;
        assert.ok(running >= 3, `scanned ${running}`);
        assert.equal((await command('stop')).json().data.adsState, 'Stop');
        timer.advance(scanMs * 20);
        assert.equal(simulation.state().cycleCount, running, 'no scan while the PLC is stopped');
        assert.equal(simulation.state().state, 'Running');
        simulation.pause();
        assert.throws(() => simulation.step(1), /stopped/);
        simulation.run();
        timer.advance(scanMs * 5);
        assert.equal(simulation.state().cycleCount, running);
        assert.equal((await command('start')).json().data.adsState, 'Run');
        timer.advance(scanMs * 2);
        assert.equal(simulation.state().cycleCount, running + 2);
      } finally {
        simulation.pause();
      }
    });

    test('the Lifecycle limit: one request per 5 s per PLC, sliding, whoever sends it; other PLCs unaffected', async () => {
      const someoneElse = await caller(app, { sub: 'another-admin' });
      t += window;
      const t0 = t;
      assert.equal((await call('POST', '/api/plcs/line/lifecycle/stop')).statusCode, 200);

      t = t0 + 1000;
      const late = await someoneElse('POST', '/api/plcs/line/lifecycle/start');
      assert.equal(late.statusCode, 429);
      assert.equal(late.json().error.code, 'RATE_LIMITED');
      assert.equal(late.headers['retry-after'], '4');
      const reset = await call('POST', '/api/plcs/line/lifecycle/reset');
      assert.equal(reset.statusCode, 429, 'the three routes share the window');
      // Another PLC has a window of its own.
      assert.equal((await someoneElse('POST', '/api/plcs/other/lifecycle/stop')).statusCode, 200);
      assert.equal(other.adsState, 'Stop');

      t = t0 + window - 1;
      const edge = await call('POST', '/api/plcs/line/lifecycle/start');
      assert.equal(edge.statusCode, 429);
      assert.equal(edge.headers['retry-after'], '1');
      assert.equal(await adsState(), 'Stop', 'refused requests change nothing');

      t = t0 + window;
      const open = await someoneElse('POST', '/api/plcs/line/lifecycle/start');
      assert.equal(open.statusCode, 200, open.body);
      assert.equal(open.json().data.adsState, 'Run');
      // The window slides from the last accepted request, not from a fixed boundary.
      t = t0 + 2 * window - 1;
      assert.equal((await call('POST', '/api/plcs/line/lifecycle/stop')).statusCode, 429);
    });

    test('policy: admin without ads:lifecycle, or ads:lifecycle without admin, is 403 and spends nothing', async () => {
      t += window;
      const refusals = [
        await caller(app, { role: 'admin', scope: 'ads:read ads:write' }),
        await caller(app, { role: 'operator', scope: 'ads:read ads:write ads:lifecycle' }),
        await caller(app, { role: 'viewer', scope: 'ads:lifecycle' }),
      ];
      for (const as of refusals) {
        for (const name of ['start', 'stop', 'reset']) {
          const res = await as('POST', `/api/plcs/line/lifecycle/${name}`);
          assert.equal(res.statusCode, 403);
          assert.equal(res.json().error.code, 'FORBIDDEN');
        }
      }
      const denied = await (
        await caller(app, { plc_access: ['other'] })
      )('POST', '/api/plcs/line/lifecycle/stop');
      assert.equal(denied.json().error.code, 'PLC_ACCESS_DENIED');
      assert.equal(await adsState(), 'Run');
      const res = await call('POST', '/api/plcs/line/lifecycle/stop');
      assert.equal(res.statusCode, 200, 'the window was not spent by refused requests');
      assert.equal((await command('start')).statusCode, 200);
    });

    test('an ADS refusal is 502 ADS_ERROR and the state stays', async () => {
      if (line.proxy) {
        line.proxy.fault = ({ command: c }) => (c === 5 ? 1796 : undefined);
        try {
          const res = await command('stop');
          assert.equal(res.statusCode, 502, res.body);
          assert.equal(res.json().error.code, 'ADS_ERROR');
          assert.match(errorMessage(res), /1796/);
        } finally {
          line.proxy.fault = undefined;
        }
        assert.equal(await adsState(), 'Run');
      }
      const failing = await command('stop', 'ads-err');
      assert.equal(failing.statusCode, 502);
      assert.equal(failing.json().error.code, 'ADS_ERROR');
      assert.equal((await command('stop', 'nope')).json().error.code, 'PLC_NOT_FOUND');
    });
  });
}

describe('lifecycle flag', () => {
  test('Lifecycle off by default: 501 FEATURE_DISABLED and the PLC is not touched', async () => {
    const target = new FakeTarget('line');
    const app = await buildTestApp({ targets: [target] });
    try {
      const call = await caller(app);
      for (const name of ['start', 'stop', 'reset']) {
        const res = await call('POST', `/api/plcs/line/lifecycle/${name}`);
        assert.equal(res.statusCode, 501);
        assert.equal(res.json().error.code, 'FEATURE_DISABLED');
      }
      assert.equal(target.adsState, 'Run');
    } finally {
      await app.close();
    }
  });
});
