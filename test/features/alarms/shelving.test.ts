// Alarm management through HTTP and SSE, driven by sim/step and a gateway clock moved by hand: shelve edges
// (0, 1, max, max+1 minutes, reason missing or too long), expiry on time, the end of the occurrence, unshelve by
// hand, out of service (operator 403, admin), visibility with ?include=, the counts, /health/alarms, the
// shelving journal and the audit trail; once on a Real target too.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { manualDeadlineClock } from '../../helpers/app.ts';
import { bearer, mintToken } from '../../helpers/tokens.ts';
import { RawSse, type SseEvent } from '../notifications/clients.ts';
import { listen, scenarioDir, startAlarmRig, testDrivers, type AlarmRig } from './fixture.ts';

interface ListJson {
  count: number;
  shelvedCount: number;
  outOfServiceCount: number;
  suppressedCount: number;
  items: Array<{
    code: string;
    'x-shelved'?: { by: string; at: string; until: string; reason: string };
    'x-outOfService'?: { by: string; at: string; reason: string };
  }>;
}

interface Shelving {
  action: string;
  code: string;
  by?: string;
  cause?: string;
  until?: string;
  reason?: string;
}

const start = Date.UTC(2030, 0, 1, 6, 0, 0);
const minute = 60_000;
const errorCode = (res: { json<T>(): T }): string => res.json<{ error: { code: string } }>().error.code;

for (const driver of testDrivers) {
  describe(`alarm shelving and out of service (${driver})`, () => {
    let rig: AlarmRig;
    let base: string;
    const clock = manualDeadlineClock(start);
    const open: RawSse[] = [];
    let operator: Record<string, string>;

    const sse = async (query = ''): Promise<RawSse> => {
      const s = new RawSse(`${base}/api/plcs/line1/alarms/stream${query}`, bearer(await mintToken()));
      open.push(s);
      return s.opened();
    };
    const list = async (query = ''): Promise<ListJson> => {
      const res = await rig.call('GET', `/api/plcs/line1/alarms${query}`);
      assert.equal(res.statusCode, 200, res.body);
      return res.json<{ data: ListJson }>().data;
    };
    const codes = async (query = ''): Promise<string[]> => (await list(query)).items.map((a) => a.code);
    const shelve = (key: string, body: unknown, headers?: Record<string, string>) =>
      rig.call('POST', `/api/plcs/line1/alarms/${key}/shelve`, body, headers);
    const shelving = (e: SseEvent): Shelving | undefined =>
      e.event === 'shelving' ? (e.data as Shelving) : undefined;

    before(async () => {
      rig = await startAlarmRig(driver, {
        deadlines: clock,
        settings: {
          PlcAlarms: { TextCatalog: `${scenarioDir}/alarm-texts.json`, MaxShelveMinutes: 480 },
          PlcTargets: { line1: { Rpc: { Invokable: ['GVL_HMI.fbAlarms.AcknowledgeAlarm'] } } },
          RateLimiting: { NotificationConnections: 1000 },
        },
      });
      base = await listen(rig);
      operator = bearer(await mintToken({ sub: 'op-1', role: 'operator' }));
      // FILLER_OVERTEMP (WARNING) at cycle 1, CAPPER_JAM (ERROR) at 2.
      await rig.step(2);
    });
    after(async () => {
      for (const s of open) s.close();
      await rig.close();
    });

    test('minutes 0 and max+1, a missing, blank or too long reason: 400; 1 and max: shelved', async () => {
      const bad: unknown[] = [
        { minutes: 0, reason: 'x' },
        { minutes: 481, reason: 'x' },
        { minutes: 10 },
        { minutes: 10, reason: '' },
        { minutes: 10, reason: '   ' },
        { minutes: 10, reason: 'r'.repeat(501) },
        { minutes: 1.5, reason: 'x' },
        { reason: 'x' },
      ];
      for (const body of bad) {
        const res = await shelve('FILLER_OVERTEMP', body, operator);
        assert.equal(res.statusCode, 400, JSON.stringify(body));
        assert.equal(errorCode(res), 'VALIDATION_ERROR');
      }
      assert.deepEqual(await codes(), ['FILLER_OVERTEMP', 'CAPPER_JAM']);

      const max = await shelve('FILLER_OVERTEMP', { minutes: 480, reason: 'r'.repeat(500) }, operator);
      assert.equal(max.statusCode, 200, max.body);
      const entry = max.json<{ data: Shelving }>().data;
      assert.equal(entry.action, 'shelved');
      assert.equal(entry.by, 'op-1');
      assert.equal(entry.until, new Date(clock.now() + 480 * minute).toISOString());

      const one = await shelve('FILLER_OVERTEMP', { minutes: 1, reason: 'sensor swap' }, operator);
      assert.equal(one.statusCode, 200, one.body);
      assert.equal(one.json<{ data: Shelving }>().data.until, new Date(clock.now() + minute).toISOString());
      const r = await rig.call(
        'POST',
        '/api/plcs/line1/alarms/FILLER_OVERTEMP/unshelve',
        undefined,
        operator,
      );
      assert.equal(r.statusCode, 200, r.body);
    });

    test('a viewer may not shelve (403); unknown key 404 ALARM_NOT_FOUND; a known alarm not outstanding 409 ALARM_NOT_ACTIVE', async () => {
      const viewer = bearer(await mintToken({ role: 'viewer', scope: 'ads:read' }));
      assert.equal((await shelve('FILLER_OVERTEMP', { minutes: 5, reason: 'x' }, viewer)).statusCode, 403);
      const unknown = await shelve('NO_SUCH_ALARM', { minutes: 5, reason: 'x' });
      assert.equal(unknown.statusCode, 404);
      assert.equal(errorCode(unknown), 'ALARM_NOT_FOUND');
      // Named by the TextCatalog, not raised.
      const quiet = await shelve('capper_jam_2', { minutes: 5, reason: 'x' });
      assert.equal(quiet.statusCode, 404);
      const notOutstanding = await shelve('capper_jam', { minutes: 5, reason: 'x' });
      assert.equal(notOutstanding.statusCode, 409, notOutstanding.body);
      assert.equal(errorCode(notOutstanding), 'ALARM_NOT_ACTIVE');
      const unshelve = await rig.call('POST', '/api/plcs/line1/alarms/CAPPER_JAM/unshelve');
      assert.equal(unshelve.statusCode, 409);
      assert.equal(errorCode(unshelve), 'ALARM_NOT_SHELVED');
      const nope = await rig.call('POST', '/api/plcs/other/alarms/CAPPER_JAM/unshelve');
      assert.equal(nope.statusCode, 404);
      assert.equal(errorCode(nope), 'PLC_NOT_FOUND');
    });

    test('a shelved alarm leaves the list, stream and health; include=shelved shows it marked; it runs out on time', async () => {
      const plain = await sse();
      const all = await sse('?include=shelved');
      const health = async () =>
        (await rig.app.inject({ method: 'GET', url: '/health/alarms' })).json<{
          status: string;
          checks: Array<{ data: { shelved: number; outOfService: number; suppressed: number } }>;
        }>();
      assert.equal((await health()).status, 'Unhealthy');

      const res = await shelve('CAPPER_JAM', { minutes: 2, reason: 'jam cleared by hand' }, operator);
      assert.equal(res.statusCode, 200, res.body);
      const shelvedAt = clock.now();
      for (const s of [plain, all]) {
        const e = shelving(await s.next((e) => shelving(e)?.action === 'shelved'));
        assert.deepEqual(
          { code: e?.code, by: e?.by, reason: e?.reason },
          { code: 'CAPPER_JAM', by: 'op-1', reason: 'jam cleared by hand' },
        );
      }
      const hidden = await list();
      assert.deepEqual(
        hidden.items.map((a) => a.code),
        ['FILLER_OVERTEMP'],
      );
      assert.equal(hidden.count, 1);
      assert.equal(hidden.shelvedCount, 1);
      const shown = await list('?include=shelved');
      assert.deepEqual(
        shown.items.map((a) => a.code),
        ['FILLER_OVERTEMP', 'CAPPER_JAM'],
      );
      assert.deepEqual(shown.items[1]?.['x-shelved'], {
        by: 'op-1',
        at: new Date(shelvedAt).toISOString(),
        until: new Date(shelvedAt + 2 * minute).toISOString(),
        reason: 'jam cleared by hand',
      });
      assert.equal(shown.items[0]?.['x-shelved'], undefined);
      // The fleet list and the comma and repeated forms.
      const fleet = await rig.call('GET', '/api/alarms?include=shelved,outOfService');
      assert.equal(fleet.json<{ data: ListJson }>().data.count, 2);
      assert.equal((await list('?include=outOfService&include=shelved')).count, 2);
      const bad = await rig.call('GET', '/api/plcs/line1/alarms?include=archived');
      assert.equal(bad.statusCode, 400);
      assert.equal(errorCode(bad), 'VALIDATION_ERROR');
      // Health: the ERROR is shelved, the WARNING decides.
      const h = await health();
      assert.equal(h.status, 'Degraded');
      assert.deepEqual(h.checks[0]?.data, { shelved: 1, outOfService: 0, suppressed: 0 });

      // A transition of the shelved alarm reaches only the client that includes shelved ones: ack it.
      const ack = await rig.call('POST', '/api/plcs/line1/alarms/CAPPER_JAM/acknowledge');
      assert.equal(ack.statusCode, 200, ack.body);
      await all.next((e) => e.event === 'alarm' && (e.data as { kind: string }).kind === 'acknowledged');

      clock.advance(2 * minute - 1);
      assert.equal((await list()).shelvedCount, 1, 'still shelved 1 ms before until');
      clock.advance(1);
      const expired = shelving(await plain.next((e) => shelving(e)?.action === 'unshelved'));
      assert.deepEqual(
        { code: expired?.code, cause: expired?.cause, by: expired?.by },
        { code: 'CAPPER_JAM', cause: 'expired', by: undefined },
      );
      assert.deepEqual(await codes(), ['FILLER_OVERTEMP', 'CAPPER_JAM']);
      assert.equal((await health()).status, 'Unhealthy');
      assert.equal(
        plain.events.filter(
          (e) => e.event === 'alarm' && (e.data as { kind: string }).kind === 'acknowledged',
        ).length,
        0,
        'the shelved alarm’s acknowledgement stayed off the default stream',
      );
    });

    test('a shelve ends with its occurrence (one-shot), and the shelving journal and audit record who did what', async () => {
      const plain = await sse();
      assert.equal(
        (await shelve('FILLER_OVERTEMP', { minutes: 60, reason: 'overtemp known' }, operator)).statusCode,
        200,
      );
      // FILLER_OVERTEMP clears at cycle 5; acknowledged, it ends.
      await rig.step(3);
      const ack = await rig.call('POST', '/api/plcs/line1/alarms/FILLER_OVERTEMP/acknowledge');
      assert.equal(ack.statusCode, 200, ack.body);
      await rig.settle();
      const ended = shelving(
        await plain.next(
          (e) => shelving(e)?.action === 'unshelved' && shelving(e)?.code === 'FILLER_OVERTEMP',
        ),
      );
      assert.equal(ended?.cause, 'ended');
      // The `ended` transition of the shelved occurrence stayed hidden too.
      assert.equal(
        plain.events.filter(
          (e) =>
            e.event === 'alarm' && (e.data as { alarm: { code: string } }).alarm.code === 'FILLER_OVERTEMP',
        ).length,
        0,
      );
      // Raised again at cycle 8: a new occurrence, not shelved.
      await rig.step(3);
      assert.ok((await codes()).includes('FILLER_OVERTEMP'));

      const journal = (await rig.call('GET', '/api/plcs/line1/alarms/shelving?limit=1000')).json<{
        data: { items: Shelving[] };
      }>().data.items;
      const lines = journal.map((e) => `${e.action} ${e.code} ${e.by ?? '-'} ${e.cause ?? ''}`.trim());
      assert.deepEqual(lines.slice(-5), [
        'unshelved FILLER_OVERTEMP op-1 byHand',
        'shelved CAPPER_JAM op-1',
        'unshelved CAPPER_JAM - expired',
        'shelved FILLER_OVERTEMP op-1',
        'unshelved FILLER_OVERTEMP - ended',
      ]);
      const audit = (await rig.call('GET', '/api/admin/audit?limit=500')).json<{
        data: { items: Array<{ action: string; target: string; sub: string; result: string }> };
      }>().data.items;
      const shelves = audit.filter((a) => a.action === 'alarm.shelve' && a.result === 'ok');
      assert.ok(
        shelves.some((a) => a.target === 'CAPPER_JAM' && a.sub === 'op-1'),
        JSON.stringify(audit),
      );
      assert.ok(audit.some((a) => a.action === 'alarm.unshelve' && a.target === 'FILLER_OVERTEMP'));
    });

    test('out of service: an operator is refused (403), an admin takes it out until returned by hand', async () => {
      const key = 'CAPPER_JAM';
      const refused = await rig.call(
        'POST',
        `/api/plcs/line1/alarms/${key}/out-of-service`,
        { reason: 'sensor broken' },
        operator,
      );
      assert.equal(refused.statusCode, 403);
      const missing = await rig.call('POST', `/api/plcs/line1/alarms/${key}/out-of-service`, {});
      assert.equal(missing.statusCode, 400);
      const plain = await sse();
      const taken = await rig.call('POST', `/api/plcs/line1/alarms/${key}/out-of-service`, {
        reason: 'sensor broken',
      });
      assert.equal(taken.statusCode, 200, taken.body);
      const event = shelving(await plain.next((e) => shelving(e)?.action === 'outOfService'));
      assert.equal(event?.by, 'test-user');
      const l = await list();
      assert.ok(!l.items.some((a) => a.code === key));
      assert.equal(l.outOfServiceCount, 1);
      const shown = await list('?include=outOfService');
      assert.deepEqual(shown.items.find((a) => a.code === key)?.['x-outOfService'], {
        by: 'test-user',
        at: new Date(clock.now()).toISOString(),
        reason: 'sensor broken',
      });
      // Long after any shelve would have run out, it stays out of service.
      clock.advance(24 * 60 * minute);
      assert.equal((await list()).outOfServiceCount, 1);
      const h = (await rig.app.inject({ method: 'GET', url: '/health/alarms' })).json<{
        checks: Array<{ data: { outOfService: number } }>;
      }>();
      assert.equal(h.checks[0]?.data.outOfService, 1);

      const byOperator = await rig.call(
        'POST',
        `/api/plcs/line1/alarms/${key}/return-to-service`,
        undefined,
        operator,
      );
      assert.equal(byOperator.statusCode, 403);
      const back = await rig.call('POST', `/api/plcs/line1/alarms/${key}/return-to-service`);
      assert.equal(back.statusCode, 200, back.body);
      await plain.next((e) => shelving(e)?.action === 'returnedToService');
      assert.ok((await codes()).includes(key));
      const again = await rig.call('POST', `/api/plcs/line1/alarms/${key}/return-to-service`);
      assert.equal(again.statusCode, 409);
      assert.equal(errorCode(again), 'ALARM_NOT_OUT_OF_SERVICE');
      // A known key that is not outstanding may be taken out of service.
      const quiet = await rig.call('POST', '/api/plcs/line1/alarms/capper_jam/out-of-service', {
        reason: 'x',
      });
      assert.equal(quiet.statusCode, 200, quiet.body);
      const unknown = await rig.call('POST', '/api/plcs/line1/alarms/NOPE/out-of-service', { reason: 'x' });
      assert.equal(unknown.statusCode, 404);
      assert.equal(errorCode(unknown), 'ALARM_NOT_FOUND');
    });

    test('plc_access: a token without line1 cannot shelve, list its shelving journal or take it out of service', async () => {
      const other = bearer(await mintToken({ plc_access: ['other'] }));
      for (const [url, body] of [
        ['/api/plcs/line1/alarms/CAPPER_JAM/shelve', { minutes: 5, reason: 'x' }],
        ['/api/plcs/line1/alarms/CAPPER_JAM/out-of-service', { reason: 'x' }],
      ] as const) {
        const res = await rig.call('POST', url, body, other);
        assert.equal(res.statusCode, 403, url);
      }
      assert.equal(
        (await rig.call('GET', '/api/plcs/line1/alarms/shelving', undefined, other)).statusCode,
        403,
      );
    });
  });
}
