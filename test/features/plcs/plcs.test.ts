// GET /api/plcs and GET /api/plcs/{plcId}/status through HTTP: filtering by plc_access, status fields, odd ids.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../../../src/errors.ts';
import { buildTestApp } from '../../helpers/app.ts';
import { FakeTarget } from '../../helpers/fake-target.ts';
import { bearer, mintToken } from '../../helpers/tokens.ts';

const line1 = new FakeTarget('line1', { displayName: 'Line 1', mode: 'Real', adsState: 'Run' });
const line2 = new FakeTarget('line2', { displayName: 'Line 2', state: 'Disconnected' });
const cell = new FakeTarget('Cell-3_a', { displayName: 'Cell', state: 'Connecting' });
const flaky = new FakeTarget('flaky');
flaky.deviceStateError = new AppError('ADS_TIMEOUT');

let app: FastifyInstance;
before(async () => {
  app = await buildTestApp({ targets: [line2, flaky, line1, cell] });
});
after(() => app.close());

async function get(url: string, claims: Record<string, unknown> = {}) {
  return app.inject({ url, headers: bearer(await mintToken(claims)) });
}

describe('GET /api/plcs', () => {
  test('every permitted PLC, sorted by plcId, with state and mode', async () => {
    const res = await get('/api/plcs');
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), {
      data: [
        {
          plcId: 'Cell-3_a',
          displayName: 'Cell',
          isConnected: false,
          state: 'Connecting',
          mode: 'Simulated',
        },
        { plcId: 'flaky', displayName: 'flaky', isConnected: true, state: 'Connected', mode: 'Simulated' },
        { plcId: 'line1', displayName: 'Line 1', isConnected: true, state: 'Connected', mode: 'Real' },
        {
          plcId: 'line2',
          displayName: 'Line 2',
          isConnected: false,
          state: 'Disconnected',
          mode: 'Simulated',
        },
      ],
      error: null,
    });
  });

  test('only the PLCs in plc_access', async () => {
    const res = await get('/api/plcs', { plc_access: ['line2', 'line1', 'not-configured'] });
    assert.deepEqual(
      res.json<{ data: Array<{ plcId: string }> }>().data.map((p) => p.plcId),
      ['line1', 'line2'],
    );
  });

  test('no plc_access claim: default deny refuses the list instead of answering it empty', async () => {
    const res = await get('/api/plcs', { plc_access: undefined });
    assert.equal(res.statusCode, 403);
    assert.deepEqual(res.json(), {
      data: null,
      error: { code: 'PLC_ACCESS_DENIED', message: 'this token grants no PLC' },
    });
  });

  test('a viewer with ads:read may list; without ads:read 403 FORBIDDEN', async () => {
    assert.equal((await get('/api/plcs', { role: 'viewer', scope: 'ads:read' })).statusCode, 200);
    const denied = await get('/api/plcs', { role: 'viewer', scope: 'ads:write' });
    assert.equal(denied.statusCode, 403);
    assert.equal(denied.json().error.code, 'FORBIDDEN');
    assert.equal((await get('/api/plcs', { role: 'guest', scope: 'ads:read' })).statusCode, 403);
  });
});

describe('GET /api/plcs/{plcId}/status', () => {
  test('connected: the summary plus adsState', async () => {
    const res = await get('/api/plcs/line1/status');
    assert.deepEqual(res.json(), {
      data: {
        plcId: 'line1',
        displayName: 'Line 1',
        isConnected: true,
        state: 'Connected',
        mode: 'Real',
        adsState: 'Run',
      },
      error: null,
    });
  });

  test('not connected: no adsState', async () => {
    const res = await get('/api/plcs/line2/status');
    assert.equal(res.statusCode, 200);
    assert.equal('adsState' in res.json().data, false);
    assert.equal(res.json().data.isConnected, false);
  });

  test('connected but the state read fails: 200 without adsState', async () => {
    const res = await get('/api/plcs/flaky/status');
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().data.isConnected, true);
    assert.equal('adsState' in res.json().data, false);
  });

  test('the state follows the target', async () => {
    line1.adsState = 'Stop';
    assert.equal((await get('/api/plcs/line1/status')).json().data.adsState, 'Stop');
    line1.adsState = 'Run';
  });

  test('unknown plcId: 404 PLC_NOT_FOUND; configured but outside plc_access: 403 PLC_ACCESS_DENIED', async () => {
    const unknown = await get('/api/plcs/line9/status');
    assert.equal(unknown.statusCode, 404);
    assert.deepEqual(unknown.json().error.code, 'PLC_NOT_FOUND');
    const denied = await get('/api/plcs/line2/status', { plc_access: ['line1'] });
    assert.equal(denied.statusCode, 403);
    assert.equal(denied.json().error.code, 'PLC_ACCESS_DENIED');
    const defaultDeny = await get('/api/plcs/line1/status', { plc_access: undefined });
    assert.equal(defaultDeny.json().error.code, 'PLC_ACCESS_DENIED');
  });

  test('odd and very long plcIds: 404 PLC_NOT_FOUND, never 500', async () => {
    const ids = [
      'x'.repeat(1000),
      '%20',
      'line1%2Fstatus',
      '%C3%A9t%C3%A9',
      '__proto__',
      'constructor',
      '%00',
      'line1%3F',
      "'%3B--",
      'line1_',
    ];
    for (const id of ids) {
      const res = await get(`/api/plcs/${id}/status`);
      assert.equal(res.statusCode, 404, id.slice(0, 40));
      assert.equal(res.json().error.code, 'PLC_NOT_FOUND', id.slice(0, 40));
    }
    // Dot segments are resolved by URL normalisation before routing: some other path, still a 404 envelope.
    for (const id of ['..', '%2E%2E']) {
      const res = await get(`/api/plcs/${id}/status`);
      assert.equal(res.statusCode, 404, id);
      assert.equal(res.json().data, null);
    }
  });

  test('the plcId is matched ignoring case, percent-encoded characters decoded; answers use the configured id', async () => {
    assert.equal((await get('/api/plcs/line%31/status')).statusCode, 200);
    assert.equal((await get('/api/plcs/Cell-3_a/status')).json().data.state, 'Connecting');
    for (const [asked, configured] of [
      ['LINE1', 'line1'],
      ['Line1', 'line1'],
      ['cell-3_A', 'Cell-3_a'],
    ]) {
      const res = await get(`/api/plcs/${asked}/status`);
      assert.equal(res.statusCode, 200, asked);
      assert.equal(res.json().data.plcId, configured, asked);
    }
  });

  test('plc_access names PLCs ignoring case too, and the list keeps the configured ids', async () => {
    const claims = { plc_access: ['LINE2', 'cell-3_A'] };
    assert.equal((await get('/api/plcs/line2/status', claims)).statusCode, 200);
    assert.equal((await get('/api/plcs/Line2/status', claims)).statusCode, 200);
    assert.equal((await get('/api/plcs/Cell-3_a/status', claims)).statusCode, 200);
    const denied = await get('/api/plcs/LINE1/status', claims);
    assert.equal(denied.statusCode, 403);
    assert.equal(denied.json().error.message, "The token's plc_access claim does not include line1.");
    const list = await get('/api/plcs', claims);
    assert.deepEqual(
      list.json<{ data: Array<{ plcId: string }> }>().data.map((p) => p.plcId),
      ['Cell-3_a', 'line2'],
    );
  });
});

describe('DefaultPlcAccess "*"', () => {
  test('a token without plc_access sees every PLC; an explicit claim still limits', async () => {
    const open = await buildTestApp({
      targets: [line1, line2],
      settings: { Auth: { DefaultPlcAccess: '*' } },
    });
    try {
      const noClaim = bearer(await mintToken({ plc_access: undefined }));
      const list = await open.inject({ url: '/api/plcs', headers: noClaim });
      assert.equal(list.json().data.length, 2);
      assert.equal((await open.inject({ url: '/api/plcs/line2/status', headers: noClaim })).statusCode, 200);
      const limited = bearer(await mintToken({ plc_access: ['line1'] }));
      assert.equal((await open.inject({ url: '/api/plcs', headers: limited })).json().data.length, 1);
    } finally {
      await open.close();
    }
  });
});
