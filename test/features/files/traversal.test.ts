// Files over a real socket on both drivers, backed by a folder on disk: every traversal form (plain and
// URL-encoded, symlinks leading out of the root) is refused with nothing touched, and an upload cut off
// mid-body leaves the old content.
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, symlink, writeFile, mkdir, lstat } from 'node:fs/promises';
import { request } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { DiskFileStore } from '../../../src/targets/simulated/index.ts';
import { mintToken } from '../../helpers/tokens.ts';
import { testDrivers } from '../variables/fixture.ts';
import { startFilesApp, type FilesApp } from './fixture.ts';

// Each traversal form as it goes on the wire, the decoded forms included.
const badPaths = [
  '../secret.txt',
  'a/../../secret.txt',
  '%2e%2e/secret.txt',
  '%2E%2E%2Fsecret.txt',
  '..%2f..%2fsecret.txt',
  '/etc/passwd',
  '%2Fetc%2Fpasswd',
  'C:/Windows/win.ini',
  'C%3A%5CWindows%5Cwin.ini',
  'c:secret.txt',
  'a%00b.txt',
  'a%5Cb.txt',
  'a\\b.txt',
  './x.txt',
  'a//b.txt',
  'x.txt::$DATA',
];

// Windows device names in every form and place: any case, any extension, trailing dots and spaces.
const deviceNames = [
  'CON',
  'nul.txt',
  'a/Con/b.txt',
  'prn.tar.gz',
  'aux%20.txt',
  'COM1',
  'com9.log',
  'LPT1.',
  'lpt9%20%20',
  'CONIN$',
  'conout$.txt',
  'Clock$',
  'recipes/CLOCK$/x.csv',
  'COM%C2%B9',
];

interface Answer {
  status: number;
  body: { data: unknown; error: { code: string; message: string } | null };
}

/** A request sent with its path exactly as given (no client-side normalisation). */
function send(base: URL, token: string, method: string, path: string, body?: Buffer): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: base.hostname,
        port: base.port,
        method,
        path,
        headers: {
          authorization: `Bearer ${token}`,
          ...(body ? { 'content-type': 'application/octet-stream', 'content-length': body.length } : {}),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as Answer['body'] }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Every entry under `dir`, with file contents, so a test can tell that nothing changed. */
async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await readdir(dir, { recursive: true })) {
    const full = join(dir, entry);
    const s = await lstat(full);
    out[entry] = s.isSymbolicLink() ? 'link' : s.isDirectory() ? 'dir' : await readFile(full, 'latin1');
  }
  return out;
}

for (const driver of testDrivers) {
  describe(`file paths and interrupted uploads over a socket (${driver})`, () => {
    let f: FilesApp;
    let base: URL;
    let token: string;
    let work: string;
    let root: string;
    let outside: string;

    before(async () => {
      work = await mkdtemp(join(tmpdir(), 'plc-gateway-files-'));
      root = join(work, 'root');
      outside = join(work, 'outside');
      await mkdir(join(root, 'recipes'), { recursive: true });
      await mkdir(outside);
      await writeFile(join(outside, 'secret.txt'), 'outside the root');
      await writeFile(join(root, 'recipes', 'r1.csv'), 'old content');
      await symlink(outside, join(root, 'escape'));
      await symlink(join(outside, 'secret.txt'), join(root, 'leak.txt'));
      f = await startFilesApp(driver, {
        files: new DiskFileStore(root),
        settings: { RateLimiting: { Enabled: false } },
      });
      base = new URL(await f.app.listen({ host: '127.0.0.1', port: 0 }));
      token = await mintToken();
    });
    after(async () => {
      await f.close();
      await rm(work, { recursive: true, force: true });
    });

    test('every traversal form is 400 VALIDATION_ERROR on read, write and listing; nothing is touched', async () => {
      const before = { root: await snapshot(root), outside: await snapshot(outside) };
      for (const path of badPaths) {
        const reads = [
          await send(base, token, 'GET', `/api/plcs/sim1/files/${path}`),
          await send(base, token, 'GET', `/api/plcs/sim1/files?dir=${path}`),
          await send(base, token, 'PUT', `/api/plcs/sim1/files/${path}`, Buffer.from('overwritten')),
          await send(base, token, 'PUT', `/api/plcs/sim1/files/recipes/${path}`, Buffer.from('overwritten')),
        ];
        for (const answer of reads) {
          assert.equal(answer.status, 400, `${path}: ${JSON.stringify(answer.body)}`);
          assert.equal(answer.body.error?.code, 'VALIDATION_ERROR');
        }
      }
      assert.deepEqual({ root: await snapshot(root), outside: await snapshot(outside) }, before);
    });

    test('Windows device names are 400 RESERVED_FILE_NAME in every form and segment; nothing is touched', async () => {
      const before = { root: await snapshot(root), outside: await snapshot(outside) };
      for (const path of deviceNames) {
        const answers = [
          await send(base, token, 'GET', `/api/plcs/sim1/files/${path}`),
          await send(base, token, 'GET', `/api/plcs/sim1/files?dir=${path}`),
          await send(base, token, 'PUT', `/api/plcs/sim1/files/${path}`, Buffer.from('x')),
        ];
        for (const answer of answers) {
          assert.equal(answer.status, 400, `${path}: ${JSON.stringify(answer.body)}`);
          assert.equal(answer.body.error?.code, 'RESERVED_FILE_NAME', path);
        }
      }
      // Names that only begin like a device are files like any other.
      for (const path of ['console.txt', 'com10.csv', 'nul_/a.txt', 'clock.txt']) {
        const put = await send(base, token, 'PUT', `/api/plcs/sim1/files/ok/${path}`, Buffer.from('x'));
        assert.equal(put.status, 200, `${path}: ${JSON.stringify(put.body)}`);
      }
      await rm(join(root, 'ok'), { recursive: true });
      assert.deepEqual({ root: await snapshot(root), outside: await snapshot(outside) }, before);
    });

    test('no folder is made through a link out of the root, however deep the new path', async () => {
      const before = { root: await snapshot(root), outside: await snapshot(outside) };
      for (const path of ['escape/new/x.txt', 'escape/a/b/c/x.txt', 'recipes/../escape/n/x.txt']) {
        const answer = await send(base, token, 'PUT', `/api/plcs/sim1/files/${path}`, Buffer.from('x'));
        assert.equal(answer.status, 400, `${path}: ${JSON.stringify(answer.body)}`);
        assert.equal(answer.body.error?.code, 'VALIDATION_ERROR');
      }
      assert.deepEqual({ root: await snapshot(root), outside: await snapshot(outside) }, before);
    });

    test('a listing shows no size or date of anything outside the root: links leading out are left out', async () => {
      await symlink(join(root, 'recipes', 'r1.csv'), join(root, 'inner-link.csv'));
      try {
        const answer = await send(base, token, 'GET', '/api/plcs/sim1/files');
        assert.equal(answer.status, 200);
        const entries = (answer.body.data as { entries: Array<{ name: string; size: number }> }).entries;
        // A link that stays inside is listed as what it leads to.
        assert.deepEqual(
          entries.map((e) => [e.name, e.size]),
          [
            ['inner-link.csv', 'old content'.length],
            ['recipes', 0],
          ],
        );
      } finally {
        await rm(join(root, 'inner-link.csv'));
      }
    });

    test('symlinks leading out of the root are refused for reads, writes and listings', async () => {
      const before = { root: await snapshot(root), outside: await snapshot(outside) };
      const answers = [
        await send(base, token, 'GET', '/api/plcs/sim1/files/escape/secret.txt'),
        await send(base, token, 'GET', '/api/plcs/sim1/files/leak.txt'),
        await send(base, token, 'GET', '/api/plcs/sim1/files?dir=escape'),
        await send(base, token, 'PUT', '/api/plcs/sim1/files/escape/new.txt', Buffer.from('x')),
        await send(base, token, 'PUT', '/api/plcs/sim1/files/escape/secret.txt', Buffer.from('x')),
        await send(base, token, 'PUT', '/api/plcs/sim1/files/leak.txt', Buffer.from('x')),
      ];
      for (const answer of answers) {
        assert.equal(answer.status, 400, JSON.stringify(answer));
        assert.equal(answer.body.error?.code, 'VALIDATION_ERROR');
        assert.doesNotMatch(JSON.stringify(answer.body), /outside the root/);
      }
      assert.deepEqual({ root: await snapshot(root), outside: await snapshot(outside) }, before);
    });

    test('an upload whose connection is cut mid-body leaves the old content', async () => {
      const body = Buffer.alloc(200_000, 0x41);
      const socket = connect(Number(base.port), base.hostname);
      await new Promise<void>((resolve) => socket.once('connect', resolve));
      socket.write(
        `PUT /api/plcs/sim1/files/recipes/r1.csv HTTP/1.1\r\nHost: ${base.host}\r\n` +
          `Authorization: Bearer ${token}\r\nContent-Type: application/octet-stream\r\n` +
          `Content-Length: ${body.length}\r\n\r\n`,
      );
      await new Promise<void>((resolve) => socket.write(body.subarray(0, body.length / 2), () => resolve()));
      socket.destroy();
      // The gateway audits the failed upload once it has seen the cut: wait for that record.
      for (;;) {
        const page = await send(base, token, 'GET', '/api/admin/audit?plcId=sim1');
        const items = (page.body.data as { items: Array<{ action: string; target: string; result: string }> })
          .items;
        if (
          items.some(
            (r) => r.action === 'file.write' && r.target === 'recipes/r1.csv' && r.result === 'error',
          )
        ) {
          break;
        }
        await new Promise((resolve) => setImmediate(resolve));
      }
      const read = await send(base, token, 'GET', '/api/plcs/sim1/files/recipes/r1.csv');
      assert.equal(read.status, 200);
      assert.equal(
        Buffer.from((read.body.data as { contentBase64: string }).contentBase64, 'base64').toString(),
        'old content',
      );
      assert.deepEqual(await readdir(join(root, 'recipes')), ['r1.csv']);
      // A complete upload on a new connection then goes through.
      const ok = await send(
        base,
        token,
        'PUT',
        '/api/plcs/sim1/files/recipes/r1.csv',
        Buffer.from('new content'),
      );
      assert.equal(ok.status, 200);
      assert.equal(await readFile(join(root, 'recipes', 'r1.csv'), 'utf8'), 'new content');
    });
  });
}
