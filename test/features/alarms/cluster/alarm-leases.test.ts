// Alarm leases over three replicas in real processes: six PLCs (six targets on one sim-ads, each replica reaching
// it through a TCP proxy of its own, so a test can cut one replica off the PLCs while the others keep them), one
// Redis. The leases gather on the senior replica: a replica alone takes every lease and keeps them when others
// join below it; when it loses its PLC connection the others take its leases and the journal goes on; once it
// reaches the PLCs again, they offer them back and it takes them over, with nothing raised twice; when it dies,
// the next in rank takes every lease over.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { resolve } from 'node:path';
import { authHeaders, RawSse } from '../../notifications/clients.ts';
import { entry } from '../fixture.ts';
import { startReplica, startSimAds, type CliProcess } from '../../../helpers/cluster-plant.ts';
import {
  alarmEvent,
  arrayPath,
  leasesOf,
  writeSlot as writeSlotVia,
  type Transition,
} from './alarm-cluster.ts';
import { RedisServer } from '../../../helpers/redis-server.ts';
import { mintToken } from '../../../helpers/tokens.ts';

const lines = ['line1', 'line2', 'line3', 'line4', 'line5', 'line6'];

/** A TCP proxy to the simulator; `cut()` drops its connections and refuses new ones until `restore()`. */
class PlcLink {
  readonly #sockets = new Set<Socket>();
  #cut = false;
  private constructor(
    readonly server: Server,
    readonly port: number,
  ) {}

  static async start(simPort: number): Promise<PlcLink> {
    const server = createServer();
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const address = server.address();
    const link = new PlcLink(server, typeof address === 'object' && address !== null ? address.port : 0);
    server.on('connection', (client) => link.#accept(client, simPort));
    return link;
  }

  #accept(client: Socket, simPort: number): void {
    if (this.#cut) {
      client.destroy();
      return;
    }
    const upstream = createConnection(simPort, '127.0.0.1');
    for (const [a, b] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      this.#sockets.add(a);
      a.pipe(b);
      a.on('error', () => b.destroy());
      a.on('close', () => {
        this.#sockets.delete(a);
        b.destroy();
      });
    }
  }

  cut(): void {
    this.#cut = true;
    for (const s of this.#sockets) s.destroy();
  }

  restore(): void {
    this.#cut = false;
  }

  async close(): Promise<void> {
    this.cut();
    this.server.close();
    await once(this.server, 'close');
  }
}

describe('cluster: alarm leases gather on the senior replica and follow PLC reachability', () => {
  let redis: RedisServer;
  let sim: Awaited<ReturnType<typeof startSimAds>>;
  const links = new Map<string, PlcLink>();
  const replicas = new Map<string, CliProcess>();
  let headers: Record<string, string>;

  const start = async (id: string, index: number): Promise<CliProcess> => {
    const link = await PlcLink.start(sim.port);
    links.set(id, link);
    const target = { Mode: 'Real', AmsNetId: '127.0.0.1.1.1', Address: '127.0.0.1', TcpPort: link.port };
    const replica = await startReplica({
      redisUrl: redis.url,
      simPort: link.port,
      replicaId: id,
      index,
      settings: {
        Logging: { Level: 'info' },
        Features: { Alarms: true, Variables: true },
        RateLimiting: { NotificationConnections: 100 },
        PlcTargets: Object.fromEntries(lines.map((line) => [line, target])),
        PlcAlarms: {
          Targets: Object.fromEntries(
            lines.map((line) => [line, { SymbolPath: arrayPath, CycleTimeMs: 100 }]),
          ),
        },
        Cluster: { Redis: redis.url, ReplicaId: id, HeartbeatSeconds: 1, LeaseSeconds: 2 },
      },
    });
    replicas.set(id, replica);
    return replica;
  };

  before(async () => {
    redis = await RedisServer.start();
    sim = await startSimAds(resolve('test/features/alarms/scenario'), ['--stopped']);
    headers = authHeaders(await mintToken({ sub: 'operator-1' }));
  });

  after(async () => {
    await Promise.all([...replicas.values()].map((r) => r.stop()));
    await Promise.all([...links.values()].map((l) => l.close()));
    await sim.process.stop();
    await redis.kill();
  });

  const replica = (id: string): CliProcess => replicas.get(id) as CliProcess;

  /** plcId -> holder, as the first replica's readiness check lists them. */
  const leases = (): Promise<Record<string, string>> => leasesOf([...replicas.values()][0] as CliProcess);

  /** Holder -> how many leases it holds. */
  const counts = (held: Record<string, string>): Record<string, number> => {
    const n: Record<string, number> = {};
    for (const holder of Object.values(held)) n[holder] = (n[holder] ?? 0) + 1;
    return n;
  };

  /**
   * Waits until the leases satisfy `done`: read again after every lease change any replica logs (the wait is
   * armed before each read, so no change falls between).
   */
  async function leasesUntil(
    done: (held: Record<string, string>) => boolean,
  ): Promise<Record<string, string>> {
    for (;;) {
      const changed = Promise.any(
        [...replicas.values()].map((p) => p.logged((line) => line.includes('alarm lease'))),
      );
      const held = await leases();
      if (done(held)) return held;
      await changed;
    }
  }

  const everyLineHeld = (held: Record<string, string>): boolean => lines.every((l) => held[l] !== undefined);

  const writeSlot = (via: CliProcess, slot: number, value: Record<string, unknown>): Promise<void> =>
    writeSlotVia(via, headers, slot, value);

  const history = async (via: CliProcess, line: string): Promise<string[]> => {
    const res = await fetch(`${via.url}/api/plcs/${line}/alarms/history?limit=1000`, { headers });
    assert.equal(res.status, 200);
    const items = ((await res.json()) as { data: { items: Array<Transition & { seq: number }> } }).data.items;
    return items.map((i) => `${i.seq} ${i.kind} ${i.alarm.code}`);
  };

  const raisedEvent = (code: string) => alarmEvent('raised', code);

  /** The first line of `replica`'s output so far that `match` accepts, or the next one. */
  const seen = (replica: CliProcess, match: (line: string) => boolean): Promise<string> => {
    const earlier = replica.output().split('\n').find(match);
    return earlier !== undefined ? Promise.resolve(earlier) : replica.logged(match);
  };

  /** Every line's journal, the same on every running replica, without its seqs. */
  const journals = async (): Promise<string[][]> => {
    const kinds: string[][] = [];
    for (const line of lines) {
      const all = await Promise.all([...replicas.values()].map((r) => history(r, line)));
      for (const other of all.slice(1)) assert.deepEqual(other, all[0], line);
      kinds.push((all[0] ?? []).map((i) => i.split(' ').slice(1).join(' ')));
    }
    return kinds;
  };

  it('a replica alone holds every lease and keeps them all when two join below it; nothing is raised twice', async () => {
    await start('r1', 1);
    await leasesUntil((held) => everyLineHeld(held) && counts(held).r1 === lines.length);
    assert.match(await seen(replica('r1'), (l) => l.includes('"rank":')), /"rank":0/);
    const seenBy = await new RawSse(`${replica('r1').url}/api/plcs/line6/alarms/stream`, headers).opened();
    await writeSlot(replica('r1'), 1, entry({ sKey: 'BEFORE_JOIN', ErrorType: 2 }));
    // Raised, or listed by the resync of a journal that started meanwhile.
    await seenBy.next(
      (e) =>
        raisedEvent('BEFORE_JOIN')(e) ||
        (e.event === 'resync' &&
          (e.data as { items: Array<{ code: string }> }).items.some((i) => i.code === 'BEFORE_JOIN')),
    );

    await Promise.all([start('r2', 2), start('r3', 3)]);
    const rankOf = async (id: string): Promise<number> =>
      Number(/"rank":(\d+)/.exec(await seen(replica(id), (l) => l.includes('"rank":')))?.[1]);
    // Ranked by when each counted the members first: whichever of them came first is 1.
    assert.deepEqual((await Promise.all([rankOf('r2'), rankOf('r3')])).sort(), [1, 2]);
    assert.deepEqual(counts(await leases()), { r1: lines.length });
    for (const kinds of await journals()) assert.deepEqual(kinds, ['raised BEFORE_JOIN']);
    seenBy.close();
  });

  it('the senior cut off from its PLCs: the others take its leases and the journal goes on; back in reach, it takes them all over again', async () => {
    const line = 'line3';
    const client = await new RawSse(`${replica('r2').url}/api/plcs/${line}/alarms/stream`, headers).opened();

    const gaveUp = replica('r1').logged((l) => l.includes('alarm lease given up'));
    links.get('r1')?.cut();
    await gaveUp;
    // Raised while no replica watches the line: the one that takes its lease derives it from its first snapshot.
    await writeSlot(replica('r2'), 2, entry({ sKey: 'WHILE_CUT_OFF', ErrorType: 3 }));
    await client.next(raisedEvent('WHILE_CUT_OFF'));
    // r1 still takes part in the rounds as the senior: the others take its leases once they have stayed free for
    // their grace time (r2's first, being next in rank; r3's if r2 is slow).
    await leasesUntil((h) => everyLineHeld(h) && Object.values(h).every((id) => id !== 'r1'));
    client.close();

    // Back in reach: the others offer it their leases at every round; it takes them over from the stored journal.
    links.get('r1')?.restore();
    await leasesUntil((h) => everyLineHeld(h) && counts(h).r1 === lines.length);
    for (const kinds of await journals())
      assert.deepEqual(kinds, ['raised BEFORE_JOIN', 'raised WHILE_CUT_OFF']);
  });

  it('the senior SIGKILLed: the next in rank takes every lease over, and an alarm raised meanwhile is journaled once', async () => {
    const takeovers = async (id: string): Promise<number> => {
      const text = await (await fetch(`${replica(id).url}/metrics`)).text();
      return Number(/^cluster_alarm_lease_takeovers_total (\d+)$/m.exec(text)?.[1]);
    };
    const before = { r2: await takeovers('r2'), r3: await takeovers('r3') };
    const clients = await Promise.all(
      ['r2', 'r3'].flatMap((id) =>
        lines.map((line) =>
          new RawSse(`${replica(id).url}/api/plcs/${line}/alarms/stream`, headers).opened(),
        ),
      ),
    );

    const tookOver = (id: string) =>
      replica(id).logged((l) => l.includes('alarm lease taken over'), lines.length);
    const tookOverBy = { r2: tookOver('r2'), r3: tookOver('r3') };
    await replica('r1').kill();
    replicas.delete('r1');
    // Raised while no replica watches the PLC: each new holder derives it from its first snapshot.
    await writeSlot(replica('r2'), 3, entry({ sKey: 'WHILE_DEAD', ErrorType: 1 }));
    const held = await leasesUntil(
      (h) => everyLineHeld(h) && new Set(Object.values(h)).size === 1 && h.line1 !== 'r1',
    );
    // Every line's new holder has appended it, and both survivors' copies hold it.
    await Promise.all(clients.map((client) => client.next(raisedEvent('WHILE_DEAD'))));
    for (const client of clients) client.close();
    const next = held.line1 === 'r2' ? 'r2' : 'r3';
    // A takeover counts at the new holder's first append, which comes after its lease shows.
    await tookOverBy[next];
    assert.equal((await takeovers(next)) - before[next], lines.length, 'one takeover per PLC');
    for (const kinds of await journals())
      assert.deepEqual(kinds, ['raised BEFORE_JOIN', 'raised WHILE_CUT_OFF', 'raised WHILE_DEAD']);
  });
});
