// Hostile and careless clients over real sockets: a seeded fuzz of random and mutated frames, a client
// that never reads its answers, and wildcard patterns chosen to make a matcher backtrack.
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { globMatches } from '../../../src/simulator/ads-server/file-service.ts';
import {
  encodeAmsPacket,
  FrameSplitter,
  decodeAmsPacket,
} from '../../../src/simulator/ads-server/protocol/frame.ts';
import { createAdsServer, type AdsServer } from '../../../src/simulator/ads-server/server.ts';
import { SimulatedPlc } from '../../../src/simulator/engine/plc.ts';
import { buildProgram, startHarness, type Harness } from './fixture.ts';

const SYSTEM = { adsPort: 10000 };
const FFILEFIND = 133;

const u32 = (v: number): Buffer => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(v >>> 0);
  return b;
};

function request(
  commandId: number,
  data: Buffer,
  invokeId: number,
  port = 851,
  netId = '127.0.0.1.1.1',
): Buffer {
  return encodeAmsPacket({
    header: {
      target: { netId, port },
      source: { netId: '10.1.2.3.1.1', port: 40000 },
      commandId,
      stateFlags: 4,
      errorCode: 0,
      invokeId,
    },
    data,
  });
}

interface Peer {
  socket: Socket;
  frames: number;
  invokeIds: number[];
  closed: Promise<void>;
  /** Resolves once `count` frames have arrived in total. */
  until(count: number): Promise<void>;
}

function peer(port: number): Promise<Peer> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1' });
    const splitter = new FrameSplitter(64 * 1024 * 1024);
    const waits: Array<{ count: number; done: () => void }> = [];
    const p: Peer = {
      socket,
      frames: 0,
      invokeIds: [],
      closed: new Promise((r) => socket.once('close', () => r())),
      until: (count) =>
        new Promise((done) => {
          if (p.frames >= count) done();
          else waits.push({ count, done });
        }),
    };
    socket.on('data', (chunk: Buffer) => {
      for (const f of splitter.push(chunk)) {
        p.frames++;
        if (f.command === 0 && f.payload.length >= 32)
          p.invokeIds.push(decodeAmsPacket(f.payload).header.invokeId);
      }
      for (const w of waits.filter((x) => p.frames >= x.count)) {
        waits.splice(waits.indexOf(w), 1);
        w.done();
      }
    });
    socket.on('error', () => undefined);
    socket.once('connect', () => resolve(p));
    socket.once('error', reject);
  });
}

describe('globMatches', () => {
  const table: Array<[string, string, boolean]> = [
    ['*.csv', 'r1.csv', true],
    ['*.CSV', 'r1.csv', true],
    ['r?.csv', 'r1.csv', true],
    ['r?.csv', 'r10.csv', false],
    ['*', '', true],
    ['', '', true],
    ['', 'a', false],
    ['a*b*c', 'aXXbYYc', true],
    ['a*b*c', 'aXXbYY', false],
    ['*a*a*a*a*a*a*b', 'a'.repeat(5000), false],
    ['*a*a*a*a*a*a*b', `${'a'.repeat(5000)}b`, true],
    ['[x].(y)+', '[x].(y)+', true],
    ['[x].(y)+', 'x.y', false],
  ];
  for (const [glob, name, expected] of table) {
    it(`${JSON.stringify(glob)} ~ ${JSON.stringify(name.length > 20 ? `${name.slice(0, 8)}…` : name)}: ${expected}`, () =>
      assert.equal(globMatches(glob, name), expected));
  }
});

describe('ADS server: robustness', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(async () => {
    await h.close();
  });

  it('answers FFILEFIND with a backtracking-prone pattern at once', async () => {
    await h.plc.files.write(`logs/${'a'.repeat(80)}`, Buffer.from('x'));
    const client = await h.connect();
    // A backtracking matcher would take on the order of 80^6 steps on this pattern: it would never answer.
    await assert.rejects(
      client.readWriteRaw(
        FFILEFIND,
        1,
        324,
        Buffer.from(`C:\\logs\\${'*a'.repeat(6)}*b\0`, 'latin1'),
        SYSTEM,
      ),
      (err: { adsError?: { errorCode: number } }) => err.adsError?.errorCode === 1804,
    );
  });

  it('stops answering a client that never reads, and answers everything in order once it does', async () => {
    const c = await peer(h.address.port);
    c.socket.pause();
    const upload = request(2, Buffer.concat([u32(0xf00b), u32(0), u32(1 << 30)]), 0);
    const count = 20_000;
    const batch: Buffer[] = [];
    for (let i = 1; i <= count; i++) {
      const frame = Buffer.from(upload);
      frame.writeUInt32LE(i, 6 + 28);
      batch.push(frame);
    }
    const mine = () => h.server.stats().clients.find((x) => x.remote.endsWith(`:${c.socket.localPort}`));
    // The server stalls this client once it holds too many unsent bytes (without a bound it would answer all).
    const stalled = new Promise<void>((resolve) => {
      const onStalled = (stalledId: number) => {
        if (stalledId !== mine()?.id) return;
        h.clientEvents.off('stalled', onStalled);
        resolve();
      };
      h.clientEvents.on('stalled', onStalled);
    });
    c.socket.write(Buffer.concat(batch));
    await stalled;
    const stats = mine();
    assert.ok(stats);
    assert.ok(stats.requests < count, `${stats.requests} of ${count} answered into a full socket`);
    assert.ok(stats.unsentBytes < 32 * 1024 * 1024, `${stats.unsentBytes} bytes held for the client`);
    c.socket.resume();
    await c.until(count);
    assert.deepEqual(
      c.invokeIds,
      Array.from({ length: count }, (_, i) => i + 1),
    );
    c.socket.destroy();
    await c.closed;
  });
});

describe('ADS server: seeded fuzz over TCP', () => {
  let server: AdsServer;
  let port = 0;
  const unexpected: unknown[] = [];
  before(async () => {
    server = createAdsServer({
      plc: new SimulatedPlc(buildProgram()),
      port: 0,
      tickMs: 5,
      onError: (e) => unexpected.push(e),
    });
    port = (await server.listen()).port;
  });
  after(async () => {
    await server.close();
  });

  it('never crashes or hangs, answers or closes only the bad connection, and keeps serving others', async () => {
    let seed = 20240506;
    const rnd = (): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const pick = <T>(list: readonly T[]): T => list[Math.floor(rnd() * list.length)] as T;
    const groups = [
      0x4040, 0xf003, 0xf004, 0xf005, 0xf006, 0xf008, 0xf009, 0xf00b, 0xf00c, 0xf00e, 0xf00f, 0xf011, 0xf080,
      0xf081, 0xf082, 0xf100, 0xf0, 120, 121, 122, 123, 131, 133, 0x1234,
    ];
    const names = [
      'MAIN.nInt',
      'GVL.fbAlarms#AcknowledgeAlarm',
      'MAIN.aAxes[2]',
      'MAIN.aGrid[1,2]',
      'MAIN.aWords[ 01 ]',
      'MAIN.aWords[99999999999999]',
      'x'.repeat(10_000),
      '',
      'C:\\..\\a',
      '*',
      '../x',
      '/etc/passwd',
      'a\\b/../c',
    ];
    const number = (): number =>
      pick([0, 1, 4, 12, 16, 324, 0xffffffff, 0x7fffffff, Math.floor(rnd() * 70000)]);
    const payload = (command: number): Buffer => {
      const ig = pick(groups);
      const name = Buffer.from(`${pick(names)}${rnd() < 0.8 ? '\0' : ''}`, 'latin1');
      switch (command) {
        case 2:
          return Buffer.concat([u32(ig), u32(number()), u32(number())]);
        case 3: {
          const data = Buffer.alloc(Math.floor(rnd() * 40), Math.floor(rnd() * 256));
          return Buffer.concat([u32(ig), u32(number()), u32(data.length), data]);
        }
        case 5:
          return Buffer.concat([Buffer.from([Math.floor(rnd() * 20), 0, 0, 0]), u32(0)]);
        case 6:
          return Buffer.concat([
            u32(ig),
            u32(number()),
            u32(number()),
            u32(pick([1, 3, 4, 99])),
            u32(number()),
            u32(number()),
            Buffer.alloc(16),
          ]);
        case 7:
          return u32(number());
        case 9: {
          if (ig >= 0xf080 && ig <= 0xf082) {
            const n = Math.floor(rnd() * 4);
            const table = Buffer.concat(
              Array.from({ length: n * 4 }, () => u32(rnd() < 0.5 ? pick(groups) : number())),
            );
            return Buffer.concat([
              u32(ig),
              u32(rnd() < 0.7 ? n : number()),
              u32(number()),
              u32(table.length),
              table,
            ]);
          }
          return Buffer.concat([u32(ig), u32(number()), u32(number()), u32(name.length), name]);
        }
        default:
          return Buffer.alloc(Math.floor(rnd() * 30), 0xaa);
      }
    };
    const frame = (): Buffer => {
      const command = pick([1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 42]);
      const netId = rnd() < 0.95 ? '127.0.0.1.1.1' : '1.2.3.4.5.6';
      let f = request(
        command,
        payload(command),
        Math.floor(rnd() * 1e6),
        rnd() < 0.8 ? 851 : pick([10000, 852, 0]),
        netId,
      );
      if (rnd() < 0.2) {
        f = Buffer.from(f);
        for (let k = 0; k < 3; k++)
          f[38 + Math.floor(rnd() * Math.max(1, f.length - 38))] = Math.floor(rnd() * 256);
      }
      if (rnd() < 0.004) {
        f = Buffer.from(f);
        f[Math.floor(rnd() * f.length)] = Math.floor(rnd() * 256);
      }
      if (rnd() < 0.002) f = f.subarray(0, Math.floor(rnd() * f.length));
      return f;
    };

    const good = await peer(port);
    let goodInvoke = 0;
    const readState = async (): Promise<void> => {
      goodInvoke++;
      good.socket.write(request(4, Buffer.alloc(0), goodInvoke));
      await good.until(goodInvoke);
      assert.equal(good.invokeIds.at(-1), goodInvoke);
    };

    let answered = 0;
    for (let round = 0; round < 30; round++) {
      const c = await peer(port);
      const frames = Array.from({ length: 100 }, frame);
      // Whatever the chunking: sometimes one write, sometimes byte runs of random sizes.
      const bytes = Buffer.concat(frames);
      if (round % 3 === 0) c.socket.write(bytes);
      else
        for (let at = 0; at < bytes.length;) {
          const n = 1 + Math.floor(rnd() * 300);
          c.socket.write(bytes.subarray(at, at + n));
          at += n;
        }
      await readState();
      c.socket.end();
      await c.closed;
      answered += c.frames;
    }
    await readState();
    assert.ok(answered > 1500, `only ${answered} frames answered: the fuzz barely reached the services`);
    assert.deepEqual(unexpected, []);
    const stats = server.stats();
    assert.equal(stats.connections, 1, 'every fuzzing connection is gone');
    assert.equal(stats.notifications, 0, 'and its notifications with it');
  });
});
