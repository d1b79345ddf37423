// ads-client calling RPC methods, switching the system and PLC states, and using the file services
// of the system service by raw ReadWrite commands (ads-client has no file API).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Client } from 'ads-client';
import { startHarness, type Harness } from './fixture.ts';

type AdsErr = { adsError?: { errorCode: number } };
const adsCode = (code: number) => (err: AdsErr) => err.adsError?.errorCode === code;

const SYSTEM = { adsPort: 10000 };
const FOPEN = 120;
const FCLOSE = 121;
const FREAD = 122;
const FWRITE = 123;
const FDELETE = 131;
const FFILEFIND = 133;
const GENERIC_PATH = 1 << 16;

const z = (s: string): Buffer => Buffer.from(`${s}\0`, 'latin1');

describe('ADS server: RPC, control and files (ads-client)', () => {
  let h: Harness;
  let client: Client;
  before(async () => {
    h = await startHarness();
    client = await h.connect();
  });
  after(async () => {
    await h.close();
  });

  it('invokes RPC methods with inputs, outputs and return values', async () => {
    const first = await client.invokeRpcMethod('GVL.fbAlarms', 'AcknowledgeAlarm', { sKey: 'AX1-OVERTEMP' });
    assert.deepEqual(first, { returnValue: true, outputs: { nCount: 1 } });
    assert.equal(h.plc.read('GVL.fbAlarms.sLastKey'), 'AX1-OVERTEMP');
    const second = await client.invokeRpcMethod('GVL.fbAlarms', 'acknowledgealarm', { sKey: '' });
    assert.deepEqual(second, { returnValue: false, outputs: { nCount: 2 } });
    const found = await client.invokeRpcMethod('GVL.fbAlarms', 'Lookup', { nId: 1 });
    assert.deepEqual(found.returnValue, { name: 'SUCCESS', value: 0 });
    const missing = await client.invokeRpcMethod('GVL.fbAlarms', 'Lookup', { nId: 2 });
    assert.deepEqual(missing.returnValue, { name: 'NOT_FOUND', value: 1 });
    assert.equal(
      h.server.stats().clients.every((c) => c.handles === 0),
      true,
    );
  });

  it('refuses methods without TcRpcEnable and malformed RPC calls', async () => {
    await assert.rejects(client.invokeRpcMethod('GVL.fbAlarms', 'Hidden'), adsCode(1808));
    await assert.rejects(client.createVariableHandle('GVL.fbAlarms#Nope'), adsCode(1808));
    const handle = await client.createVariableHandle('GVL.fbAlarms#Lookup');
    await assert.rejects(client.readWriteRaw(0xf005, handle.handle, 2, Buffer.alloc(4)), adsCode(1797));
    await assert.rejects(client.readWriteRaw(0xf005, handle.handle, 4, Buffer.alloc(3)), adsCode(1797));
    await assert.rejects(client.readRawByHandle(handle.handle, 4), adsCode(1793));
    await client.deleteVariableHandle(handle);
  });

  it('switches the system to config mode and back with WriteControl on port 10000', async () => {
    const raw = await h.connect({ rawClient: true });
    await raw.writeControl('Reconfig', 0, undefined, SYSTEM);
    assert.deepEqual(await raw.readState(SYSTEM), { adsState: 15, adsStateStr: 'Config', deviceState: 0 });
    assert.equal(h.plc.adsState, 'Stop');
    // In config mode the PLC runtime port does not exist.
    await assert.rejects(raw.readDeviceInfo(), adsCode(6));
    const before = await raw.readTcSystemExtendedState();
    await raw.writeControl('Reset', 0, undefined, SYSTEM);
    const after = await raw.readTcSystemExtendedState();
    assert.equal(after.adsState, 5);
    assert.equal(after.restartIndex, (before.restartIndex + 1) & 0xffff);
    assert.equal(h.plc.adsState, 'Run');
    await raw.disconnect();
  });

  it('writes, reads, finds and deletes a file through the system service', async () => {
    // Its own connection: the config-mode switch above may have made the shared client disconnect.
    const client = await h.connect();
    const content = Buffer.from('id;name\n1;Widget\n2;Gadget\n');
    const open = async (name: string, mode: number): Promise<number> =>
      (await client.readWriteRaw(FOPEN, mode | GENERIC_PATH, 4, z(name), SYSTEM)).readUInt32LE(0);

    const w = await open('C:\\TwinCAT\\3.1\\Boot\\recipes\\r1.csv', 0x2 | 0x10);
    await client.readWriteRaw(FWRITE, w, 0, content.subarray(0, 10), SYSTEM);
    await client.readWriteRaw(FWRITE, w, 0, content.subarray(10), SYSTEM);
    await client.readWriteRaw(FCLOSE, w, 0, Buffer.alloc(0), SYSTEM);
    assert.deepEqual(await h.plc.files.read('TwinCAT/3.1/Boot/recipes/r1.csv'), content);

    const r = await open('C:\\TwinCAT\\3.1\\Boot\\recipes\\r1.csv', 0x1 | 0x10);
    assert.deepEqual(
      await client.readWriteRaw(FREAD, r, 16, Buffer.alloc(0), SYSTEM),
      content.subarray(0, 16),
    );
    assert.deepEqual(
      await client.readWriteRaw(FREAD, r, 1000, Buffer.alloc(0), SYSTEM),
      content.subarray(16),
    );
    assert.equal((await client.readWriteRaw(FREAD, r, 1000, Buffer.alloc(0), SYSTEM)).length, 0);
    await client.readWriteRaw(FCLOSE, r, 0, Buffer.alloc(0), SYSTEM);

    await h.plc.files.write('TwinCAT/3.1/Boot/recipes/r2.csv', Buffer.from('x'));
    const first = await client.readWriteRaw(
      FFILEFIND,
      1,
      324,
      z('C:\\TwinCAT\\3.1\\Boot\\recipes\\*.csv'),
      SYSTEM,
    );
    assert.equal(first.length, 324);
    const names = [first.subarray(48, first.indexOf(0, 48)).toString()];
    const findHandle = first.readUInt32LE(0);
    const next = await client.readWriteRaw(FFILEFIND, findHandle, 324, Buffer.alloc(0), SYSTEM);
    names.push(next.subarray(48, next.indexOf(0, 48)).toString());
    assert.equal(next.readUInt32LE(36), 1);
    assert.deepEqual(names, ['r1.csv', 'r2.csv']);
    await assert.rejects(
      client.readWriteRaw(FFILEFIND, findHandle, 324, Buffer.alloc(0), SYSTEM),
      adsCode(1804),
    );
    const dir = await client.readWriteRaw(FFILEFIND, 1, 324, z('C:\\TwinCAT\\3.1\\Boot\\recipes'), SYSTEM);
    assert.equal(dir.readUInt32LE(4) & 0x10, 0x10);

    await client.readWriteRaw(FDELETE, GENERIC_PATH, 0, z('C:\\TwinCAT\\3.1\\Boot\\recipes\\r1.csv'), SYSTEM);
    await assert.rejects(open('C:\\TwinCAT\\3.1\\Boot\\recipes\\r1.csv', 0x1), adsCode(1804));
    await assert.rejects(client.readWriteRaw(FREAD, 4242, 10, Buffer.alloc(0), SYSTEM), adsCode(1804));
    await assert.rejects(client.readRaw(0x9999, 0, 4, SYSTEM), adsCode(1793));
  });
});
