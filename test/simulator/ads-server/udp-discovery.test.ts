// UDP discovery and add-route (port 48899 on a real system), with datagrams built the way Beckhoff's
// ADS library builds them (GetRemoteAddress, AddRemoteRoute) and a broadcast search sends them.
import assert from 'node:assert/strict';
import { createSocket, type Socket } from 'node:dgram';
import { after, before, describe, it } from 'node:test';
import { createAdsServer, type AdsServer } from '../../../src/simulator/ads-server/server.ts';
import { SimulatedPlc } from '../../../src/simulator/engine/plc.ts';
import { buildProgram } from './fixture.ts';

interface Answer {
  cookie: number;
  invokeId: number;
  service: number;
  netId: string;
  port: number;
  tags: Map<number, Buffer>;
}

function datagram(service: number, invokeId: number, tags: Array<[number, Buffer]>): Buffer {
  const head = Buffer.alloc(24);
  head.writeUInt32LE(0x71146603, 0);
  head.writeUInt32LE(invokeId, 4);
  head.writeUInt32LE(service, 8);
  Buffer.from([10, 0, 0, 7, 1, 1]).copy(head, 12);
  head.writeUInt32LE(tags.length, 20);
  const parts = tags.map(([tag, value]) => {
    const h = Buffer.alloc(4);
    h.writeUInt16LE(tag, 0);
    h.writeUInt16LE(value.length, 2);
    return Buffer.concat([h, value]);
  });
  return Buffer.concat([head, ...parts]);
}

function parse(data: Buffer): Answer {
  const tags = new Map<number, Buffer>();
  let pos = 24;
  for (let i = 0; i < data.readUInt32LE(20); i++) {
    const length = data.readUInt16LE(pos + 2);
    tags.set(data.readUInt16LE(pos), data.subarray(pos + 4, pos + 4 + length));
    pos += 4 + length;
  }
  assert.equal(pos, data.length, 'the tags fill the datagram');
  return {
    cookie: data.readUInt32LE(0),
    invokeId: data.readUInt32LE(4),
    service: data.readUInt32LE(8),
    netId: [...data.subarray(12, 18)].join('.'),
    port: data.readUInt16LE(18),
    tags,
  };
}

const text = (s: string): Buffer => Buffer.from(`${s}\0`);
const routeTags = (password: string, name = 'engineering-pc'): Array<[number, Buffer]> => [
  [12, text(name)],
  [7, Buffer.from([192, 168, 10, 20, 1, 1])],
  [13, text('Administrator')],
  [2, text(password)],
  [5, text('192.168.10.20')],
];

describe('ADS server: UDP discovery and routes', () => {
  let server: AdsServer;
  let udpPort: number;
  let client: Socket;
  const routesSeen: string[] = [];
  const ask = (message: Buffer): Promise<Answer> =>
    new Promise((resolve) => {
      client.once('message', (data) => resolve(parse(data)));
      client.send(message, udpPort, '127.0.0.1');
    });

  before(async () => {
    server = createAdsServer({
      plc: new SimulatedPlc(buildProgram(), { version: '3.1.4026' }),
      port: 0,
      netId: '5.80.201.232.1.1',
      udp: { port: 0, hostName: 'CX-5A1B2C', routePassword: '1', onRoute: (r) => routesSeen.push(r.name) },
    });
    udpPort = (await server.listen()).udpPort ?? 0;
    assert.ok(udpPort > 0);
    client = createSocket('udp4');
    await new Promise<void>((r) => client.bind(0, '127.0.0.1', r));
  });
  after(async () => {
    client.close();
    await server.close();
  });

  it('answers a search with NetId, host name, OS and TwinCAT version', async () => {
    const a = await ask(datagram(1, 77, []));
    assert.deepEqual(
      [a.cookie, a.invokeId, a.service, a.netId, a.port],
      [0x71146603, 77, 0x80000001, '5.80.201.232.1.1', 10000],
    );
    assert.equal(a.tags.get(5)?.toString(), 'CX-5A1B2C\0');
    assert.deepEqual([...(a.tags.get(3) ?? [])], [3, 1, 0xba, 0x0f]);
    const os = a.tags.get(4) ?? Buffer.alloc(20);
    assert.deepEqual([os.readUInt32LE(4), os.readUInt32LE(8), os.readUInt32LE(16)], [10, 0, 2]);
  });

  it('adds a route with the right password, records it and refuses a wrong one with 0x704', async () => {
    const ok = await ask(datagram(6, 1, routeTags('1')));
    assert.equal(ok.service, 0x80000006);
    assert.equal(ok.tags.get(1)?.readUInt32LE(0), 0);
    assert.deepEqual(server.routes(), [
      {
        name: 'engineering-pc',
        netId: '192.168.10.20.1.1',
        address: '192.168.10.20',
        userName: 'Administrator',
      },
    ]);
    assert.deepEqual(routesSeen, ['engineering-pc']);
    const wrong = await ask(datagram(6, 2, routeTags('secret', 'intruder')));
    assert.equal(wrong.tags.get(1)?.readUInt32LE(0), 0x704);
    assert.equal(server.routes().length, 1);
    const noNetId = await ask(
      datagram(
        6,
        3,
        routeTags('1', 'broken').filter(([t]) => t !== 7),
      ),
    );
    assert.equal(noNetId.tags.get(1)?.readUInt32LE(0), 1798);
  });

  it('deletes a route by name and ignores datagrams that are not ADS discovery', async () => {
    const deleted = await ask(datagram(7, 4, [[12, text('engineering-pc')]]));
    assert.equal(deleted.tags.get(1)?.readUInt32LE(0), 0);
    assert.deepEqual(server.routes(), []);
    client.send(Buffer.from('not ads at all'), udpPort, '127.0.0.1');
    const truncated = datagram(1, 5, [[5, text('x')]]).subarray(0, 27);
    client.send(truncated, udpPort, '127.0.0.1');
    // Still answering after the junk: the next valid request gets its own answer.
    assert.equal((await ask(datagram(1, 6, []))).invokeId, 6);
  });
});
