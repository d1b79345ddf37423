// The audit trail under attack, through HTTP: records name the PLC as configured however the caller typed it (so
// `?plcId=` finds them all), refused requests are kept in a ring of their own and never push a change out, and an
// admin whose plc_access names some PLCs reads only their records. MCP tool calls are recorded the same way.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { AuditRecord } from '../../../src/audit/store.ts';
import { buildTestApp } from '../../helpers/app.ts';
import { FakeTarget } from '../../helpers/fake-target.ts';
import { dataOf, errorOf, operator, startMcpRig, viewer } from '../mcp/fixture.ts';
import { caller, startTestPlc, type Call, type TestPlc } from '../variables/fixture.ts';

type Page = { items: AuditRecord[]; nextAfter: number };

async function page(as: Call, query = ''): Promise<Page> {
  const res = await as('GET', `/api/admin/audit${query}`);
  assert.equal(res.statusCode, 200, res.body);
  return res.json<{ data: Page }>().data;
}

const write = (as: Call, plcId: string, value: unknown) =>
  as('PUT', `/api/plcs/${plcId}/variables/GVL_Test.vDINT`, { value });

describe('audit trail under attack', () => {
  let sim: TestPlc;
  let app: FastifyInstance;
  let admin: Call;
  let viewer: Call;

  before(async () => {
    sim = await startTestPlc('Sim1', 'simulated');
    app = await buildTestApp({
      targets: [sim.target, new FakeTarget('line2')],
      settings: { Audit: { Length: 3, RefusalLength: 2 }, Features: { Lifecycle: false } },
    });
    admin = await caller(app);
    viewer = await caller(app, { sub: 'mallory', role: 'viewer', scope: 'ads:read' });
  });
  after(async () => {
    await app.close();
    await sim.close();
  });

  test('records carry the configured plcId whatever case was typed; ?plcId= finds them in any case', async () => {
    assert.equal((await write(admin, 'SIM1', 1)).statusCode, 200);
    assert.equal((await write(admin, 'sim1', 2)).statusCode, 200);
    assert.equal((await write(viewer, 'sIm1', 3)).statusCode, 403);
    for (const query of ['?plcId=Sim1', '?plcId=SIM1', '?plcId=sim1']) {
      const { items } = await page(admin, query);
      assert.deepEqual(
        items.map((r) => [r.sub, r.plcId, r.result]),
        [
          ['test-user', 'Sim1', 'ok'],
          ['test-user', 'Sim1', 'ok'],
          ['mallory', 'Sim1', 'error'],
        ],
        query,
      );
    }
  });

  test('refusals (403, 400, 501) have their own ring: a flood of them never evicts a change', async () => {
    // The ring of changes holds Audit.Length (3): the two writes above and one more fill it exactly.
    assert.equal((await write(admin, 'Sim1', 3)).statusCode, 200);
    const changes = (await page(admin, '?ring=changes')).items;
    assert.deepEqual(
      changes.map((r) => r.newValue),
      [1, 2, 3],
    );
    // The attacker's flood: refused by policy (403), by validation (400), by a disabled feature (501).
    for (let i = 0; i < 20; i++) assert.equal((await write(viewer, 'Sim1', 100 + i)).statusCode, 403);
    assert.equal((await write(admin, 'Sim1', 'not a number')).statusCode, 400);
    assert.equal((await viewer('POST', '/api/plcs/Sim1/lifecycle/stop')).statusCode, 501);
    assert.deepEqual((await page(admin, '?ring=changes')).items, changes, 'every change is still there');
    const refusals = (await page(admin, '?ring=refusals')).items;
    assert.deepEqual(
      refusals.map((r) => [r.sub, r.action, r.error?.code]),
      [
        ['test-user', 'variable.write', 'TYPE_MISMATCH'],
        ['mallory', 'lifecycle.stop', 'FEATURE_DISABLED'],
      ],
      'the newest RefusalLength (2) refusals',
    );
    // Both rings together, one sequence, oldest first; paging walks the merge.
    const all = (await page(admin, '?limit=1000')).items;
    assert.deepEqual(
      all.map((r) => r.seq),
      [...changes, ...refusals].map((r) => r.seq),
    );
    const first = await page(admin, '?limit=4');
    assert.deepEqual(first.items, all.slice(0, 4));
    const rest = await page(admin, `?after=${first.nextAfter}&limit=4`);
    assert.deepEqual(rest.items, all.slice(4));
    // One change more than Length: the oldest change goes, to a change.
    assert.equal((await write(admin, 'Sim1', 4)).statusCode, 200);
    assert.deepEqual(
      (await page(admin, '?ring=changes')).items.map((r) => r.newValue),
      [2, 3, 4],
    );
    assert.equal((await admin('GET', '/api/admin/audit?ring=other')).statusCode, 400);
  });

  test('an admin restricted by plc_access reads only the records of those PLCs; PLC-less ones need "*"', async () => {
    assert.equal((await admin('POST', '/api/plcs/line2/lifecycle/stop')).statusCode, 501);
    assert.equal((await admin('DELETE' as 'GET', '/api/admin/connections/no-such-stream')).statusCode, 404);
    const everything = (await page(admin, '?limit=1000')).items;
    assert.ok(everything.some((r) => r.plcId === 'line2'));
    assert.ok(everything.some((r) => r.plcId === null));
    const restricted = await caller(app, { sub: 'line-admin', plc_access: ['SIM1'] });
    const mine = (await page(restricted, '?limit=1000')).items;
    assert.deepEqual(
      mine,
      everything.filter((r) => r.plcId === 'Sim1'),
    );
    assert.ok(mine.length > 0);
    assert.deepEqual((await page(restricted, '?plcId=line2')).items, []);
    const none = await caller(app, { sub: 'no-plc-admin', plc_access: [] });
    assert.deepEqual((await page(none, '?limit=1000')).items, []);
  });
});

describe('audit trail: MCP tool calls', () => {
  test('a refused MCP write is a refusal, a made one a change; both name the PLC as configured', async () => {
    const rig = await startMcpRig();
    try {
      const speed = 'GVL_HMI.stMachine.rSpeedSetpoint';
      const refused = errorOf(
        await (
          await rig.connect(viewer)
        ).callTool({ name: 'write_variable', arguments: { plcId: 'LINE1', path: speed, value: 1 } }),
      );
      assert.equal(refused.code, 'FORBIDDEN');
      const written = dataOf<{ value: number }>(
        await (
          await rig.connect(operator)
        ).callTool({ name: 'write_variable', arguments: { plcId: 'Line1', path: speed, value: 7.5 } }),
      );
      assert.equal(written.value, 7.5);
      const ring = async (name: string) => {
        const res = await rig.http('GET', `/api/admin/audit?ring=${name}&plcId=line1`);
        assert.equal(res.status, 200);
        const body = (await res.json()) as { data: { items: AuditRecord[] } };
        return body.data.items.map((r) => [r.sub, r.plcId, r.result]);
      };
      assert.deepEqual(await ring('refusals'), [['vera', 'line1', 'error']]);
      assert.deepEqual(await ring('changes'), [['otto', 'line1', 'ok']]);
    } finally {
      await rig.close();
    }
  });
});
