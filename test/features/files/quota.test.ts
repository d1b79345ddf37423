// The quota of a simulated PLC's in-memory file store through HTTP: total bytes and entry count at their edges,
// overwrites counted by their difference, and nothing left behind by a refused write. And the settings reach the
// store of a configured simulated target.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { MemoryFileStore } from '../../../src/simulator/engine/index.ts';
import { createSimulatedTarget } from '../../../src/targets/simulated/index.ts';
import { testConfig } from '../../helpers/config.ts';
import { startFilesApp, type FilesApp } from './fixture.ts';

const url = (path: string) => `/api/plcs/sim1/files/${path}`;

describe('file store quota (simulated PLC, in memory)', () => {
  let f: FilesApp;
  let store: MemoryFileStore;
  before(async () => {
    store = new MemoryFileStore(undefined, { maxTotalBytes: 1000, maxFileCount: 5 });
    f = await startFilesApp('simulated', { files: store, settings: { RateLimiting: { Enabled: false } } });
  });
  after(() => f.close());

  const put = (path: string, size: number) => f.send('PUT', url(path), { raw: Buffer.alloc(size, 0x61) });
  const refused = async (path: string, size: number, why: RegExp): Promise<void> => {
    const before = store.usage;
    const listing = (await f.send('GET', '/api/plcs/sim1/files')).body;
    const res = await put(path, size);
    assert.equal(res.statusCode, 507, res.body);
    assert.equal(res.json().error.code, 'FILE_QUOTA_EXCEEDED');
    assert.match(res.json<{ error: { message: string } }>().error.message, why);
    assert.deepEqual(store.usage, before);
    assert.equal((await f.send('GET', '/api/plcs/sim1/files')).body, listing);
  };

  test('bytes: exactly Files.MaxTotalBytes is accepted, one byte more is 507; an overwrite counts the difference', async () => {
    assert.equal((await put('a.bin', 600)).statusCode, 200);
    assert.equal((await put('b.bin', 400)).statusCode, 200);
    assert.deepEqual(store.usage, { totalBytes: 1000, count: 2 });
    await refused('c.bin', 1, /Files\.MaxTotalBytes/);
    // Growing a file by one byte past the quota is refused and the old content stays.
    await refused('b.bin', 401, /Files\.MaxTotalBytes/);
    assert.equal((await f.sim.plc.files.read('b.bin')).length, 400);
    // Shrinking one file makes room that another may take, to the byte.
    assert.equal((await put('a.bin', 100)).statusCode, 200);
    assert.equal((await put('b.bin', 900)).statusCode, 200);
    assert.deepEqual(store.usage, { totalBytes: 1000, count: 2 });
    await refused('a.bin', 101, /Files\.MaxTotalBytes/);
    assert.equal((await put('a.bin', 0)).statusCode, 200);
    assert.equal((await put('b.bin', 0)).statusCode, 200);
  });

  test('count: files and folders together up to Files.MaxFileCount; one more is 507 and no folder is made', async () => {
    // a.bin and b.bin are two entries already.
    assert.equal((await put('c.bin', 1)).statusCode, 200);
    assert.equal((await put('d/e.bin', 1)).statusCode, 200);
    assert.deepEqual(store.usage, { totalBytes: 2, count: 5 });
    await refused('f.bin', 1, /Files\.MaxFileCount/);
    // The new folders a path needs count too: none of them is left behind.
    await refused('g/h/i.bin', 1, /Files\.MaxFileCount/);
    await assert.rejects(f.sim.plc.files.list('g'), /not found/);
    // Replacing a file takes no new entry.
    assert.equal((await put('d/e.bin', 5)).statusCode, 200);
    // A removed file frees its entry again.
    await f.sim.plc.files.remove('c.bin');
    assert.equal((await put('f.bin', 1)).statusCode, 200);
    assert.deepEqual(store.usage, { totalBytes: 6, count: 5 });
  });
});

describe('file store quota through ADS (Real driver over the simulated ADS server)', () => {
  test('a write past the quota is 507 FILE_QUOTA_EXCEEDED and leaves no temporary file', async () => {
    const store = new MemoryFileStore(undefined, { maxTotalBytes: 1000, maxFileCount: 5 });
    const f = await startFilesApp('real', { files: store, settings: { RateLimiting: { Enabled: false } } });
    try {
      const put = (path: string, size: number) => f.send('PUT', url(path), { raw: Buffer.alloc(size, 0x61) });
      assert.equal((await put('a.bin', 1000)).statusCode, 200);
      const over = await put('b.bin', 1);
      assert.equal(over.statusCode, 507, over.body);
      assert.equal(over.json().error.code, 'FILE_QUOTA_EXCEEDED');
      assert.deepEqual(
        (await store.list('')).map((e) => e.name),
        ['a.bin'],
      );
      assert.deepEqual(store.usage, { totalBytes: 1000, count: 1 });
    } finally {
      await f.close();
    }
  });
});

describe('file store quota settings', () => {
  test('Files.MaxTotalBytes and Files.MaxFileCount reach the store of a configured simulated target', async () => {
    const config = testConfig({
      Files: { MaxTotalBytes: 10, MaxFileCount: 2 },
      PlcTargets: { sim1: { Mode: 'Simulated' } },
    });
    const target = await createSimulatedTarget('sim1', config.settings.PlcTargets.sim1!, { config });
    try {
      await target.plc.files.write('a.bin', Buffer.alloc(10));
      await assert.rejects(target.plc.files.write('b.bin', Buffer.alloc(1)), { code: 'FILE_QUOTA_EXCEEDED' });
      await target.plc.files.write('a.bin', Buffer.alloc(1));
      await target.plc.files.write('b.bin', Buffer.alloc(1));
      await assert.rejects(target.plc.files.write('c.bin', Buffer.alloc(0)), /Files\.MaxFileCount/);
    } finally {
      await target.close();
    }
  });
});
