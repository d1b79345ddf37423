// The audit trail through HTTP on both drivers: one record per state-changing request (variable writes with old
// and new values, batches, method calls, file uploads, lifecycle, simulation control, and the hooks alarm
// acknowledge and connection termination use), refusals after authentication included, 401/429 and reads not;
// GET /api/admin/audit paging and filtering; the bounded ring and the log lines.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { AuditRecord } from '../../../src/audit/store.ts';
import { AppError } from '../../../src/errors.ts';
import { auditParam, noteAudit } from '../../../src/http/audit-hooks.ts';
import { buildTestApp } from '../../helpers/app.ts';
import { bearer, mintToken } from '../../helpers/tokens.ts';
import { startLine, type Line } from '../lifecycle/fixture.ts';
import {
  caller,
  failingTarget,
  startTestPlc,
  testDrivers,
  type Call,
  type TestPlc,
} from '../variables/fixture.ts';

/** Test-only routes declared the way the alarm and admin areas declare theirs. */
function hookRoutes(app: FastifyInstance): void {
  app.post(
    '/api/plcs/:plcId/test-alarms/:key/acknowledge',
    {
      config: {
        policy: 'WriteAccess',
        plcScoped: true,
        audit: auditParam('alarm.acknowledge', 'key'),
      },
    },
    (request) => {
      const { key } = request.params as { key: string };
      if (key === 'GONE') throw new AppError('ALARM_NOT_FOUND', `Nothing outstanding under ${key}.`);
      return { data: { acknowledged: true }, error: null };
    },
  );
  app.delete(
    '/api/admin/test-connections/:id',
    { config: { policy: 'Admin', audit: auditParam('connection.terminate', 'id') } },
    (request) => {
      noteAudit(request, { plcId: 'sim1' });
      return { data: null, error: null };
    },
  );
}

for (const driver of testDrivers) {
  describe(`audit trail (${driver})`, () => {
    let sim: TestPlc;
    let line: Line;
    let app: FastifyInstance;
    let call: Call;
    let t = 50_000_000;

    before(async () => {
      sim = await startTestPlc('sim1', driver);
      line = await startLine('line', driver);
      app = await buildTestApp({
        targets: [sim.target, line.target, failingTarget('ads-err', 'ADS_ERROR')],
        settings: {
          Features: { Rpc: true, Files: true, Lifecycle: true, Simulation: true },
          PlcTargets: { sim1: { Mode: 'Simulated', Rpc: { Invokable: ['GVL_HMI.fbCounter.*'] } } },
        },
        now: () => t,
        extend: hookRoutes,
      });
      call = await caller(app);
    });
    after(async () => {
      await app.close();
      await sim.close();
      await line.close();
    });

    const page = async (query = '', as: Call = call) => {
      const res = await as('GET', `/api/admin/audit${query}`);
      assert.equal(res.statusCode, 200, res.body);
      return res.json<{ data: { items: AuditRecord[]; nextAfter: number } }>().data;
    };
    /** The records added by `action`, with `seq` and `at` checked and dropped. */
    const recorded = async (action: () => Promise<unknown>): Promise<Array<Partial<AuditRecord>>> => {
      const { nextAfter } = await page('?after=0&limit=1000');
      const from = t;
      await action();
      const { items } = await page(`?after=${nextAfter}&limit=1000`);
      return items.map(({ seq, at, ...rest }) => {
        assert.ok(seq > nextAfter);
        assert.ok(Date.parse(at) >= from && Date.parse(at) <= t && at.endsWith('Z'), at);
        return rest;
      });
    };

    test('variable writes: old and new value; a batch is one record keyed by path', async () => {
      const records = await recorded(async () => {
        assert.equal(
          (await call('PUT', '/api/plcs/sim1/variables/GVL_Test.vDINT', { value: 42 })).statusCode,
          200,
        );
        await call('PUT', '/api/plcs/sim1/variables/GVL_Test.vDINT', { value: 43 });
        await call('PUT', '/api/plcs/sim1/variables', {
          values: { 'GVL_Test.vINT': 5, 'GVL_Test.bFlag': true },
        });
        await call('PUT', '/api/plcs/sim1/variables', { values: { 'GVL_Test.vINT': 6, 'GVL_Test.nope': 1 } });
      });
      const base = { sub: 'test-user', plcId: 'sim1', action: 'variable.write' };
      assert.deepEqual(records, [
        { ...base, target: 'GVL_Test.vDINT', result: 'ok', oldValue: 0, newValue: 42 },
        { ...base, target: 'GVL_Test.vDINT', result: 'ok', oldValue: 42, newValue: 43 },
        {
          ...base,
          target: 'GVL_Test.vINT, GVL_Test.bFlag',
          result: 'ok',
          oldValue: { 'GVL_Test.vINT': 0, 'GVL_Test.bFlag': false },
          newValue: { 'GVL_Test.vINT': 5, 'GVL_Test.bFlag': true },
        },
        {
          ...base,
          target: 'GVL_Test.vINT, GVL_Test.nope',
          result: 'error',
          error: { code: 'SYMBOL_NOT_FOUND', message: '1 of the paths were not written.' },
          oldValue: { 'GVL_Test.vINT': 5 },
          newValue: { 'GVL_Test.vINT': 6 },
        },
      ]);
    });

    test('refused writes are audited with their code (400, 403, 404, PLC error); 401 is not', async () => {
      const viewer = await caller(app, { sub: 'vera', role: 'viewer', scope: 'ads:read' });
      const records = await recorded(async () => {
        assert.equal(
          (await call('PUT', '/api/plcs/sim1/variables/GVL_Test.vINT', { value: 'abc' })).statusCode,
          400,
        );
        assert.equal(
          (await call('PUT', '/api/plcs/sim1/variables/GVL_Test.nope', { value: 1 })).statusCode,
          404,
        );
        assert.equal(
          (await viewer('PUT', '/api/plcs/sim1/variables/GVL_Test.vINT', { value: 7 })).statusCode,
          403,
        );
        assert.equal((await call('PUT', '/api/plcs/ads-err/variables/MAIN.x', { value: 1 })).statusCode, 502);
        assert.equal((await call('PUT', '/api/plcs/ghost/variables/MAIN.x', { value: 1 })).statusCode, 404);
        const anonymous = await app.inject({
          method: 'PUT',
          url: '/api/plcs/sim1/variables/GVL_Test.vINT',
          payload: { value: 8 },
        });
        assert.equal(anonymous.statusCode, 401);
      });
      assert.deepEqual(
        records.map((r) => [r.sub, r.plcId, r.target, r.result, r.error?.code]),
        [
          ['test-user', 'sim1', 'GVL_Test.vINT', 'error', 'TYPE_MISMATCH'],
          ['test-user', 'sim1', 'GVL_Test.nope', 'error', 'SYMBOL_NOT_FOUND'],
          ['vera', 'sim1', 'GVL_Test.vINT', 'error', 'FORBIDDEN'],
          ['test-user', 'ads-err', 'MAIN.x', 'error', 'ADS_ERROR'],
          ['test-user', 'ghost', 'MAIN.x', 'error', 'PLC_NOT_FOUND'],
        ],
      );
      assert.ok(records.every((r) => r.action === 'variable.write'));
      assert.equal((await sim.target.read('GVL_Test.vINT')).value, 6);
    });

    test('method calls, file uploads (never their content), lifecycle and simulation control', async () => {
      const content = 'secret recipe: 42 kg sugar';
      const token = await mintToken();
      const records = await recorded(async () => {
        assert.equal(
          (await call('POST', '/api/plcs/sim1/methods/GVL_HMI.fbCounter.Add', { parameters: [5] }))
            .statusCode,
          200,
        );
        assert.equal(
          (await call('POST', '/api/plcs/sim1/methods/GVL_HMI.aCounters[1].Add', {})).statusCode,
          403,
        );
        const upload = await app.inject({
          method: 'PUT',
          url: '/api/plcs/sim1/files/recipes/r1.csv',
          headers: { ...bearer(token), 'content-type': 'application/octet-stream' },
          payload: Buffer.from(content),
        });
        assert.equal(upload.statusCode, 200);
        t += 5000;
        assert.equal((await call('POST', '/api/plcs/line/lifecycle/stop')).statusCode, 200);
        t += 5000;
        assert.equal((await call('POST', '/api/plcs/line/lifecycle/start')).statusCode, 200);
        t += 5000;
        assert.equal((await call('POST', '/api/plcs/line/lifecycle/reset')).statusCode, 200);
        t += 5000;
        await call('POST', '/api/plcs/line/lifecycle/start');
        await call('POST', '/api/plcs/line/sim/step?cycles=3');
        await call('POST', '/api/plcs/line/sim/run');
        await call('POST', '/api/plcs/line/sim/pause');
        await call('POST', '/api/plcs/line/sim/reset');
        await call('POST', '/api/plcs/line/sim/step?cycles=0');
      });
      const brief = records.map((r) => [r.action, r.plcId, r.target, r.result, r.error?.code]);
      const simResult = driver === 'simulated' ? ['ok', undefined] : ['error', 'SCENARIO_NOT_CONFIGURED'];
      assert.deepEqual(brief, [
        ['method.invoke', 'sim1', 'GVL_HMI.fbCounter.Add', 'ok', undefined],
        ['method.invoke', 'sim1', 'GVL_HMI.aCounters[1].Add', 'error', 'RPC_INVOKE_DENIED'],
        ['file.write', 'sim1', 'recipes/r1.csv', 'ok', undefined],
        ['lifecycle.stop', 'line', 'Stop', 'ok', undefined],
        ['lifecycle.start', 'line', 'Run', 'ok', undefined],
        ['lifecycle.reset', 'line', 'Reset', 'ok', undefined],
        ['lifecycle.start', 'line', 'Run', 'ok', undefined],
        ['sim.step', 'line', 'cycles=3', ...simResult],
        ['sim.run', 'line', 'simulation', ...simResult],
        ['sim.pause', 'line', 'simulation', ...simResult],
        ['sim.reset', 'line', 'simulation', ...simResult],
        ['sim.step', 'line', 'cycles=0', 'error', 'VALIDATION_ERROR'],
      ]);
      const file = records[2];
      assert.deepEqual(file?.newValue, {
        size: content.length,
        sha256: createHash('sha256').update(content).digest('hex'),
      });
      assert.deepEqual([records[3]?.oldValue, records[3]?.newValue], ['Run', 'Stop']);
      assert.deepEqual([records[5]?.oldValue, records[5]?.newValue], ['Run', 'Stop']);
      if (driver === 'simulated') {
        assert.deepEqual(records[7]?.newValue, { state: 'Stopped', cycleCount: 3 });
      }
      const everything = JSON.stringify(records);
      assert.ok(!everything.includes(content), 'file content stays out');
      assert.ok(!everything.includes(Buffer.from(content).toString('base64')), 'encoded content stays out');
      assert.ok(!everything.includes(token.split('.')[2]!), 'no token');
    });

    test('the hooks other areas use: alarm acknowledge and connection termination', async () => {
      const records = await recorded(async () => {
        assert.equal((await call('POST', '/api/plcs/sim1/test-alarms/JAM/acknowledge')).statusCode, 200);
        assert.equal((await call('POST', '/api/plcs/sim1/test-alarms/GONE/acknowledge')).statusCode, 404);
        const operator = await caller(app, { sub: 'otto', role: 'operator' });
        assert.equal((await operator('DELETE' as 'GET', '/api/admin/test-connections/c-7')).statusCode, 403);
        assert.equal((await call('DELETE' as 'GET', '/api/admin/test-connections/c-7')).statusCode, 200);
      });
      assert.deepEqual(
        records.map((r) => [r.sub, r.action, r.plcId, r.target, r.result, r.error?.code]),
        [
          ['test-user', 'alarm.acknowledge', 'sim1', 'JAM', 'ok', undefined],
          ['test-user', 'alarm.acknowledge', 'sim1', 'GONE', 'error', 'ALARM_NOT_FOUND'],
          ['otto', 'connection.terminate', null, 'c-7', 'error', 'FORBIDDEN'],
          ['test-user', 'connection.terminate', 'sim1', 'c-7', 'ok', undefined],
        ],
      );
    });

    test('reads leave no record', async () => {
      const records = await recorded(async () => {
        for (const url of [
          '/api/plcs/sim1/variables/GVL_Test.vINT',
          '/api/plcs/sim1/variables?paths=GVL_Test.vINT',
          '/api/plcs/sim1/files/recipes/r1.csv',
          '/api/plcs/sim1/files?dir=recipes',
          '/api/plcs/sim1/device/state',
          '/api/plcs/sim1/status',
          '/api/plcs/sim1/symbols',
          '/api/plcs/line/sim/state',
          '/api/plcs',
          '/api/admin/audit',
        ]) {
          assert.ok((await call('GET', url)).statusCode < 500, url);
        }
      });
      assert.deepEqual(records, []);
    });

    test('GET /api/admin/audit: oldest first, paged by after and limit, filtered by plcId, Admin only', async () => {
      const all = (await page('?limit=1000')).items;
      assert.ok(all.length >= 10);
      assert.deepEqual(
        all.map((r) => r.seq),
        [...all.map((r) => r.seq)].sort((a, b) => a - b),
      );
      const first = await page('?limit=2');
      assert.deepEqual(first.items, all.slice(0, 2));
      assert.equal(first.nextAfter, all[1]!.seq);
      const second = await page(`?after=${first.nextAfter}&limit=2`);
      assert.deepEqual(second.items, all.slice(2, 4));
      const lines = await page('?plcId=line&limit=1000');
      assert.ok(lines.items.length > 0);
      assert.ok(lines.items.every((r) => r.plcId === 'line'));
      assert.equal(lines.nextAfter, all.at(-1)!.seq, 'the cursor passes the records the filter skipped');
      const end = await page(`?after=${all.at(-1)!.seq}`);
      assert.deepEqual(end, { items: [], nextAfter: all.at(-1)!.seq });
      for (const query of ['?limit=0', '?limit=1001', '?after=-1', '?after=x']) {
        assert.equal((await call('GET', `/api/admin/audit${query}`)).statusCode, 400, query);
      }
      const operator = await caller(app, { role: 'operator', scope: 'ads:read ads:write ads:lifecycle' });
      const refused = await operator('GET', '/api/admin/audit');
      assert.equal(refused.statusCode, 403);
      assert.equal(refused.json().error.code, 'FORBIDDEN');
    });
  });
}

describe('audit trail: bounds, rate limits and log lines', () => {
  test('Audit.Length bounds the ring; 429 is not audited; every record is an audit log line without the token', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString().split('\n'))
          if (line) lines.push(JSON.parse(line) as Record<string, unknown>);
        done();
      },
    });
    const sim = await startTestPlc('sim1', 'simulated');
    const app = await buildTestApp({
      targets: [sim.target],
      settings: { Audit: { Length: 3 }, RateLimiting: { GlobalPerUser: 5 } },
      now: () => 1_000,
      logger: { stream },
    });
    try {
      const token = await mintToken();
      const call = await caller(app);
      for (let i = 1; i <= 6; i++) {
        const res = await app.inject({
          method: 'PUT',
          url: '/api/plcs/sim1/variables/GVL_Test.vDINT',
          headers: bearer(token),
          payload: { value: i },
        });
        assert.equal(res.statusCode, i <= 5 ? 200 : 429, `request ${i}`);
      }
      const res = await call('GET', '/api/admin/audit');
      assert.equal(res.statusCode, 429, 'the audit route counts against the same budget');
      const other = await caller(app, { sub: 'auditor' });
      const { items } = (await other('GET', '/api/admin/audit')).json<{ data: { items: AuditRecord[] } }>()
        .data;
      assert.deepEqual(
        items.map((r) => [r.seq, r.newValue]),
        [
          [3, 3],
          [4, 4],
          [5, 5],
        ],
      );
      const after3 = (await other('GET', '/api/admin/audit?after=3')).json<{
        data: { items: AuditRecord[] };
      }>();
      assert.deepEqual(
        after3.data.items.map((r) => r.seq),
        [4, 5],
      );
      const dropped = (await other('GET', '/api/admin/audit?after=1&limit=1')).json<{
        data: { items: AuditRecord[]; nextAfter: number };
      }>();
      assert.deepEqual(
        [dropped.data.items[0]?.seq, dropped.data.nextAfter],
        [3, 3],
        'starts at the oldest kept',
      );
      const audits = lines.filter((l) => l.msg === 'audit');
      assert.deepEqual(
        audits.map((l) => (l.audit as AuditRecord).seq),
        [1, 2, 3, 4, 5],
      );
      assert.ok(!JSON.stringify(lines).includes(token.split('.')[2]!), 'no token in any log line');
    } finally {
      await app.close();
      await sim.close();
    }
  });
});
