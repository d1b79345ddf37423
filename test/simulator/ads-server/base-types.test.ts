// Data-type lookups by name (0xF011) of base types, answered as TwinCAT 3.1 build 4022 and later does:
// a DataType entry with the ADS type id, no base type and no sub-items.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Client } from 'ads-client';
import { startHarness, type Harness } from './fixture.ts';

interface Entry {
  size: number;
  adsDataType: number;
  flags: number;
  name: string;
  type: string;
  arrayDimensions: number;
  subItems: number;
}

/** The fixed header of a data-type entry (ads-client's parseAdsResponseDataType reads the same fields). */
function parseEntry(data: Buffer): Entry {
  const nameLength = data.readUInt16LE(32);
  const typeLength = data.readUInt16LE(34);
  return {
    size: data.readUInt32LE(16),
    adsDataType: data.readUInt32LE(24),
    flags: data.readUInt32LE(28),
    arrayDimensions: data.readUInt16LE(38),
    subItems: data.readUInt16LE(40),
    name: data.subarray(42, 42 + nameLength).toString(),
    type: data.subarray(43 + nameLength, 43 + nameLength + typeLength).toString(),
  };
}

describe('ADS server: base-type lookups (0xF011)', () => {
  let h: Harness;
  let client: Client;
  before(async () => {
    h = await startHarness();
    client = await h.connect();
  });
  after(async () => {
    await h.close();
  });

  const cases: Array<[string, Partial<Entry>]> = [
    ['INT', { name: 'INT', size: 2, adsDataType: 2 }],
    ['LREAL', { name: 'LREAL', size: 8, adsDataType: 5 }],
    ['BOOL', { name: 'BOOL', size: 1, adsDataType: 33 }],
    ['ULINT', { name: 'ULINT', size: 8, adsDataType: 21 }],
    ['STRING(80)', { name: 'STRING(80)', size: 81, adsDataType: 30 }],
    ['WSTRING(20)', { name: 'WSTRING(20)', size: 42, adsDataType: 31 }],
    ['time', { name: 'TIME', size: 4, adsDataType: 19 }],
  ];
  for (const [name, expected] of cases) {
    it(`answers ${name} with its entry`, async () => {
      const data = await client.readWriteRaw(0xf011, 0, 0xffff, Buffer.from(`${name}\0`));
      const entry = parseEntry(data);
      assert.equal(data.readUInt32LE(0), data.length);
      assert.deepEqual({ ...entry, flags: entry.flags & 1 }, {
        type: '',
        arrayDimensions: 0,
        subItems: 0,
        flags: 1,
        ...expected,
      } as Entry);
    });
  }

  it('gives ads-client the base type from the PLC, in one request without an error', async () => {
    const before = h.server.stats().clients.reduce((n, c) => n + c.requests, 0);
    const type = await client.getDataType('WSTRING(33)');
    assert.deepEqual([type.size, type.adsDataType, type.type], [68, 31, 'WSTRING(33)']);
    assert.equal(h.server.stats().clients.reduce((n, c) => n + c.requests, 0) - before, 1);
  });

  it('keeps 1808 for names that are no type and for undeclared arrays and structs', async () => {
    for (const name of ['ST_Missing', 'ARRAY [0..3] OF INT', 'STRING(0)', '']) {
      await assert.rejects(
        client.readWriteRaw(0xf011, 0, 0xffff, Buffer.from(`${name}\0`)),
        (err: { adsError?: { errorCode: number } }) => err.adsError?.errorCode === 1808,
        name,
      );
    }
  });
});
