// Variable handles belong to the client's AMS address, not to its TCP connection (as a TwinCAT router
// keeps them): a tool that connects once per command gets a handle in one run and uses it in the next.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAdsServer } from '../../../src/simulator/ads-server/server.ts';
import { SimulatedPlc } from '../../../src/simulator/engine/plc.ts';
import { buildProgram, startHarness, type Harness } from './fixture.ts';
import { call, rawClient, type RawClient } from './raw-client.ts';

const TOOL = { netId: '10.1.2.3.1.1', port: 30001 };
const OTHER = { netId: '10.1.2.4.1.1', port: 30001 };

const createHandle = (path: string) =>
  ({
    command: 9,
    indexGroup: 0xf003,
    indexOffset: 0,
    readLength: 4,
    data: Buffer.from(`${path}\0`),
  }) as const;
const readByHandle = (handle: number, length: number) =>
  ({ command: 2, indexGroup: 0xf005, indexOffset: handle, length }) as const;
const release = (handle: number) => {
  const data = Buffer.alloc(4);
  data.writeUInt32LE(handle);
  return { command: 3, indexGroup: 0xf006, indexOffset: 0, data } as const;
};

/** The server sees a client's close on its own socket, after the client's disconnect resolved: wait for its event. */
async function untilClosed(h: Harness, id: number, before: number): Promise<void> {
  if (h.server.stats().clients.some((c) => c.id === id)) {
    await new Promise<void>((resolve) => {
      const onClosed = (closed: number): void => {
        if (closed !== id) return;
        h.clientEvents.off('closed', onClosed);
        resolve();
      };
      h.clientEvents.on('closed', onClosed);
    });
  }
  assert.equal(h.server.stats().connections, before - 1);
}

describe('ADS server: handles per AMS address', () => {
  let h: Harness;
  const sockets: RawClient[] = [];
  const open = async (): Promise<RawClient> => {
    const c = await rawClient(h.address.port);
    sockets.push(c);
    return c;
  };
  const closeSocket = async (c: RawClient): Promise<void> => {
    c.socket.destroy();
    await c.closed;
  };
  before(async () => {
    h = await startHarness({ plc: new SimulatedPlc(buildProgram()) });
  });
  after(async () => {
    for (const c of sockets) c.socket.destroy();
    await h.close();
  });

  it('keeps a handle across TCP connections of the same source NetId and port, until 0xF006', async () => {
    h.plc.write('GVL.nCounter', 4711);
    const first = await open();
    const created = await call(first, createHandle('GVL.nCounter'), { source: TOOL });
    assert.equal(created.result, 0);
    const handle = created.data.readUInt32LE(0);
    await closeSocket(first);

    const second = await open();
    const value = await call(second, readByHandle(handle, 4), { source: TOOL });
    assert.deepEqual([value.result, value.data.readInt32LE(0)], [0, 4711]);
    // Another address cannot use it: handles are not global.
    assert.equal((await call(second, readByHandle(handle, 4), { source: OTHER })).result, 1808);
    assert.equal((await call(second, release(handle), { source: OTHER })).result, 1808);
    await closeSocket(second);

    const third = await open();
    assert.equal((await call(third, release(handle), { source: TOOL })).result, 0);
    assert.equal((await call(third, readByHandle(handle, 4), { source: TOOL })).result, 1808);
  });

  it('bounds the handles of one address and releases them all on a program change', async () => {
    const small = await startHarness({ plc: new SimulatedPlc(buildProgram()) });
    const limited = createAdsServer({ plc: small.plc, port: 0, maxHandlesPerClient: 2 });
    const address = await limited.listen();
    const c = await rawClient(address.port);
    try {
      const a = await call(c, createHandle('MAIN.nInt'), { source: TOOL });
      const b = await call(c, createHandle('MAIN.nUint'), { source: TOOL });
      assert.deepEqual([a.result, b.result], [0, 0]);
      assert.equal((await call(c, createHandle('MAIN.nDint'), { source: TOOL })).result, 1802);
      // The limit is per address: another client still gets handles.
      assert.equal((await call(c, createHandle('MAIN.nDint'), { source: OTHER })).result, 0);

      small.plc.load(buildProgram((p) => p.symbol('GVL.aPadding', 'ARRAY [0..9] OF LREAL')));
      const stale = a.data.readUInt32LE(0);
      assert.equal((await call(c, readByHandle(stale, 2), { source: TOOL })).result, 1809);
      // The change freed the address's room: new handles are granted again.
      assert.equal((await call(c, createHandle('MAIN.nDint'), { source: TOOL })).result, 0);
      assert.equal((await call(c, createHandle('MAIN.nInt'), { source: TOOL })).result, 0);
      assert.equal((await call(c, release(stale), { source: TOOL })).result, 0);
      assert.equal((await call(c, readByHandle(stale, 2), { source: TOOL })).result, 1808);
    } finally {
      c.socket.destroy();
      await limited.close();
      await small.close();
    }
  });

  it('drops the handles of a router port when its connection closes; notifications stay per connection', async () => {
    const client = await h.connect();
    const handle = await client.createVariableHandle('MAIN.nInt');
    await client.subscribeValue('GVL.nCounter', () => undefined, 0);
    const mine = h.server.stats().clients.find((x) => x.handles === 1);
    assert.ok(mine?.amsAddress, 'the router-mode client holds one handle');
    assert.equal(h.server.stats().notifications > 0, true);
    const [netId = '', port = '0'] = mine.amsAddress.split(':');
    const before = h.server.stats().connections;
    const closed = untilClosed(h, mine.id, before);
    await client.disconnect();
    await closed;
    // The router port is gone: the same address (reused by another connection) has no handle.
    const raw = await open();
    const reuse = await call(raw, readByHandle(handle.handle, 2), { source: { netId, port: Number(port) } });
    assert.equal(reuse.result, 1808);
    assert.equal(h.server.stats().notifications, 0);
  });
});
