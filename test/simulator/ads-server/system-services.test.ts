// System services a TwinCAT runtime answers besides the PLC: the real-time service on port 200 (as
// `adstool rtime` queries it) and the device info and shared-cores setting of the system service.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Client } from 'ads-client';
import { startHarness, type Harness } from './fixture.ts';

const RTIME = { adsPort: 200 };
const SYSTEM = { adsPort: 10000 };
const u32 = (n: number): Buffer => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n >>> 0);
  return b;
};
type AdsErr = { adsError?: { errorCode: number } };
const adsCode = (code: number) => (err: AdsErr) => err.adsError?.errorCode === code;

describe('ADS server: system services', () => {
  let h: Harness;
  let client: Client;
  before(async () => {
    h = await startHarness();
    client = await h.connect();
  });
  after(async () => {
    await h.close();
  });

  it('answers device info and state on the real-time port 200 and the system service', async () => {
    const rtime = await client.readDeviceInfo(RTIME);
    assert.deepEqual([rtime.deviceName, rtime.majorVersion, rtime.minorVersion], ['RTime(Um)', 3, 1]);
    assert.equal((await client.readState(RTIME)).adsState, 5);
    const system = await client.readDeviceInfo(SYSTEM);
    assert.deepEqual(
      [system.deviceName, system.majorVersion, system.minorVersion, system.versionBuild],
      ['TwinCAT System', 3, 1, 4024],
    );
  });

  it('reads the CPU settings (RTimeCpuSettings, 32 bytes) and the latency of the real-time core', async () => {
    const settings = await client.readRaw(1, 0xd, 32, RTIME);
    assert.deepEqual(
      [
        settings.readUInt32LE(0),
        settings.readUInt32LE(4),
        settings.readBigUInt64LE(8),
        settings.readUInt32LE(16),
        settings.readUInt32LE(28),
      ],
      [4, 0, 1n, 1, 2400],
    );
    await assert.rejects(client.readRaw(1, 0xd, 31, RTIME), adsCode(1797));
    const latency = await client.readWriteRaw(1, 0x2, 12, u32(0), RTIME);
    assert.deepEqual(
      [latency.readUInt32LE(0), latency.readUInt32LE(4), latency.readUInt32LE(8)],
      [2, 9, 100],
    );
    // reset-latency answers the old maximum, then the maximum starts over at the current value.
    const reset = await client.readWriteRaw(1, 0xb, 12, u32(0), RTIME);
    assert.equal(reset.readUInt32LE(4), 9);
    assert.equal((await client.readWriteRaw(1, 0x2, 12, u32(0), RTIME)).readUInt32LE(4), 2);
    await assert.rejects(client.readWriteRaw(1, 0x2, 12, u32(3), RTIME), adsCode(1798));
    await assert.rejects(client.readRaw(2, 0xd, 32, RTIME), adsCode(1793));
    await assert.rejects(client.readRaw(1, 0x7, 32, RTIME), adsCode(1795));
  });

  it('sets the shared cores through the system service (SYSTEMSERVICE_SETNUMPROC)', async () => {
    await client.writeRaw(1200, 0, u32(3), SYSTEM);
    const settings = await client.readRaw(1, 0xd, 32, RTIME);
    assert.deepEqual([settings.readUInt32LE(0), settings.readUInt32LE(4)], [3, 1]);
    await assert.rejects(client.writeRaw(1200, 0, u32(9), SYSTEM), adsCode(1798));
    await client.writeRaw(1200, 0, u32(0xffffffff), SYSTEM);
    assert.equal((await client.readRaw(1, 0xd, 32, RTIME)).readUInt32LE(4), 0);
  });
});
