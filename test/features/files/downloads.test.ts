// Downloads over real sockets: the two forms the Accept header chooses between and their size limits at the edge,
// a client that stops reading (the file is read only as fast as it is taken, and the connection is ended after
// Http.SendTimeoutSeconds, JSON answers included), and the cap on downloads in progress per user.
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { base64Length } from '../../../src/features/files/service.ts';
import type { SweepResult } from '../../../src/http/send-timeout.ts';
import type { FileReader } from '../../../src/plc/types.ts';
import { MemoryFileStore } from '../../../src/simulator/engine/index.ts';
import { mintToken } from '../../helpers/tokens.ts';
import { testDrivers } from '../variables/fixture.ts';
import { allBytes, mib16, startFilesApp, type FilesApp } from './fixture.ts';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

const octet = 'application/octet-stream';

/** A GET read to its end. */
function get(base: URL, token: string, path: string, accept?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: base.hostname,
        port: base.port,
        path,
        headers: { authorization: `Bearer ${token}`, ...(accept ? { accept } : {}) },
      },
      (res) => {
        const parts: Buffer[] = [];
        res.on('data', (d: Buffer) => parts.push(d));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(parts) }),
        );
      },
    );
    req.on('error', reject);
    req.end();
  });
}

const errorOf = (answer: Answer): { code: string; message: string } =>
  (JSON.parse(answer.body.toString()) as { error: { code: string; message: string } }).error;

/** A GET whose answer the client never reads: its socket is paused before a byte arrives. */
async function unreadGet(base: URL, token: string, path: string, accept: string): Promise<Socket> {
  const socket = connect(Number(base.port), base.hostname);
  socket.pause();
  await new Promise<void>((resolve) => socket.once('connect', resolve));
  socket.write(
    `GET ${path} HTTP/1.1\r\nHost: ${base.host}\r\nAuthorization: Bearer ${token}\r\nAccept: ${accept}\r\n\r\n`,
  );
  return socket;
}

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

for (const driver of testDrivers) {
  describe(`download forms (${driver})`, () => {
    let f: FilesApp;
    let base: URL;
    let token: string;
    before(async () => {
      f = await startFilesApp(driver, {
        settings: { RateLimiting: { Enabled: false }, Files: { MaxJsonBytes: 1000 } },
      });
      base = new URL(await f.app.listen({ host: '127.0.0.1', port: 0 }));
      token = await mintToken();
    });
    after(() => f.close());

    test('Accept: application/octet-stream streams the bytes, up to exactly Files.MaxBytes; one more is 413', async () => {
      await f.sim.plc.files.write('bin/all.bin', allBytes());
      const small = await get(base, token, '/api/plcs/sim1/files/bin/all.bin', octet);
      assert.equal(small.status, 200);
      assert.equal(small.headers['content-type'], octet);
      assert.equal(small.headers['content-length'], '256');
      assert.equal(
        small.headers['content-disposition'],
        `attachment; filename="all.bin"; filename*=UTF-8''all.bin`,
      );
      assert.deepEqual(small.body, allBytes());

      const limit = Buffer.alloc(mib16, 0x5a);
      limit[0] = 1;
      limit[mib16 - 1] = 2;
      await f.sim.plc.files.write('big/limit.bin', limit);
      const whole = await get(base, token, '/api/plcs/sim1/files/big/limit.bin', octet);
      assert.equal(whole.status, 200);
      assert.equal(whole.headers['content-length'], String(mib16));
      assert.ok(whole.body.equals(limit));

      await f.sim.plc.files.write('big/over.bin', Buffer.alloc(mib16 + 1));
      const over = await get(base, token, '/api/plcs/sim1/files/big/over.bin', octet);
      assert.equal(over.status, 413);
      assert.equal(errorOf(over).code, 'PAYLOAD_TOO_LARGE');
      await f.sim.plc.files.write('big/limit.bin', Buffer.alloc(0));
      await f.sim.plc.files.write('big/over.bin', Buffer.alloc(0));
    });

    test('JSON, the default, up to exactly Files.MaxJsonBytes; one more is 406 naming the other form', async () => {
      await f.sim.plc.files.write('json/edge.bin', Buffer.alloc(1000, 7));
      await f.sim.plc.files.write('json/over.bin', Buffer.alloc(1001, 7));
      for (const accept of [undefined, 'application/json', '*/*', `application/json, ${octet};q=0.5`]) {
        const edge = await get(base, token, '/api/plcs/sim1/files/json/edge.bin', accept);
        assert.equal(edge.status, 200, accept);
        assert.match(String(edge.headers['content-type']), /^application\/json/);
        const data = (JSON.parse(edge.body.toString()) as { data: { size: number; contentBase64: string } })
          .data;
        assert.equal(data.size, 1000);
        assert.deepEqual(Buffer.from(data.contentBase64, 'base64'), Buffer.alloc(1000, 7));

        const over = await get(base, token, '/api/plcs/sim1/files/json/over.bin', accept);
        assert.equal(over.status, 406, accept);
        assert.equal(errorOf(over).code, 'FILE_TOO_LARGE_FOR_JSON');
        assert.match(errorOf(over).message, /Accept: application\/octet-stream/);
      }
      for (const accept of [octet, `${octet}, */*;q=0.8`, `application/json;q=0.1, ${octet}`]) {
        const raw = await get(base, token, '/api/plcs/sim1/files/json/over.bin', accept);
        assert.equal(raw.status, 200, accept);
        assert.deepEqual(raw.body, Buffer.alloc(1001, 7));
      }
    });
  });
}

/** A memory store that counts what its readers hand out and how many are open. */
class CountingStore extends MemoryFileStore {
  bytesRead = 0;
  openReaders = 0;

  override async openRead(path: string): Promise<FileReader> {
    const reader = await super.openRead(path);
    this.openReaders += 1;
    let closed = false;
    return {
      size: reader.size,
      read: async (max) => {
        const chunk = await reader.read(max);
        this.bytesRead += chunk.length;
        return chunk;
      },
      close: async () => {
        if (!closed) this.openReaders -= 1;
        closed = true;
        await reader.close();
      },
    };
  }
}

describe('a client that does not read', () => {
  let f: FilesApp;
  let base: URL;
  let token: string;
  let store: CountingStore;
  let t = 1_000_000;
  let sweep: () => SweepResult = () => ({ blocked: 0, ended: 0 });
  const big = Buffer.alloc(mib16, 0x42);

  before(async () => {
    store = new CountingStore(undefined, { maxTotalBytes: 64 * 1024 * 1024, maxFileCount: 10 });
    f = await startFilesApp('simulated', {
      files: store,
      settings: {
        RateLimiting: { Enabled: false },
        Files: { MaxJsonBytes: mib16, MaxConcurrentDownloadsPerUser: 2 },
        Http: { SendTimeoutSeconds: 30 },
      },
      sendWatch: {
        now: () => t,
        every: (run) => {
          sweep = run;
          return () => undefined;
        },
      },
    });
    base = new URL(await f.app.listen({ host: '127.0.0.1', port: 0 }));
    token = await mintToken();
    await store.write('big.bin', big);
  });
  after(() => f.close());

  /** Sweeps until the gateway sees a connection whose send buffer is full. */
  const blocked = async (): Promise<void> => {
    while (sweep().blocked === 0) await turn();
  };
  /**
   * Reads what is left on `socket` once it resumes and answers how many bytes came: the gateway's end arrives
   * after the bytes already in flight.
   */
  const drained = (socket: Socket): Promise<number> =>
    new Promise((resolve) => {
      let length = 0;
      socket.on('data', (d: Buffer) => (length += d.length));
      socket.once('close', () => resolve(length));
      socket.resume();
    });
  const timeouts = async (): Promise<number> => {
    const text = (await get(base, token, '/metrics')).body.toString();
    return Number(/^http_send_timeouts_total (\d+)$/m.exec(text)?.[1]);
  };

  test('a raw download reads the file only as it is taken, and ends Http.SendTimeoutSeconds after it stalls', async () => {
    const client = await unreadGet(base, token, '/api/plcs/sim1/files/big.bin', octet);
    await blocked();
    // Socket buffers hold a little; the rest of the file was never read from the store.
    assert.ok(store.bytesRead < mib16 / 2, `${store.bytesRead} bytes read`);
    assert.equal(store.openReaders, 1);
    t += 29_999;
    assert.deepEqual(sweep(), { blocked: 1, ended: 0 });
    assert.equal(client.destroyed, false);
    t += 1;
    assert.deepEqual(sweep(), { blocked: 1, ended: 1 });
    // The answer is cut short: the client can tell by its Content-Length.
    assert.ok((await drained(client)) < mib16);
    // The file is closed with the stream.
    while (store.openReaders > 0) await turn();
    assert.equal(await timeouts(), 1);
  });

  test('a large JSON answer falls under the same rule', async () => {
    const client = await unreadGet(base, token, '/api/plcs/sim1/files/big.bin', 'application/json');
    await blocked();
    t += 29_999;
    assert.equal(sweep().ended, 0);
    t += 1;
    assert.equal(sweep().ended, 1);
    assert.ok((await drained(client)) < base64Length(mib16));
    assert.equal(await timeouts(), 2);
  });

  test('a client that stalls but then reads on in time gets the whole file', async () => {
    const client = await unreadGet(base, token, '/api/plcs/sim1/files/big.bin', octet);
    await blocked();
    t += 29_999;
    assert.equal(sweep().ended, 0);
    // The answer is headers and then exactly the file's bytes (Content-Length).
    const answer = await new Promise<Buffer>((resolve) => {
      let received = Buffer.alloc(0);
      client.on('data', (d: Buffer) => {
        received = Buffer.concat([received, d]);
        const split = received.indexOf('\r\n\r\n');
        if (split >= 0 && received.length - split - 4 >= mib16) resolve(received);
      });
      client.resume();
    });
    t += 60_000;
    assert.equal(sweep().ended, 0);
    assert.equal(answer.subarray(0, 15).toString(), 'HTTP/1.1 200 OK');
    assert.ok(answer.subarray(answer.indexOf('\r\n\r\n') + 4).equals(big));
    client.destroy();
    assert.equal(await timeouts(), 2);
  });

  test('Files.MaxConcurrentDownloadsPerUser downloads at once per user: one more is 429 until one ends', async () => {
    const first = await unreadGet(base, token, '/api/plcs/sim1/files/big.bin', octet);
    const second = await unreadGet(base, token, '/api/plcs/sim1/files/big.bin', 'application/json');
    // Both are in progress once the gateway has filled their send buffers.
    while (sweep().blocked < 2) await turn();
    const third = await get(base, token, '/api/plcs/sim1/files/big.bin', octet);
    assert.equal(third.status, 429);
    assert.equal(errorOf(third).code, 'DOWNLOAD_LIMIT');
    assert.match(errorOf(third).message, /Files\.MaxConcurrentDownloadsPerUser/);
    // Listings and uploads are no downloads.
    assert.equal((await get(base, token, '/api/plcs/sim1/files')).status, 200);
    // Another user has slots of their own.
    const other = await get(
      base,
      await mintToken({ sub: 'someone-else' }),
      '/api/plcs/sim1/files/big.bin',
      octet,
    );
    assert.equal(other.status, 200);
    assert.equal(other.body.length, mib16);
    // A download that ends frees its slot.
    first.destroy();
    let again = await get(base, token, '/api/plcs/sim1/files/big.bin', octet);
    while (again.status === 429) {
      await turn();
      again = await get(base, token, '/api/plcs/sim1/files/big.bin', octet);
    }
    assert.equal(again.status, 200);
    assert.equal(again.body.length, mib16);
    second.destroy();
  });
});
