// Alarm leases spread over three replicas in real processes: six PLCs (six targets on one sim-ads, each replica
// reaching it through a TCP proxy of its own, so a test can cut one replica off the PLCs while the others keep
// them), one Redis. A replica alone takes every lease; replicas that join get their share, handed over without a
// second `raised`; a holder that loses its PLC connection hands its leases on and the journal goes on elsewhere;
// once it reaches the PLCs again, the others offer it its share back.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { resolve } from 'node:path';
import { authHeaders, RawSse } from '../features/notifications/clients.ts';
import { entry } from '../features/alarms/fixture.ts';
import { startReplica, startSimAds, type CliProcess } from '../helpers/cluster-plant.ts';
import {
  alarmEvent,
  arrayPath,
  leasesOf,
  writeSlot as writeSlotVia,
  type Transition,
} from './alarm-cluster.ts';
import { RedisServer } from '../helpers/redis-server.ts';
import { mintToken } from '../helpers/tokens.ts';

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

describe('cluster: alarm leases spread over the replicas and follow PLC reachability', () => {
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

  it('a replica alone holds every lease; two that join get their share, and nothing is raised twice', async () => {
    await start('r1', 1);
    await leasesUntil((held) => everyLineHeld(held) && counts(held).r1 === lines.length);
    const seen = await new RawSse(`${replica('r1').url}/api/plcs/line6/alarms/stream`, headers).opened();
    await writeSlot(replica('r1'), 1, entry({ sKey: 'BEFORE_JOIN', ErrorType: 2 }));
    // Raised, or listed by the resync of a journal that started meanwhile.
    await seen.next(
      (e) =>
        raisedEvent('BEFORE_JOIN')(e) ||
        (e.event === 'resync' &&
          (e.data as { items: Array<{ code: string }> }).items.some((i) => i.code === 'BEFORE_JOIN')),
    );

    await Promise.all([start('r2', 2), start('r3', 3)]);
    const held = await leasesUntil(
      (h) =>
        everyLineHeld(h) &&
        Object.values(counts(h)).every((n) => n === 2) &&
        Object.keys(counts(h)).length === 3,
    );
    assert.deepEqual(counts(held), { r1: 2, r2: 2, r3: 2 });
    // The leases that moved were taken over from the stored journal: BEFORE_JOIN stays raised once everywhere.
    for (const line of lines) {
      const journals = await Promise.all(['r1', 'r2', 'r3'].map((id) => history(replica(id), line)));
      assert.deepEqual(journals[1], journals[0], line);
      assert.deepEqual(journals[2], journals[0], line);
      assert.deepEqual(
        (journals[0] ?? []).map((i) => i.split(' ').slice(1).join(' ')),
        ['raised BEFORE_JOIN'],
        line,
      );
    }
    seen.close();
  });

  it('a holder that loses its PLC connection hands its leases on; the journal goes on, then it gets its share back', async () => {
    // Whichever of r2 and r3 holds more (r1 stays in reach: the test writes the PLC through it).
    const before = await leases();
    const cutOff = (counts(before).r2 ?? 0) >= (counts(before).r3 ?? 0) ? 'r2' : 'r3';
    const watcher = replica(cutOff === 'r2' ? 'r3' : 'r2');
    const line = lines.find((l) => before[l] === cutOff);
    assert.ok(line !== undefined, `${cutOff} holds a lease`);
    const client = await new RawSse(`${watcher.url}/api/plcs/${line}/alarms/stream`, headers).opened();

    const gaveUp = replica(cutOff).logged((l) => l.includes('alarm lease given up'));
    links.get(cutOff)?.cut();
    await gaveUp;
    // Raised while no replica watches the line: the one that takes its lease derives it from its first snapshot.
    await writeSlot(replica('r1'), 2, entry({ sKey: 'WHILE_CUT_OFF', ErrorType: 3 }));
    await client.next(raisedEvent('WHILE_CUT_OFF'));
    // The cut-off replica still takes part in the rounds, so the others' shares are full: they take its leases
    // once these have stayed free for the grace time.
    await leasesUntil((h) => everyLineHeld(h) && Object.values(h).every((id) => id !== cutOff));
    const journal = await history(replica('r1'), line);
    assert.deepEqual(
      journal.map((i) => i.split(' ').slice(1).join(' ')),
      ['raised BEFORE_JOIN', 'raised WHILE_CUT_OFF'],
    );
    assert.deepEqual(await history(watcher, line), journal);
    client.close();

    // Back in reach: the replicas above their share offer it a lease each round, which it takes over.
    links.get(cutOff)?.restore();
    await leasesUntil((h) => everyLineHeld(h) && Object.values(counts(h)).join() === '2,2,2');
  });
});
