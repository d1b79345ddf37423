// Alarm journal values forged in the shared Redis, by two replicas in real processes on one sim-ads PLC (its
// script stopped: the test writes the alarm array): entries of another shape written straight into the journal
// stream are left out of every replica's stream, history and list, logged once each and counted, and the entries
// after them are served; a stored snapshot of another shape is taken as absent by the next lease holder, which
// derives the outstanding alarms from the PLC's first snapshot instead.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { resolve } from 'node:path';
import { Redis } from 'ioredis';
import { authHeaders, RawSse, type SseEvent } from '../../notifications/clients.ts';
import { entry } from '../fixture.ts';
import { startReplica, startSimAds, type CliProcess } from '../../../helpers/cluster-plant.ts';
import {
  alarmEvent,
  arrayPath,
  leasesOf,
  writeSlot as writeSlotVia,
  type Transition,
} from './alarm-cluster.ts';
import { alarmKeys } from '../../../../src/features/alarms/cluster/alarm-scripts.ts';
import { RedisServer } from '../../../helpers/redis-server.ts';
import { mintToken } from '../../../helpers/tokens.ts';

const rejectedEntry = 'alarm journal entry rejected';
const rejectedSnapshot = 'alarm journal snapshot rejected';

/** A reading as the holder writes it, for forged entries that differ from it in one field. */
const reading = {
  key: 'FORGED',
  equipmentId: 'eq',
  errorCode: 1,
  severity: 2,
  severityLabel: 'ERROR',
  isActive: true,
  needsAck: true,
  isAcked: false,
  slotIndex: 9,
};
const forgedEntry = (patch: Record<string, unknown>, readingPatch: Record<string, unknown> = {}): string =>
  JSON.stringify({
    at: '2026-11-28T10:00:00.000Z',
    kind: 'raised',
    reading: { ...reading, ...readingPatch },
    ...patch,
  });
const { key: _key, ...withoutKey } = reading;

/** Each forged entry's `e` field, the start of the reason it is rejected for, and whether its epoch is another. */
const forgeries: Array<[e: string, reason: string, otherEpoch?: true]> = [
  ['{"at": not json', 'not JSON'],
  [JSON.stringify({ at: '2026-11-28T10:00:00.000Z', kind: 'raised', reading: withoutKey }), '/reading/key'],
  [forgedEntry({ kind: 'deleted' }), '/kind'],
  [forgedEntry({}, { severity: 'high' }), '/reading/severity'],
  [forgedEntry({}, { needsAck: 'yes', slotIndex: -1 }), '/reading/needsAck'],
  // Of the right shape, but not of the journal's epoch (which Redis still holds).
  [forgedEntry({}), 'epoch', true],
  [forgedEntry({}, { equipmentId: 'x'.repeat(100_000), errorCode: 1.5 }), '/reading/errorCode'],
];

describe('cluster: forged alarm journal values in Redis are rejected, not served', () => {
  let redis: RedisServer;
  let direct: Redis;
  let sim: Awaited<ReturnType<typeof startSimAds>>;
  const replicas = new Map<string, CliProcess>();
  let headers: Record<string, string>;
  const keys = alarmKeys('line1');

  before(async () => {
    redis = await RedisServer.start();
    direct = new Redis(redis.url);
    sim = await startSimAds(resolve('test/features/alarms/scenario'), ['--stopped']);
    await Promise.all(
      ['r1', 'r2'].map(async (id, i) =>
        replicas.set(
          id,
          await startReplica({
            redisUrl: redis.url,
            simPort: sim.port,
            replicaId: id,
            index: i + 1,
            settings: {
              Logging: { Level: 'info' },
              Features: { Alarms: true, Variables: true, Rpc: true },
              PlcAlarms: { Targets: { line1: { SymbolPath: arrayPath, CycleTimeMs: 100 } } },
              Cluster: { Redis: redis.url, ReplicaId: id, HeartbeatSeconds: 1, LeaseSeconds: 3 },
            },
          }),
        ),
      ),
    );
    headers = authHeaders(await mintToken({ sub: 'operator-1' }));
  });

  after(async () => {
    direct.disconnect();
    await Promise.all([...replicas.values()].map((r) => r.stop()));
    await sim.process.stop();
    await redis.kill();
  });

  const all = (): CliProcess[] => [...replicas.values()];

  const stream = async (via: CliProcess): Promise<RawSse> => {
    const sse = await new RawSse(`${via.url}/api/plcs/line1/alarms/stream`, headers).opened();
    assert.equal(sse.status, 200);
    return sse;
  };

  const transitions = (events: readonly SseEvent[]): string[] =>
    events
      .filter((e) => e.event === 'alarm')
      .map((e) => `${(e.data as Transition).kind} ${(e.data as Transition).alarm.code}`);

  const history = async (via: CliProcess): Promise<Array<{ seq: number; kind: string; code: string }>> => {
    const res = await fetch(`${via.url}/api/plcs/line1/alarms/history?limit=1000`, { headers });
    assert.equal(res.status, 200);
    const items = (
      (await res.json()) as { data: { items: Array<{ seq: number; kind: string; alarm: { code: string } }> } }
    ).data.items;
    return items.map((i) => ({ seq: i.seq, kind: i.kind, code: i.alarm.code }));
  };

  const list = async (via: CliProcess): Promise<string[]> => {
    const res = await fetch(`${via.url}/api/plcs/line1/alarms`, { headers });
    return ((await res.json()) as { data: { items: Array<{ code: string }> } }).data.items.map((a) => a.code);
  };

  const rejectedCount = async (via: CliProcess, kind: string): Promise<number> => {
    const metrics = await (await fetch(`${via.url}/metrics`)).text();
    const line = new RegExp(`^alarm_journal_rejected_total\\{plcId="line1",kind="${kind}"\\} (\\d+)$`, 'm');
    return Number(line.exec(metrics)?.[1] ?? 0);
  };

  const logLines = (via: CliProcess, message: string): Array<Record<string, unknown>> =>
    via
      .output()
      .split('\n')
      .filter((line) => line.includes(message))
      .map((line) => JSON.parse(line) as Record<string, unknown>);

  // The timeouts only turn a replica that stopped delivering into a failure instead of a hang.
  it(
    'entries of another shape in the stream: left out everywhere, logged once each with their id, counted; the next entry is served',
    { timeout: 60_000 },
    async () => {
      const clients = await Promise.all(all().map(stream));
      await writeSlotVia(all()[0] as CliProcess, headers, 1, entry({ sKey: 'PUMP_DRY', ErrorType: 3 }));
      await Promise.all(clients.map((c) => c.next(alarmEvent('raised', 'PUMP_DRY'))));

      // Appended as a holder would (the next numbers, the state's newest seq), but not of the holder's shape.
      const [epoch, newest] = (await direct.hmget(keys.state, 'epoch', 'seq')) as [string, string];
      const ids = forgeries.map((_, i) => `${BigInt(newest) + BigInt(i + 1)}-0`);
      const logged = all().map((r) => r.logged((line) => line.includes(rejectedEntry), forgeries.length));
      const forge = direct.multi();
      for (const [i, [e, , otherEpoch]] of forgeries.entries())
        forge.xadd(
          keys.journal,
          ids[i] as string,
          'p',
          otherEpoch ? String(BigInt(epoch) - 1n) : epoch,
          'e',
          e,
        );
      forge.hset(keys.state, 'seq', (BigInt(newest) + BigInt(forgeries.length)).toString());
      await forge.exec();
      // Read by each replica's periodic check of the stream.
      await Promise.all(logged);

      await writeSlotVia(all()[1] as CliProcess, headers, 2, entry({ sKey: 'AFTER_FORGED', ErrorType: 2 }));
      const served = await Promise.all(clients.map((c) => c.next(alarmEvent('raised', 'AFTER_FORGED'))));
      const afterSeq = BigInt(newest) + BigInt(forgeries.length) + 1n;
      for (const [i, c] of clients.entries()) {
        assert.deepEqual(transitions(c.events), ['raised PUMP_DRY', 'raised AFTER_FORGED']);
        assert.equal(served[i]?.id, `line1:${afterSeq}`);
      }
      for (const r of all()) {
        const journal = await history(r);
        assert.deepEqual(
          journal.map((i) => `${i.kind} ${i.code}`),
          ['raised PUMP_DRY', 'raised AFTER_FORGED'],
        );
        assert.equal(String(journal[1]?.seq), afterSeq.toString());
        assert.deepEqual((await list(r)).sort(), ['AFTER_FORGED', 'PUMP_DRY']);
        assert.equal(await rejectedCount(r, 'entry'), forgeries.length);
        const lines = logLines(r, rejectedEntry);
        assert.deepEqual(
          lines.map((l) => [l.plcId, l.id]),
          ids.map((id) => ['line1', id]),
        );
        for (const [i, [, reason]] of forgeries.entries())
          assert.ok(String(lines[i]?.reason).startsWith(reason), `${String(lines[i]?.reason)} for ${reason}`);
        // The large forged entry is quoted in part only.
        assert.ok(String(lines.at(-1)?.entry).length < 300);
        assert.doesNotMatch(r.output(), /alarm journal follow failed/);
      }
      for (const c of clients) c.close();
    },
  );

  it(
    'a stored snapshot of another shape: the next holder takes it as absent and raises what the PLC shows again',
    { timeout: 60_000 },
    async () => {
      const leases = await leasesOf(all()[0] as CliProcess);
      const holderId = leases.line1 as string;
      const holder = replicas.get(holderId) as CliProcess;
      const next = all().find((r) => r !== holder) as CliProcess;
      const client = await stream(next);
      // A ghost alarm the PLC does not show, with a slot that is not a number.
      await direct.hset(
        keys.state,
        'snapshot',
        JSON.stringify([{ ...reading, key: 'GHOST', slotIndex: 'x' }]),
      );
      const rejected = next.logged((line) => line.includes(rejectedSnapshot));
      await holder.stop();
      replicas.delete(holderId);
      await rejected;
      // Derived from the PLC's first snapshot, as after a fresh start: the outstanding alarms are raised again.
      await client.next(alarmEvent('raised', 'AFTER_FORGED'));
      await writeSlotVia(next, headers, 3, entry({ sKey: 'LAST', ErrorType: 1 }));
      await client.next(alarmEvent('raised', 'LAST'));
      // Nothing of the ghost: neither listed nor ended.
      assert.deepEqual(transitions(client.events), ['raised PUMP_DRY', 'raised AFTER_FORGED', 'raised LAST']);
      assert.deepEqual((await list(next)).sort(), ['AFTER_FORGED', 'LAST', 'PUMP_DRY']);
      assert.equal(await rejectedCount(next, 'snapshot'), 1);
      const [line] = logLines(next, rejectedSnapshot);
      assert.equal(line?.plcId, 'line1');
      assert.match(String(line?.reason), /^\/0\/slotIndex /);
      // The new holder's first append stored a snapshot of its own, which the journal's copies load.
      const stored = JSON.parse((await direct.hget(keys.state, 'snapshot')) ?? '[]') as Array<{
        key: string;
      }>;
      assert.deepEqual(stored.map((r) => r.key).sort(), ['AFTER_FORGED', 'PUMP_DRY']);
      assert.equal(
        await rejectedCount(next, 'entry'),
        forgeries.length,
        'the takeover reported no entry again',
      );
      client.close();
    },
  );
});
