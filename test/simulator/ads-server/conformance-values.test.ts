// ads-client reading and writing every supported type by path, by handle and raw, plus sum commands.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Client } from 'ads-client';
import { primitiveSymbols, startHarness, type Harness } from './fixture.ts';

type AdsErr = { adsError?: { errorCode: number } };
const adsCode = (code: number) => (err: AdsErr) => err.adsError?.errorCode === code;

/** How ads-client presents each engine value (64-bit integers as BigInt, DATE/DT as Date). */
function clientForm(type: string, value: unknown): unknown {
  if (['LWORD', 'LINT', 'ULINT', 'LTIME'].includes(type)) return BigInt(value as string);
  if (type === 'DATE' || type === 'DT') return new Date(value as string);
  return value;
}

describe('ADS server: values (ads-client)', () => {
  let h: Harness;
  let client: Client;
  before(async () => {
    h = await startHarness();
    client = await h.connect();
  });
  after(async () => {
    await h.close();
  });

  for (const [path, [type, value]] of Object.entries(primitiveSymbols)) {
    it(`reads and writes ${type} by path`, async () => {
      assert.deepEqual((await client.readValue(path)).value, clientForm(type, value));
      const r = h.plc.resolve(path);
      const zero = Buffer.alloc(r.size);
      await client.writeRaw(0x4040, r.offset, zero);
      assert.deepEqual(h.plc.readRaw(r.offset, r.size), zero);
      await client.writeValue(path, clientForm(type, value));
      assert.deepEqual(h.plc.read(path), value);
    });
  }

  it('reads and writes strings, enums, structs and arrays by path', async () => {
    assert.equal((await client.readValue('MAIN.sText')).value, 'Grüße');
    assert.equal((await client.readValue('MAIN.wsText')).value, 'Ωmega ✓');
    await client.writeValue('MAIN.sText', 'Œuvre');
    assert.equal(h.plc.read('MAIN.sText'), 'Œuvre');
    await client.writeValue('MAIN.wsText', 'Ünïcode ✓');
    assert.equal(h.plc.read('MAIN.wsText'), 'Ünïcode ✓');
    await client.writeValue('MAIN.eMode', 'FAULT');
    assert.equal(h.plc.read('MAIN.eMode'), 7);
    const axis = { sId: 'Z9', pos: { x: -1.5, y: 1e-9 }, bEnabled: false, eMode: 'IDLE' };
    await client.writeValue('MAIN.aAxes[2]', axis);
    assert.deepEqual(h.plc.read('MAIN.aAxes[2]'), { ...axis, eMode: 0 });
    const axes = (await client.readValue('MAIN.aAxes')).value as Array<{ sId: string }>;
    assert.deepEqual(
      axes.map((a) => a.sId),
      ['', 'Z9', ''],
    );
    await client.writeValue('MAIN.aGrid', [
      [9, 8, 7],
      [6, 5, 4],
    ]);
    assert.deepEqual(h.plc.read('MAIN.aGrid'), [
      [9, 8, 7],
      [6, 5, 4],
    ]);
    assert.equal((await client.readValue('MAIN.aGrid[1,3]')).value, 4);
    await client.writeValue('MAIN.stAxis.pos', { x: 10, y: 20 });
    assert.deepEqual(h.plc.read('MAIN.stAxis.pos'), { x: 10, y: 20 });
  });

  it('reads and writes by handle, and refuses stale and unknown handles', async () => {
    const handle = await client.createVariableHandle('MAIN.nDint');
    assert.equal(handle.size, 4);
    assert.equal(handle.dataType, 'DINT');
    const buf = Buffer.alloc(4);
    buf.writeInt32LE(123456);
    await client.writeRawByHandle(handle, buf);
    assert.equal(h.plc.read('MAIN.nDint'), 123456);
    assert.deepEqual(await client.readRawByHandle(handle), buf);
    await client.deleteVariableHandle(handle);
    await assert.rejects(client.readRawByHandle(handle), adsCode(1808));
    await assert.rejects(client.createVariableHandle('MAIN.missing'), adsCode(1808));
  });

  it('reads raw memory and answers range errors with 1795 and 1797, unserved groups with 1793', async () => {
    const r = h.plc.resolve('MAIN.aWords');
    h.plc.writeRaw(r.offset, Buffer.from([1, 0, 2, 0]));
    assert.deepEqual(await client.readRaw(0x4040, r.offset, 4), Buffer.from([1, 0, 2, 0]));
    assert.deepEqual(await client.readRawByPath('MAIN.aWords[1]'), Buffer.from([2, 0]));
    const size = h.plc.memory.length;
    await assert.rejects(client.readRaw(0x4040, size + 4, 4), adsCode(1795));
    await assert.rejects(client.readRaw(0x4040, size - 2, 4), adsCode(1797));
    await assert.rejects(client.readRaw(0x1234, 0, 4), adsCode(1793));
  });

  it('runs sum read, write and read-write commands with per-item errors', async () => {
    const a = h.plc.resolve('MAIN.nInt');
    const b = h.plc.resolve('MAIN.fLreal');
    const writes = await client.writeRawMulti([
      { indexGroup: 0x4040, indexOffset: a.offset, value: Buffer.from([0x39, 0x30]) },
      { indexGroup: 0x4040, indexOffset: h.plc.memory.length + 100, value: Buffer.from([1]) },
    ]);
    assert.deepEqual(
      writes.map((w) => w.errorCode),
      [0, 1795],
    );
    assert.equal(h.plc.read('MAIN.nInt'), 12345);
    const reads = await client.readRawMulti([
      { indexGroup: 0x4040, indexOffset: a.offset, size: 2 },
      { indexGroup: 0x9999, indexOffset: 0, size: 4 },
      { indexGroup: 0x4040, indexOffset: b.offset, size: 8 },
    ]);
    assert.deepEqual(
      reads.map((r) => r.errorCode),
      [0, 1793, 0],
    );
    assert.equal(reads[0]?.value?.readInt16LE(0), 12345);
    assert.equal(reads[2]?.value?.readDoubleLE(0), h.plc.read('MAIN.fLreal'));

    const handles = await client.createVariableHandleMulti(['MAIN.nUint', 'MAIN.nope', 'GVL.nCounter']);
    assert.deepEqual(
      handles.map((x) => x.errorCode),
      [0, 1808, 0],
    );
    assert.equal(handles[2]?.handle?.dataType, 'DINT');
    const rw = await client.readWriteRawMulti([
      { indexGroup: 0xf004, indexOffset: 0, size: 2, value: Buffer.from('MAIN.nUint\0') },
      { indexGroup: 0xf009, indexOffset: 0, size: 0xffff, value: Buffer.from('MAIN.none\0') },
    ]);
    assert.equal(rw[0]?.data?.readUInt16LE(0), 54321);
    assert.equal(rw[1]?.errorCode, 1808);
    const live = handles.flatMap((x) => (x.handle ? [x.handle] : []));
    const released = await client.deleteVariableHandleMulti([...live, 999_999]);
    assert.deepEqual(
      released.map((x) => x.errorCode),
      [0, 0, 1808],
    );
  });

  it('serves a sum read of 1000 values in one request', async () => {
    const r = h.plc.resolve('MAIN.aWords');
    const commands = Array.from({ length: 1000 }, (_, i) => ({
      indexGroup: 0x4040,
      indexOffset: r.offset + (i % 10) * 2,
      size: 2,
    }));
    const results = await client.readRawMulti(commands);
    assert.equal(results.length, 1000);
    assert.ok(results.every((x) => x.success));
  });
});
