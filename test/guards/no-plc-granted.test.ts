// A token that grants no configured PLC is refused on the fleet routes (403 PLC_ACCESS_DENIED "this token grants
// no PLC") instead of answered empty; a token without plc_access meeting DefaultPlcAccess none is logged once per sub.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { buildTestApp } from '../helpers/app.ts';
import { FakeTarget } from '../helpers/fake-target.ts';
import { bearer, mintToken } from '../helpers/tokens.ts';

const fleetRoutes = ['/api/plcs', '/api/alarms', '/api/alarms/stream'];
const alarmSettings = {
  Features: { Alarms: true },
  PlcAlarms: { Targets: { line1: { SymbolPath: 'GVL_HMI.fbAlarms.aAlarms' } } },
};

describe('fleet routes and a token that grants no PLC', () => {
  let app: FastifyInstance;
  let lines: string[];
  before(async () => {
    lines = [];
    app = await buildTestApp({
      targets: [new FakeTarget('line1'), new FakeTarget('line2')],
      settings: alarmSettings,
      logger: { level: 'info', stream: { write: (line: string) => void lines.push(line) } },
    });
  });
  after(() => app.close());

  const answer = async (url: string, claims: Record<string, unknown>) => {
    const res = await app.inject({ url, headers: bearer(await mintToken(claims)) });
    return {
      status: res.statusCode,
      body: res.json<{ data: unknown; error: { code: string; message: string } }>(),
    };
  };

  const refusals: Array<[string, Record<string, unknown>]> = [
    ['an empty plc_access', { plc_access: [] }],
    ['no plc_access under DefaultPlcAccess none', { plc_access: undefined }],
    ['only PLCs that are not configured', { plc_access: ['elsewhere', 'nowhere'] }],
    ['a malformed claim', { plc_access: 'line1' }],
  ];
  for (const [what, claims] of refusals) {
    test(`${what}: 403 PLC_ACCESS_DENIED on every fleet route`, async () => {
      for (const url of fleetRoutes) {
        const { status, body } = await answer(url, claims);
        assert.equal(status, 403, url);
        assert.deepEqual(
          body,
          { data: null, error: { code: 'PLC_ACCESS_DENIED', message: 'this token grants no PLC' } },
          url,
        );
      }
    });
  }

  test('one configured PLC is enough (the edge): 200, also when it is not monitored for alarms', async () => {
    const plcs = await answer('/api/plcs', { plc_access: ['elsewhere', 'LINE2'] });
    assert.equal(plcs.status, 200);
    assert.deepEqual(
      (plcs.body.data as Array<{ plcId: string }>).map((p) => p.plcId),
      ['line2'],
    );
    // line2 has no alarm configuration: the fleet list is empty, but the token does grant a PLC.
    const alarms = await answer('/api/alarms', { plc_access: ['line2'] });
    assert.equal(alarms.status, 200);
    assert.equal((alarms.body.data as { count: number }).count, 0);
  });

  test('the policy is checked first: a token lacking ReadAccess is 403 FORBIDDEN', async () => {
    const { body } = await answer('/api/plcs', { plc_access: [], role: 'viewer', scope: '' });
    assert.equal(body.error.code, 'FORBIDDEN');
  });

  test('a token without plc_access under DefaultPlcAccess none is logged once per sub', async () => {
    const warnings = () =>
      lines
        .map((l) => JSON.parse(l) as { msg: string; sub?: string })
        .filter((l) => l.msg.includes('Auth.DefaultPlcAccess none'));
    const before = warnings().length;
    for (const sub of ['unscoped-a', 'unscoped-a', 'unscoped-b']) {
      // A fresh token each time: the same sub must not be logged again for a new token.
      await answer('/api/plcs', { sub, plc_access: undefined, jti: Math.random().toString(36) });
    }
    await answer('/api/plcs', { sub: 'scoped', plc_access: [] });
    const logged = warnings().slice(before);
    assert.deepEqual(
      logged.map((l) => l.sub),
      ['unscoped-a', 'unscoped-b'],
    );
  });
});

describe('Auth.DefaultPlcAccessLogSubjects bounds the memory of logged subs', () => {
  test('at capacity N the N+1st sub empties it, so an early sub is logged again', async () => {
    const lines: string[] = [];
    const app = await buildTestApp({
      targets: [new FakeTarget('line1')],
      settings: { Auth: { DefaultPlcAccessLogSubjects: 2 } },
      logger: { level: 'info', stream: { write: (line: string) => void lines.push(line) } },
    });
    try {
      const call = async (sub: string) =>
        app.inject({
          url: '/api/plcs',
          headers: bearer(await mintToken({ sub, plc_access: undefined, jti: Math.random().toString(36) })),
        });
      for (const sub of ['a', 'b', 'a', 'b', 'c', 'a']) await call(sub);
      const subs = lines
        .map((l) => JSON.parse(l) as { msg: string; sub?: string })
        .filter((l) => l.msg.includes('Auth.DefaultPlcAccess none'))
        .map((l) => l.sub);
      // a, b remembered (2 = capacity); c empties the memory; a is then new again.
      assert.deepEqual(subs, ['a', 'b', 'c', 'a']);
    } finally {
      await app.close();
    }
  });
});
