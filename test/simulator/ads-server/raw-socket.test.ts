// Byte-level edge cases with a raw socket: partial and coalesced frames, bad lengths, unknown commands,
// ports and machines, oversized frames, router commands; one bad connection never harms another.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { after, before, describe, it } from 'node:test';
import {
  decodeDeviceNotification,
  encodeRequest,
} from '../../../src/simulator/ads-server/protocol/commands.ts';
import { fromFileTime } from '../../../src/plc/ads/constants.ts';
import { startHarness, type Harness } from './fixture.ts';
import { rawClient, reply, request, type RawClient } from './raw-client.ts';

const readState = (o: { port?: number; netId?: string; invokeId?: number } = {}): Buffer =>
  request(4, encodeRequest({ command: 4 }), o);

describe('ADS server: raw frames', () => {
  let h: Harness;
  const clients: RawClient[] = [];
  const open = async (): Promise<RawClient> => {
    const c = await rawClient(h.address.port);
    clients.push(c);
    return c;
  };
  before(async () => {
    h = await startHarness();
  });
  after(async () => {
    for (const c of clients) c.socket.destroy();
    await h.close();
  });

  it('answers a request split into single bytes, with addresses swapped', async () => {
    const c = await open();
    for (const byte of readState({ invokeId: 77 })) c.socket.write(Buffer.from([byte]));
    const r = await reply(c);
    assert.deepEqual(r.header.target, { netId: '192.168.7.7.1.1', port: 40001 });
    assert.deepEqual(r.header.source, { netId: '127.0.0.1.1.1', port: 851 });
    assert.equal(r.header.stateFlags, 5);
    assert.equal(r.header.invokeId, 77);
    assert.deepEqual([r.data.readUInt32LE(0), r.data.readUInt16LE(4), r.data.length], [0, 5, 8]);
  });

  it('answers coalesced requests in order', async () => {
    const c = await open();
    c.socket.write(Buffer.concat([1, 2, 3].map((invokeId) => readState({ invokeId }))));
    assert.deepEqual(
      [(await reply(c)).header.invokeId, (await reply(c)).header.invokeId, (await reply(c)).header.invokeId],
      [1, 2, 3],
    );
  });

  it('answers an unknown port with AMS error 6 and an unknown NetId with 7', async () => {
    const c = await open();
    c.socket.write(readState({ port: 852 }));
    const r = await reply(c);
    assert.equal(r.header.errorCode, 6);
    assert.equal(r.data.length, 0);
    c.socket.write(readState({ netId: '9.9.9.9.1.1' }));
    assert.equal((await reply(c)).header.errorCode, 7);
  });

  it('answers an unknown command id with error 8 and a short payload with 1797', async () => {
    const c = await open();
    c.socket.write(request(42, Buffer.alloc(4)));
    assert.equal((await reply(c)).header.errorCode, 8);
    c.socket.write(request(2, Buffer.from([0x40, 0x40])));
    const r = await reply(c);
    assert.equal(r.header.errorCode, 0);
    assert.equal(r.data.readUInt32LE(0), 1797);
    c.socket.write(request(8, Buffer.alloc(8)));
    assert.equal((await reply(c)).header.errorCode, 1793);
  });

  it('handles the router commands: port connect, get NetId, port close', async () => {
    const c = await open();
    c.socket.write(Buffer.from('0010020000000000', 'hex'));
    const connectReply = await c.next();
    assert.equal(connectReply.command, 0x1000);
    assert.equal(connectReply.payload.length, 8);
    assert.ok(connectReply.payload.readUInt16LE(6) >= 32768);
    c.socket.write(Buffer.from('021000000000', 'hex'));
    const id = await c.next();
    assert.deepEqual(id, { command: 0x1002, payload: Buffer.from([127, 0, 0, 1, 1, 1]) });
    c.socket.write(Buffer.from('010002000000', 'hex'));
    c.socket.write(Buffer.from('7080', 'hex'));
    await c.closed;
  });

  it('ignores response frames sent to it', async () => {
    const c = await open();
    const response = Buffer.from(readState({ invokeId: 5 }));
    response.writeUInt16LE(5, 6 + 18);
    c.socket.write(Buffer.concat([response, readState({ invokeId: 6 })]));
    assert.equal((await reply(c)).header.invokeId, 6);
  });

  it('closes only the connection that sent an oversized or inconsistent frame', async () => {
    const good = await open();
    const oversized = await open();
    oversized.socket.write(Buffer.from('0000ffffff7f', 'hex'));
    await oversized.closed;
    const inconsistent = await open();
    const bad = readState();
    bad.writeUInt32LE(99, 6 + 20);
    inconsistent.socket.write(bad);
    await inconsistent.closed;
    const short = await open();
    short.socket.write(Buffer.from('0000040000000102030405', 'hex'));
    await short.closed;
    good.socket.write(readState({ invokeId: 9 }));
    assert.equal((await reply(good)).header.invokeId, 9);
  });

  it('registers notifications, sends DeviceNotification frames from the registered address', async () => {
    const c = await open();
    const offset = h.plc.resolve('GVL.nCounter').offset;
    const add = (ig: number, mode: number, invokeId: number, maxDelay = 0): Buffer =>
      request(
        6,
        encodeRequest({
          command: 6,
          indexGroup: ig,
          indexOffset: offset,
          length: 4,
          transmissionMode: mode,
          maxDelay,
          cycleTime: 0,
        }),
        { invokeId },
      );
    c.socket.write(add(0x4040, 99, 1));
    assert.equal((await reply(c)).data.readUInt32LE(0), 1811);
    c.socket.write(add(0x1234, 4, 2));
    assert.equal((await reply(c)).data.readUInt32LE(0), 1793);
    c.socket.write(request(7, encodeRequest({ command: 7, handle: 987654 }), { invokeId: 3 }));
    assert.equal((await reply(c)).data.readUInt32LE(0), 1812);

    h.plc.write('GVL.nCounter', 5);
    c.socket.write(add(0x4040, 4, 4, 200_000));
    const added = await reply(c);
    assert.equal(added.data.readUInt32LE(0), 0);
    const handle = added.data.readUInt32LE(4);
    const initial = await reply(c);
    assert.equal(initial.header.commandId, 8);
    assert.equal(initial.header.stateFlags, 4);
    assert.deepEqual(initial.header.source, { netId: '127.0.0.1.1.1', port: 851 });
    assert.deepEqual(initial.header.target, { netId: '192.168.7.7.1.1', port: 40001 });
    const [stamp] = decodeDeviceNotification(initial.data);
    assert.ok(Math.abs(fromFileTime(stamp?.timestamp ?? 0n) - Date.now()) < 5000);
    assert.deepEqual(
      stamp?.samples.map((x) => [x.handle, x.data.readInt32LE(0)]),
      [[handle, 5]],
    );
    // With a 20 ms max delay, changes in quick succession arrive together in one frame.
    h.plc.write('GVL.nCounter', 6);
    h.plc.sample();
    h.plc.write('GVL.nCounter', 7);
    h.plc.sample();
    const batch = decodeDeviceNotification((await reply(c)).data);
    assert.deepEqual(
      batch.flatMap((st) => st.samples.map((x) => x.data.readInt32LE(0))),
      [6, 7],
    );
    c.socket.write(request(7, encodeRequest({ command: 7, handle }), { invokeId: 5 }));
    assert.equal((await reply(c)).data.readUInt32LE(0), 0);
  });

  it('keeps waiting on a truncated frame and cleans up when the client leaves', async () => {
    const c = await open();
    const frame = readState({ invokeId: 11 });
    c.socket.write(frame.subarray(0, 20));
    const before = h.server.stats().connections;
    c.socket.write(frame.subarray(20));
    assert.equal((await reply(c)).header.invokeId, 11);
    c.socket.write(frame.subarray(0, 20));
    const gone = once(h.clientEvents, 'closed');
    c.socket.destroy();
    await c.closed;
    await gone;
    assert.equal(h.server.stats().connections, before - 1);
  });
});
