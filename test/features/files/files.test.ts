// Files through HTTP on both drivers: binary round trips in both body forms, the size limit at its edge in
// both directions, listings, missing files and folders, and the flag and policies.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { bearer, mintToken } from '../../helpers/tokens.ts';
import { testDrivers } from '../variables/fixture.ts';
import { allBytes, mib16, startFilesApp, type FilesApp } from './fixture.ts';

const errorMessage = (res: { json(): unknown }): string =>
  (res.json() as { error: { message: string } }).error.message;

const url = (path: string) => `/api/plcs/sim1/files/${path}`;

for (const driver of testDrivers) {
  describe(`file routes (${driver})`, () => {
    let f: FilesApp;
    before(async () => {
      f = await startFilesApp(driver, { settings: { RateLimiting: { FileTransfers: 100_000 } } });
    });
    after(() => f.close());

    const readBack = async (path: string): Promise<Buffer> => {
      const res = await f.send('GET', url(path));
      assert.equal(res.statusCode, 200, res.body);
      const data = res.json<{ data: { path: string; size: number; contentBase64: string } }>().data;
      assert.equal(data.path, path);
      const bytes = Buffer.from(data.contentBase64, 'base64');
      assert.equal(data.size, bytes.length);
      return bytes;
    };

    test('every byte value round-trips, raw and as base64 JSON', async () => {
      const raw = await f.send('PUT', url('bin/raw.bin'), { raw: allBytes() });
      assert.equal(raw.statusCode, 200, raw.body);
      assert.deepEqual(raw.json(), { data: { path: 'bin/raw.bin', size: 256 }, error: null });
      assert.deepEqual(await readBack('bin/raw.bin'), allBytes());
      assert.deepEqual(await f.sim.plc.files.read('bin/raw.bin'), allBytes());

      const reversed = Buffer.from(allBytes()).reverse();
      const json = await f.send('PUT', url('bin/json.bin'), {
        json: { contentBase64: reversed.toString('base64') },
      });
      assert.deepEqual(json.json(), { data: { path: 'bin/json.bin', size: 256 }, error: null });
      assert.deepEqual(await readBack('bin/json.bin'), reversed);
    });

    test('an empty file, raw and JSON; an overwrite replaces the content', async () => {
      await f.sim.plc.files.write('empty/a.txt', Buffer.from('not empty yet'));
      const raw = await f.send('PUT', url('empty/a.txt'), { raw: Buffer.alloc(0) });
      assert.deepEqual(raw.json(), { data: { path: 'empty/a.txt', size: 0 }, error: null });
      assert.equal((await readBack('empty/a.txt')).length, 0);
      const json = await f.send('PUT', url('empty/b.txt'), { json: { contentBase64: '' } });
      assert.deepEqual(json.json(), { data: { path: 'empty/b.txt', size: 0 }, error: null });
      assert.equal((await readBack('empty/b.txt')).length, 0);
    });

    test('exactly Files.MaxBytes is accepted in both forms; one byte more is 413 and the old file stays', async () => {
      const limit = Buffer.alloc(mib16, 0x5a);
      limit[0] = 1;
      limit[mib16 - 1] = 2;
      const raw = await f.send('PUT', url('big/limit.bin'), { raw: limit });
      assert.equal(raw.statusCode, 200, raw.body);
      assert.equal(raw.json().data.size, mib16);
      const download = await f.app.inject({
        method: 'GET',
        url: url('big/limit.bin'),
        headers: { ...bearer(await mintToken()), accept: 'application/octet-stream' },
      });
      assert.equal(download.statusCode, 200);
      assert.ok(download.rawPayload.equals(limit));

      const json = await f.send('PUT', url('big/limit-json.bin'), {
        json: { contentBase64: limit.toString('base64') },
      });
      assert.equal(json.statusCode, 200, json.body);
      assert.equal(json.json().data.size, mib16);

      const over = Buffer.alloc(mib16 + 1, 0x33);
      for (const body of [{ raw: over }, { json: { contentBase64: over.toString('base64') } }]) {
        const res = await f.send('PUT', url('big/limit.bin'), body);
        assert.equal(res.statusCode, 413, res.body.slice(0, 200));
        assert.equal(res.json().error.code, 'PAYLOAD_TOO_LARGE');
      }
      assert.ok((await f.sim.plc.files.read('big/limit.bin')).equals(limit));
    });

    test('reading a file larger than Files.MaxBytes is 413', async () => {
      await f.sim.plc.files.write('big/over.bin', Buffer.alloc(mib16 + 1));
      const res = await f.send('GET', url('big/over.bin'));
      assert.equal(res.statusCode, 413);
      assert.equal(res.json().error.code, 'PAYLOAD_TOO_LARGE');
      assert.match(errorMessage(res), /Files\.MaxBytes|larger than/);
    });

    test('listing: root and folders, sorted, with type, size and modified; missing folder 404', async () => {
      await f.sim.plc.files.write('list/b.txt', Buffer.from('bb'));
      await f.sim.plc.files.write('list/a.txt', Buffer.from('a'));
      await f.sim.plc.files.write('list/sub/c.txt', Buffer.from('ccc'));
      const res = await f.send('GET', '/api/plcs/sim1/files?dir=list');
      assert.equal(res.statusCode, 200, res.body);
      const { dir, entries } = res.json<{
        data: { dir: string; entries: Array<{ name: string; type: string; size: number; modified: string }> };
      }>().data;
      assert.equal(dir, 'list');
      assert.deepEqual(
        entries.map(({ name, type, size }) => ({ name, type, size })),
        [
          { name: 'a.txt', type: 'file', size: 1 },
          { name: 'b.txt', type: 'file', size: 2 },
          { name: 'sub', type: 'dir', size: 0 },
        ],
      );
      for (const e of entries) assert.match(e.modified, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      const nested = await f.send('GET', '/api/plcs/sim1/files?dir=list/sub/');
      assert.deepEqual(
        nested.json<{ data: { entries: Array<{ name: string }> } }>().data.entries.map((e) => e.name),
        ['c.txt'],
      );
      const root = await f.send('GET', '/api/plcs/sim1/files');
      assert.equal(root.json().data.dir, '');
      assert.ok(
        root
          .json<{ data: { entries: Array<{ name: string; type: string }> } }>()
          .data.entries.some((e: { name: string; type: string }) => e.name === 'list' && e.type === 'dir'),
      );
      const missing = await f.send('GET', '/api/plcs/sim1/files?dir=nope');
      assert.equal(missing.statusCode, 404);
      assert.equal(missing.json().error.code, 'FILE_NOT_FOUND');
    });

    test('a missing file is 404 FILE_NOT_FOUND', async () => {
      for (const path of ['nope.txt', 'no/such/folder/x.bin']) {
        const res = await f.send('GET', url(path));
        assert.equal(res.statusCode, 404);
        assert.equal(res.json().error.code, 'FILE_NOT_FOUND');
      }
    });

    test('bad bodies: invalid base64, no content, another content type', async () => {
      for (const json of [
        { contentBase64: 'abc' },
        { contentBase64: '@@@@' },
        { contentBase64: 'A===' },
        { contentBase64: 7 },
        {},
        [],
      ]) {
        const res = await f.send('PUT', url('bad/x.bin'), { json });
        assert.equal(res.statusCode, 400, JSON.stringify(json));
        assert.equal(res.json().error.code, 'VALIDATION_ERROR');
      }
      const text = await f.send('PUT', url('bad/x.bin'), { text: 'hello', type: 'text/plain' });
      assert.equal(text.statusCode, 415);
      await assert.rejects(f.sim.plc.files.read('bad/x.bin'), /not found/);
    });

    test('flag, policies and the PLC checks', async () => {
      const viewer = { role: 'viewer', scope: 'ads:read' };
      assert.equal((await f.send('GET', url('bin/raw.bin'), undefined, viewer)).statusCode, 200);
      assert.equal((await f.send('GET', '/api/plcs/sim1/files', undefined, viewer)).statusCode, 200);
      const put = await f.send('PUT', url('bin/raw.bin'), { raw: Buffer.from('x') }, viewer);
      assert.equal(put.statusCode, 403);
      assert.equal(put.json().error.code, 'FORBIDDEN');
      const noWrite = await f.send(
        'PUT',
        url('bin/raw.bin'),
        { raw: Buffer.from('x') },
        { scope: 'ads:read' },
      );
      assert.equal(noWrite.statusCode, 403);
      assert.deepEqual(await f.sim.plc.files.read('bin/raw.bin'), allBytes());
      const other = await f.send('GET', url('bin/raw.bin'), undefined, { plc_access: ['ads-err'] });
      assert.equal(other.json().error.code, 'PLC_ACCESS_DENIED');
      assert.equal((await f.send('GET', '/api/plcs/nope/files/a.txt')).json().error.code, 'PLC_NOT_FOUND');
      const failing = await f.send('GET', '/api/plcs/ads-err/files/a.txt');
      assert.equal(failing.statusCode, 502);
      assert.equal((await f.send('GET', '/api/plcs/ads-slow/files')).statusCode, 504);
      await f.sim.disconnect();
      try {
        assert.equal((await f.send('GET', url('bin/raw.bin'))).json().error.code, 'PLC_UNAVAILABLE');
      } finally {
        await f.sim.reconnect();
      }
    });
  });
}

describe('file routes: flag off and the FileTransfers limit', () => {
  test('Files off by default: 501 FEATURE_DISABLED', async () => {
    const f = await startFilesApp('simulated', { settings: { Features: { Files: false } } });
    try {
      for (const [method, path] of [
        ['GET', url('a.txt')],
        ['PUT', url('a.txt')],
        ['GET', '/api/plcs/sim1/files'],
      ] as const) {
        const res = await f.send(method, path, method === 'PUT' ? { raw: Buffer.from('x') } : undefined);
        assert.equal(res.statusCode, 501);
        assert.equal(res.json().error.code, 'FEATURE_DISABLED');
      }
      await assert.rejects(f.sim.plc.files.read('a.txt'), /not found/);
    } finally {
      await f.close();
    }
  });

  test('per user per PLC, shared by the three routes, edge of the one-second window', async () => {
    let t = 1_000_000;
    const f = await startFilesApp('simulated', {
      settings: { RateLimiting: { FileTransfers: 3 } },
      now: () => t,
    });
    try {
      await f.sim.plc.files.write('a.txt', Buffer.from('a'));
      assert.equal((await f.send('GET', url('a.txt'))).statusCode, 200);
      assert.equal((await f.send('PUT', url('b.txt'), { raw: Buffer.from('b') })).statusCode, 200);
      assert.equal((await f.send('GET', '/api/plcs/sim1/files')).statusCode, 200);
      t += 999;
      const limited = await f.send('PUT', url('c.txt'), { raw: Buffer.from('c') });
      assert.equal(limited.statusCode, 429);
      assert.equal(limited.json().error.code, 'RATE_LIMITED');
      assert.equal(limited.headers['retry-after'], '1');
      await assert.rejects(f.sim.plc.files.read('c.txt'), /not found/);
      // Another user has a budget of their own.
      assert.equal((await f.send('GET', url('a.txt'), undefined, { sub: 'someone-else' })).statusCode, 200);
      t += 1;
      assert.equal((await f.send('PUT', url('c.txt'), { raw: Buffer.from('c') })).statusCode, 200);
    } finally {
      await f.close();
    }
  });
});
