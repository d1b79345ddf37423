// The admin connection routes follow plc_access on one replica: an admin restricted to some PLCs lists and ends
// only streams of those PLCs; a stream of no PLC (the fleet alarm stream) needs plc_access "*".
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { bearer, mintToken } from '../../helpers/tokens.ts';
import { RawSse } from '../notifications/clients.ts';
import { listen, startAlarmRig } from '../alarms/fixture.ts';

interface Row {
  id: string;
  kind: string;
  plcId: string | null;
}

describe('admin connections and plc_access', () => {
  test('a restricted admin sees and ends only its PLCs\u2019 streams; a PLC-less stream needs "*"', async () => {
    const rig = await startAlarmRig('simulated', { settings: { Features: { Alarms: true } } });
    const open: RawSse[] = [];
    try {
      const base = await listen(rig);
      const operator = bearer(await mintToken({ sub: 'op', role: 'operator', scope: 'ads:read' }));
      for (const path of ['/api/plcs/line1/alarms/stream', '/api/alarms/stream']) {
        const sse = await new RawSse(`${base}${path}`, operator).opened();
        assert.equal(sse.status, 200, path);
        open.push(sse);
      }
      const full = bearer(await mintToken({ sub: 'root' }));
      const restricted = bearer(await mintToken({ sub: 'line-admin', plc_access: ['line1'] }));
      const other = bearer(await mintToken({ sub: 'other-admin', plc_access: ['line9'] }));
      const list = async (headers: Record<string, string>): Promise<Row[]> => {
        const res = await rig.app.inject({ url: '/api/admin/connections', headers });
        assert.equal(res.statusCode, 200, res.body);
        return res.json<{ data: Row[] }>().data;
      };
      const all = await list(full);
      assert.deepEqual(all.map((r) => r.plcId).sort(), ['line1', null]);
      assert.deepEqual(
        (await list(restricted)).map((r) => r.plcId),
        ['line1'],
      );
      assert.deepEqual(await list(other), []);

      const end = (row: Row | undefined, headers: Record<string, string>) =>
        rig.app.inject({ method: 'DELETE', url: `/api/admin/connections/${String(row?.id)}`, headers });
      const fleet = all.find((r) => r.plcId === null);
      const line1 = all.find((r) => r.plcId === 'line1');
      const refusedFleet = await end(fleet, restricted);
      assert.equal(refusedFleet.statusCode, 403);
      assert.equal(refusedFleet.json().error.code, 'PLC_ACCESS_DENIED');
      const refusedLine = await end(line1, other);
      assert.equal(refusedLine.statusCode, 403);
      assert.equal(refusedLine.json().error.code, 'PLC_ACCESS_DENIED');
      assert.equal((await list(full)).length, 2, 'both streams stay open');
      assert.equal((await end(line1, restricted)).statusCode, 200);
      assert.equal((await end(fleet, full)).statusCode, 200);
      assert.deepEqual(await list(full), []);
    } finally {
      for (const s of open) s.close();
      await rig.close();
    }
  });
});
