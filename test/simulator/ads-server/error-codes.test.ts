// The ADS result code of each failure mode, as a TwinCAT 3.1 runtime answers it, checked with raw frames.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startHarness, type Harness } from './fixture.ts';
import { call, rawClient, type RawClient } from './raw-client.ts';

const name = (text: string): Buffer => Buffer.from(`${text}\0`, 'latin1');
const rw = (indexGroup: number, readLength: number, data: Buffer, indexOffset = 0) =>
  ({ command: 9, indexGroup, indexOffset, readLength, data }) as const;
const read = (indexGroup: number, length: number, indexOffset = 0) =>
  ({ command: 2, indexGroup, indexOffset, length }) as const;

describe('ADS server: TwinCAT error codes', () => {
  let h: Harness;
  let c: RawClient;
  before(async () => {
    h = await startHarness();
    c = await rawClient(h.address.port);
  });
  after(async () => {
    c.socket.destroy();
    await h.close();
  });

  it('answers 0x701 (1793) for an index group nobody serves, on every command and port', async () => {
    for (const port of [851, 10000]) {
      assert.equal((await call(c, read(0x1234, 4), { port })).result, 1793, `read on ${port}`);
      const write = { command: 3, indexGroup: 0x1234, indexOffset: 0, data: Buffer.alloc(2) } as const;
      assert.equal((await call(c, write, { port })).result, 1793, `write on ${port}`);
      assert.equal((await call(c, rw(0x1234, 4, Buffer.alloc(2)), { port })).result, 1793, `rw on ${port}`);
    }
    const add = {
      command: 6,
      indexGroup: 0x1234,
      indexOffset: 0,
      length: 4,
      transmissionMode: 4,
      maxDelay: 0,
      cycleTime: 0,
    } as const;
    assert.equal((await call(c, add)).result, 1793);
  });

  it('answers 0x705 (1797) to a handle request whose buffer cannot hold a handle', async () => {
    for (const readLength of [0, 3]) {
      const r = await call(c, rw(0xf003, readLength, name('MAIN.nInt')));
      assert.deepEqual([r.result, r.data.length], [1797, 0], `read length ${readLength}`);
    }
    const handleOnly = await call(c, rw(0xf003, 4, name('MAIN.nInt')));
    assert.deepEqual([handleOnly.result, handleOnly.data.length], [0, 4]);
    const full = await call(c, rw(0xf003, 0xffff, name('MAIN.nInt')));
    assert.equal(full.data.readUInt32LE(4), 2);
    assert.equal(full.data.subarray(14, 17).toString(), 'INT');
  });

  it('answers 1797 when an upload, an entry or a fixed-size value does not fit the buffer', async () => {
    const info = await call(c, read(0xf00f, 64));
    const symbolBytes = info.data.readUInt32LE(4);
    const typeBytes = info.data.readUInt32LE(12);
    assert.equal((await call(c, read(0xf00b, symbolBytes - 1))).result, 1797);
    assert.equal((await call(c, read(0xf00b, symbolBytes))).data.length, symbolBytes);
    assert.equal((await call(c, read(0xf00e, typeBytes - 1))).result, 1797);
    assert.equal((await call(c, read(0xf00f, 23))).result, 1797);
    assert.equal((await call(c, read(0xf00f, 40))).data.length, 24);
    assert.equal((await call(c, read(0xf00c, 7))).result, 1797);
    assert.equal((await call(c, read(0xf00c, 64))).data.length, 8);
    assert.equal((await call(c, read(0xf008, 0))).result, 1797);
    assert.equal((await call(c, read(0xf100, 3))).result, 1797);
    assert.equal((await call(c, rw(0xf009, 10, name('MAIN.nInt')))).result, 1797);
    assert.equal((await call(c, rw(0xf011, 10, name('ST_Point')))).result, 1797);
    assert.equal((await call(c, rw(0xf011, 0xffff, name('ST_Point')))).result, 0);
  });

  it('answers 1793 for a command an index group does not offer, 1808 for unknown names and handles', async () => {
    const write = { command: 3, indexGroup: 0xf00b, indexOffset: 0, data: Buffer.alloc(4) } as const;
    assert.equal((await call(c, write)).result, 1793);
    assert.equal((await call(c, read(0xf003, 4))).result, 1793);
    assert.equal((await call(c, rw(0x4040, 4, Buffer.alloc(1)))).result, 1793);
    assert.equal((await call(c, rw(0xf003, 4, name('MAIN.nope')))).result, 1808);
    assert.equal((await call(c, rw(0xf009, 0xffff, name('MAIN.nope')))).result, 1808);
    assert.equal((await call(c, read(0xf005, 4, 0x7777))).result, 1808);
    const release = { command: 3, indexGroup: 0xf006, indexOffset: 0, data: Buffer.alloc(4) } as const;
    assert.equal((await call(c, release)).result, 1808);
    assert.equal((await call(c, { command: 7, handle: 4242 })).result, 1812);
  });
});
