// Admin rights follow plc_access across replicas: an admin restricted to some PLCs lists only their streams (this
// replica's and the others'), ends only those (403 PLC_ACCESS_DENIED otherwise, the stream stays open), and the
// refusal is audited against the stream's PLC. Two in-process replicas on a real redis-server.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { authHeaders, RawSse } from '../features/notifications/clients.ts';
import { startTestPlc, type TestPlc } from '../features/variables/fixture.ts';
import { buildTestApp } from '../helpers/app.ts';
import { RedisServer } from '../helpers/redis-server.ts';
import { mintToken } from '../helpers/tokens.ts';
import { program } from '../targets/ads/harness.ts';

interface Row {
  id: string;
  plcId: string | null;
  replica: string;
}

describe('cluster: admin rights follow plc_access', () => {
  let redis: RedisServer;
  const plcs: TestPlc[] = [];
  const apps: FastifyInstance[] = [];
  const bases: string[] = [];
  const streams: RawSse[] = [];

  before(async () => {
    redis = await RedisServer.start();
    for (const id of ['r1', 'r2']) {
      const line1 = await startTestPlc('line1', 'simulated', program(), Date.now);
      const line2 = await startTestPlc('line2', 'simulated', program(), Date.now);
      plcs.push(line1, line2);
      const app = await buildTestApp({
        targets: [line1.target, line2.target],
        settings: { Cluster: { Redis: redis.url, ReplicaId: id, HeartbeatSeconds: 1 } },
      });
      await app.listen({ host: '127.0.0.1', port: 0 });
      const address = app.server.address();
      bases.push(`http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`);
      apps.push(app);
    }
  });

  after(async () => {
    for (const s of streams) s.close();
    for (const app of apps) await app.close();
    for (const plc of plcs) await plc.close();
    await redis.kill();
  });

  const open = async (replica: number, plcId: string): Promise<RawSse> => {
    const token = await mintToken({ sub: 'operator-1', role: 'operator', scope: 'ads:read' });
    const sse = await new RawSse(
      `${bases[replica]}/api/plcs/${plcId}/notifications/sse?symbols=MAIN.nA`,
      authHeaders(token),
    ).opened();
    assert.equal(sse.status, 200);
    streams.push(sse);
    return sse;
  };

  it('lists and ends only the streams of the PLCs in the claim, on every replica; "*" sees all', async () => {
    const a = apps[0] as FastifyInstance;
    await open(0, 'line2'); // on this replica
    const remoteLine1 = await open(1, 'line1'); // on the other
    await open(1, 'line2'); // on the other
    const full = authHeaders(await mintToken({ sub: 'root' }));
    const restricted = authHeaders(await mintToken({ sub: 'line1-admin', plc_access: ['LINE1'] }));
    const list = async (headers: Record<string, string>): Promise<Row[]> => {
      const res = await a.inject({ url: '/api/admin/connections', headers });
      assert.equal(res.statusCode, 200, res.body);
      return res.json<{ data: Row[] }>().data;
    };
    const all = await list(full);
    assert.deepEqual(all.map((r) => [r.plcId, r.replica]).sort(), [
      ['line1', 'r2'],
      ['line2', 'r1'],
      ['line2', 'r2'],
    ]);
    const mine = await list(restricted);
    assert.deepEqual(
      mine.map((r) => [r.plcId, r.replica]),
      [['line1', 'r2']],
    );

    const end = (row: Row | undefined, headers: Record<string, string>) =>
      a.inject({ method: 'DELETE', url: `/api/admin/connections/${String(row?.id)}`, headers });
    for (const row of all.filter((r) => r.plcId === 'line2')) {
      const refused = await end(row, restricted);
      assert.equal(refused.statusCode, 403, row.replica);
      assert.equal(refused.json().error.code, 'PLC_ACCESS_DENIED');
    }
    assert.equal((await list(full)).length, 3, 'the refused streams stay open');

    const ended = await end(mine[0], restricted);
    assert.equal(ended.statusCode, 200, ended.body);
    await remoteLine1.closedByServer();

    const audit = await a.inject({ url: '/api/admin/audit?ring=refusals', headers: full });
    assert.deepEqual(
      audit
        .json<{ data: { items: Array<{ sub: string; plcId: string; error?: { code: string } }> } }>()
        .data.items.map((r) => [r.sub, r.plcId, r.error?.code]),
      [
        ['line1-admin', 'line2', 'PLC_ACCESS_DENIED'],
        ['line1-admin', 'line2', 'PLC_ACCESS_DENIED'],
      ],
    );
    // The restricted admin does not read those records: they are line2's.
    const own = await a.inject({ url: '/api/admin/audit', headers: restricted });
    assert.deepEqual(
      own.json<{ data: { items: Array<{ plcId: string }> } }>().data.items.map((r) => r.plcId),
      ['line1'],
    );
  });
});
