// Flags (%M), inputs (%I) and outputs (%Q) served under their own index groups, with symbols placed there
// by `AT %MB0`-style locations: symbol entries, byte and bit access, bounds, notifications.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Client } from 'ads-client';
import { ProgramBuilder } from '../../../src/simulator/engine/program.ts';
import { SimulatedPlc } from '../../../src/simulator/engine/plc.ts';
import { startHarness, type Harness } from './fixture.ts';

type AdsErr = { adsError?: { errorCode: number } };
const adsCode = (code: number) => (err: AdsErr) => err.adsError?.errorCode === code;

function locatedProgram() {
  const b = new ProgramBuilder();
  b.struct('ST_Drive', [
    { name: 'nStatus', type: 'WORD' },
    { name: 'fSpeed', type: 'REAL' },
  ]);
  b.symbol('MAIN.nData', 'DINT', { value: 7 });
  const flags = Array.from({ length: 1028 }, (_, i) => (i < 3 ? i + 1 : 0));
  b.symbol('GVL.aFlags', 'ARRAY [0..1027] OF BYTE', { location: '%MB0', value: flags });
  b.symbol('GVL.nCommand', 'WORD', { location: '%MW600' });
  b.symbol('GVL.nSensor', 'INT', { location: '%IW1', value: -5 });
  b.symbol('GVL.stDrive', 'ST_Drive', { location: '%Q*', value: { nStatus: 3, fSpeed: 1.5 } });
  b.symbol('GVL.bLamp', 'BOOL', { location: '%Q*' });
  return b.build();
}

describe('ADS server: %M, %I and %Q areas', () => {
  let h: Harness;
  let client: Client;
  before(async () => {
    h = await startHarness({ plc: new SimulatedPlc(locatedProgram()) });
    client = await h.connect();
  });
  after(async () => {
    await h.close();
  });

  it('publishes located symbols under their area index group and area-relative offset', async () => {
    const expect = {
      'GVL.aFlags': [0x4020, 0, 1028],
      'GVL.nCommand': [0x4020, 1200, 2],
      'GVL.nSensor': [0xf020, 2, 2],
      'GVL.stDrive': [0xf030, 0, 8],
      'GVL.bLamp': [0xf030, 8, 1],
      'MAIN.nData': [0x4040, 0, 4],
      'GVL.aFlags[10]': [0x4020, 10, 1],
      'GVL.stDrive.fSpeed': [0xf030, 4, 4],
    };
    for (const [path, [ig, io, size]] of Object.entries(expect)) {
      const s = await client.getSymbol(path);
      assert.deepEqual([s.indexGroup, s.indexOffset, s.size], [ig, io, size], path);
    }
    const upload = await client.getSymbols();
    assert.equal(upload['gvl.nsensor']?.indexGroup ?? upload['GVL.nSensor']?.indexGroup, 0xf020);
  });

  it('reads and writes located values by name and by area', async () => {
    assert.deepEqual((await client.readValue<number[]>('GVL.aFlags')).value.slice(0, 4), [1, 2, 3, 0]);
    assert.equal((await client.readValue('GVL.nSensor')).value, -5);
    assert.deepEqual((await client.readValue('GVL.stDrive')).value, { nStatus: 3, fSpeed: 1.5 });
    assert.deepEqual(await client.readRaw(0x4020, 1, 2), Buffer.from([2, 3]));
    await client.writeRaw(0xf020, 2, Buffer.from([0x39, 0x30]));
    assert.equal(h.plc.read('GVL.nSensor'), 12345);
    await client.writeValue('GVL.nCommand', 0xbeef);
    assert.deepEqual(await client.readRaw(0x4020, 1200, 2), Buffer.from([0xef, 0xbe]));
    // The data area is its own: offset 0 there is MAIN.nData, not the flags.
    assert.equal((await client.readRaw(0x4040, 0, 4)).readInt32LE(0), 7);
  });

  it('serves bit access with bit addresses (byte * 8 + bit), one byte per bit', async () => {
    await client.writeRaw(0x4020, 5, Buffer.from([0b0000_0100]));
    assert.deepEqual(await client.readRaw(0x4021, 5 * 8 + 1, 3), Buffer.from([0, 1, 0]));
    await client.writeRaw(0x4021, 5 * 8 + 7, Buffer.from([1]));
    assert.deepEqual(await client.readRaw(0x4020, 5, 1), Buffer.from([0b1000_0100]));
    await client.writeRaw(0xf031, 8 * 8, Buffer.from([1]));
    assert.equal(h.plc.read('GVL.bLamp'), true);
    await assert.rejects(client.readRaw(0xf021, 8 * 8, 1), adsCode(1795));
  });

  it('bounds each area by its symbols: 1795 past the end, 1797 across it', async () => {
    const flags = h.plc.program.areas.find((a) => a.name === 'M');
    assert.equal(flags?.size, 1208);
    await assert.rejects(client.readRaw(0x4020, 1208, 1), adsCode(1795));
    await assert.rejects(client.readRaw(0x4020, 1200, 9), adsCode(1797));
    await assert.rejects(client.readRaw(0x4040, h.plc.program.size, 4), adsCode(1795));
    await assert.rejects(client.readRaw(0xf020, 0, 9), adsCode(1797));
    await assert.rejects(client.readWriteRaw(0x4020, 0, 4, Buffer.alloc(1)), adsCode(1793));
  });

  it('notifies changes of an output by its area address', async () => {
    const seen: number[] = [];
    let changed: () => void = () => undefined;
    const nine = new Promise<void>((done) => (changed = done));
    const sub = await client.subscribeRaw(
      0xf030,
      0,
      2,
      (d) => {
        seen.push(d.value.readUInt16LE(0));
        if (d.value.readUInt16LE(0) === 9) changed();
      },
      0,
    );
    h.plc.write('GVL.stDrive.nStatus', 9);
    await nine;
    await sub.unsubscribe();
    assert.deepEqual(seen, [3, 9]);
  });
});
