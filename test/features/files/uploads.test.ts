// Raw uploads over a real socket are bounded while they stream: a body of unknown length (chunked) is refused
// with 413 as soon as it passes Files.MaxBytes and the connection is closed, whatever the client still sends; an
// upload that never finishes ends with 408 after Http.RequestTimeoutMs.
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { mintToken } from '../../helpers/tokens.ts';
import { startFilesApp, type FilesApp } from './fixture.ts';

interface Reply {
  /** Everything the gateway sent, once it closed the connection. */
  text: string;
  /** Bytes of body the client had written when the answer's first byte arrived. */
  sentBeforeAnswer: number;
}

describe('raw uploads over a socket', () => {
  let f: FilesApp;
  let base: URL;
  let token: string;
  before(async () => {
    f = await startFilesApp('simulated', {
      settings: {
        RateLimiting: { Enabled: false },
        Files: { MaxBytes: 1000 },
        Http: { HeadersTimeoutMs: 300, RequestTimeoutMs: 600 },
      },
    });
    base = new URL(await f.app.listen({ host: '127.0.0.1', port: 0 }));
    token = await mintToken();
  });
  after(() => f.close());

  const open = async (path: string, headers: string): Promise<Socket> => {
    const socket = connect(Number(base.port), base.hostname);
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    socket.write(
      `PUT /api/plcs/sim1/files/${path} HTTP/1.1\r\nHost: ${base.host}\r\nAuthorization: Bearer ${token}\r\n` +
        `Content-Type: application/octet-stream\r\n${headers}\r\n`,
    );
    return socket;
  };

  /** Sends chunks of `size` bytes, one after the other, until the gateway answers; never ends the body. */
  const sendUntilAnswered = (socket: Socket, size: number): Promise<Reply> =>
    new Promise((resolve) => {
      let text = '';
      let sent = 0;
      let sentBeforeAnswer = -1;
      const chunk = `${size.toString(16)}\r\n${'a'.repeat(size)}\r\n`;
      const more = (): void => {
        if (sentBeforeAnswer >= 0 || socket.destroyed) return;
        sent += size;
        socket.write(chunk, () => setImmediate(more));
      };
      socket.on('data', (d: Buffer) => {
        if (sentBeforeAnswer < 0) sentBeforeAnswer = sent;
        text += d.toString('latin1');
      });
      socket.on('error', () => undefined);
      socket.once('close', () => resolve({ text, sentBeforeAnswer }));
      more();
    });

  test('a chunked body of exactly Files.MaxBytes is stored', async () => {
    const socket = await open('up/edge.bin', 'Transfer-Encoding: chunked\r\n');
    socket.write(`3e8\r\n${'b'.repeat(1000)}\r\n0\r\n\r\n`);
    const text = await new Promise<string>((resolve) => {
      let all = '';
      socket.on('data', (d: Buffer) => {
        all += d.toString('latin1');
        if (all.includes('"error":')) resolve(all);
      });
    });
    assert.match(text, /^HTTP\/1\.1 200 /);
    socket.destroy();
    assert.deepEqual(await f.sim.plc.files.read('up/edge.bin'), Buffer.alloc(1000, 'b'));
  });

  test('one byte more is 413 at once and the connection is closed while the client still sends', async () => {
    const socket = await open('up/edge.bin', 'Transfer-Encoding: chunked\r\n');
    const reply = await sendUntilAnswered(socket, 100);
    assert.match(reply.text, /^HTTP\/1\.1 413 /);
    assert.match(reply.text, /\r\nconnection: close\r\n/i);
    assert.match(reply.text, /"code":"PAYLOAD_TOO_LARGE"/);
    // Answered on the first chunk past the limit (the 11th), not after the body.
    assert.ok(reply.sentBeforeAnswer >= 1100, String(reply.sentBeforeAnswer));
    assert.deepEqual(await f.sim.plc.files.read('up/edge.bin'), Buffer.alloc(1000, 'b'));
  });

  test('a declared length past Files.MaxBytes is 413 before a byte of body, and the connection is closed', async () => {
    const socket = await open('up/edge.bin', 'Content-Length: 1001\r\n');
    const reply = await sendUntilAnswered(socket, 100);
    assert.match(reply.text, /^HTTP\/1\.1 413 /);
    assert.match(reply.text, /\r\nconnection: close\r\n/i);
    assert.deepEqual(await f.sim.plc.files.read('up/edge.bin'), Buffer.alloc(1000, 'b'));
  });

  test('an upload that never finishes is 408 after Http.RequestTimeoutMs, and nothing is stored', async () => {
    const socket = await open('up/slow.bin', 'Content-Length: 1000\r\n');
    socket.write('x'.repeat(10));
    const text = await new Promise<string>((resolve) => {
      let all = '';
      socket.on('data', (d: Buffer) => (all += d.toString('latin1')));
      socket.once('close', () => resolve(all));
    });
    assert.match(text, /^HTTP\/1\.1 408 /);
    await assert.rejects(f.sim.plc.files.read('up/slow.bin'), /not found/);
  });
});
