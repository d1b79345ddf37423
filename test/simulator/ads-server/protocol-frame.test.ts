// Byte fixtures for AMS/TCP framing, the AMS header, NetIds and the ADS command payloads.
import assert from 'node:assert/strict';
import { describe, it, mock } from 'node:test';
import {
  decodeDeviceNotification,
  decodeRequest,
  encodeDeviceNotification,
  encodeErrorResponse,
  encodeRequest,
  encodeResponse,
} from '../../../src/simulator/ads-server/protocol/commands.ts';
import { AdsCommand, fromFileTime, toFileTime } from '../../../src/plc/ads/constants.ts';
import { AdsError } from '../../../src/plc/ads/error-codes.ts';
import {
  decodeAmsPacket,
  encodeAmsPacket,
  encodeAmsTcpFrame,
  FrameError,
  FrameSplitter,
} from '../../../src/simulator/ads-server/protocol/frame.ts';
import { formatNetId, isNetId, parseNetId } from '../../../src/simulator/ads-server/protocol/net-id.ts';

const hex = (s: string): Buffer => Buffer.from(s.replace(/\s+/g, ''), 'hex');

// A ReadState request from 192.168.0.10.1.1:32905 to 5.80.201.232.1.1:851, invoke id 7.
const readStateFrame = hex(`
  0000 20000000
  0550c9e80101 5303
  c0a8000a0101 8980
  0400 0400 00000000 00000000 07000000`);

describe('NetId', () => {
  it('parses and formats six dotted bytes', () => {
    assert.deepEqual(parseNetId('5.80.201.232.1.1'), hex('0550c9e80101'));
    assert.equal(formatNetId(hex('7f0000010101')), '127.0.0.1.1.1');
  });
  for (const bad of ['1.2.3.4.5', '1.2.3.4.5.6.7', '1.2.3.4.5.256', 'a.b.c.d.e.f', '']) {
    it(`rejects "${bad}"`, () => {
      assert.equal(isNetId(bad), false);
      assert.throws(() => parseNetId(bad), AdsError);
    });
  }
});

describe('AMS header', () => {
  it('decodes a request frame', () => {
    const [frame] = new FrameSplitter(1024).push(readStateFrame);
    assert.ok(frame);
    assert.equal(frame.command, 0);
    const packet = decodeAmsPacket(frame.payload);
    assert.deepEqual(packet.header, {
      target: { netId: '5.80.201.232.1.1', port: 851 },
      source: { netId: '192.168.0.10.1.1', port: 32905 },
      commandId: AdsCommand.ReadState,
      stateFlags: 4,
      errorCode: 0,
      invokeId: 7,
    });
    assert.equal(packet.data.length, 0);
  });

  it('encodes the same bytes it decodes', () => {
    const packet = decodeAmsPacket(readStateFrame.subarray(6));
    assert.deepEqual(encodeAmsPacket(packet), readStateFrame);
  });

  it('rejects a data length that disagrees with the frame', () => {
    const bad = Buffer.from(readStateFrame);
    bad.writeUInt32LE(5, 6 + 20);
    assert.throws(() => decodeAmsPacket(bad.subarray(6)), FrameError);
    assert.throws(() => decodeAmsPacket(Buffer.alloc(10)), FrameError);
  });
});

describe('FrameSplitter', () => {
  const connect = hex('0010 02000000 0000');

  it('joins a frame split byte by byte', () => {
    const splitter = new FrameSplitter(1024);
    const out = [];
    for (const byte of readStateFrame) out.push(...splitter.push(Buffer.from([byte])));
    assert.equal(out.length, 1);
    assert.deepEqual(out[0]?.payload, readStateFrame.subarray(6));
    assert.equal(splitter.buffered, 0);
  });

  it('splits coalesced frames and keeps a partial tail', () => {
    const splitter = new FrameSplitter(1024);
    const chunk = Buffer.concat([connect, readStateFrame, readStateFrame.subarray(0, 10)]);
    const frames = splitter.push(chunk);
    assert.deepEqual(
      frames.map((f) => f.command),
      [0x1000, 0],
    );
    assert.deepEqual(frames[0]?.payload, hex('0000'));
    assert.equal(splitter.buffered, 10);
    assert.equal(splitter.push(readStateFrame.subarray(10)).length, 1);
  });

  it('joins a large frame trickled in small chunks once, not once per chunk', () => {
    const splitter = new FrameSplitter(8 * 1024 * 1024);
    const body = Buffer.alloc(4 * 1024 * 1024, 7);
    const frame = Buffer.concat([encodeAmsTcpFrame(0, body), readStateFrame.subarray(0, 3)]);
    const concat = mock.method(Buffer, 'concat');
    const out = [];
    try {
      for (let at = 0; at < frame.length; at += 200) out.push(...splitter.push(frame.subarray(at, at + 200)));
    } finally {
      concat.mock.restore();
    }
    // Copying the buffered bytes on every chunk would join about 21000 times and move about 40 GB.
    assert.equal(concat.mock.callCount(), 1);
    assert.equal(out.length, 1);
    assert.ok(out[0]?.payload.equals(body));
    assert.equal(splitter.buffered, 3);
    assert.equal(splitter.push(readStateFrame.subarray(3)).length, 1);
    assert.equal(splitter.buffered, 0);
  });

  it('refuses a frame longer than the limit before buffering it', () => {
    const splitter = new FrameSplitter(64);
    assert.throws(() => splitter.push(hex('0000 41000000')), FrameError);
  });

  it('encodes AMS/TCP router frames', () => {
    assert.deepEqual(
      encodeAmsTcpFrame(0x1000, hex('7f00000101013075')),
      hex('0010 08000000 7f00000101013075'),
    );
  });
});

describe('ADS command payloads', () => {
  const cases: Array<{ name: string; command: number; bytes: string; request: object }> = [
    {
      name: 'Read',
      command: 2,
      bytes: '40400000 10000000 04000000',
      request: { indexGroup: 0x4040, indexOffset: 16, length: 4 },
    },
    {
      name: 'Write',
      command: 3,
      bytes: '40400000 10000000 02000000 3412',
      request: { indexGroup: 0x4040, indexOffset: 16, data: hex('3412') },
    },
    {
      name: 'WriteControl',
      command: 5,
      bytes: '0500 0000 00000000',
      request: { adsState: 5, deviceState: 0, data: Buffer.alloc(0) },
    },
    {
      name: 'AddNotification',
      command: 6,
      bytes: '40400000 00000000 04000000 04000000 00000000 80969800' + '00'.repeat(16),
      request: {
        indexGroup: 0x4040,
        indexOffset: 0,
        length: 4,
        transmissionMode: 4,
        maxDelay: 0,
        cycleTime: 10000000,
      },
    },
    { name: 'DeleteNotification', command: 7, bytes: '2a000000', request: { handle: 42 } },
    {
      name: 'ReadWrite',
      command: 9,
      bytes: '03f00000 00000000 ffffffff 05000000 4d2e7800 00',
      request: { indexGroup: 0xf003, indexOffset: 0, readLength: 0xffffffff, data: hex('4d2e780000') },
    },
  ];
  for (const c of cases) {
    it(`decodes and re-encodes ${c.name}`, () => {
      const decoded = decodeRequest(c.command, hex(c.bytes));
      assert.deepEqual(decoded, { command: c.command, ...c.request });
      const reencoded = encodeRequest(decoded);
      assert.deepEqual(reencoded.subarray(0, hex(c.bytes).length), hex(c.bytes));
    });
  }

  it('rejects short and inconsistent requests with 1797 and unknown commands with 8', () => {
    const code = (f: () => unknown): number => {
      try {
        f();
      } catch (e) {
        if (e instanceof AdsError) return e.code;
      }
      return -1;
    };
    assert.equal(
      code(() => decodeRequest(2, hex('4040'))),
      1797,
    );
    assert.equal(
      code(() => decodeRequest(3, hex('40400000 00000000 05000000 01'))),
      1797,
    );
    assert.equal(
      code(() => decodeRequest(9, hex('40400000 00000000 04000000 02000000 01'))),
      1797,
    );
    assert.equal(
      code(() => decodeRequest(42, Buffer.alloc(0))),
      8,
    );
  });

  it('encodes responses', () => {
    assert.deepEqual(
      encodeResponse({ command: 1, major: 3, minor: 1, build: 4024, name: 'Plc30 App' }),
      hex('00000000 03 01 b80f 506c63333020417070' + '00'.repeat(7)),
    );
    assert.deepEqual(encodeResponse({ command: 2, data: hex('0102') }), hex('00000000 02000000 0102'));
    assert.deepEqual(encodeResponse({ command: 4, adsState: 5, deviceState: 0 }), hex('00000000 0500 0000'));
    assert.deepEqual(encodeResponse({ command: 6, handle: 9 }), hex('00000000 09000000'));
    assert.deepEqual(encodeResponse({ command: 3 }), hex('00000000'));
    assert.deepEqual(encodeErrorResponse(9, 1808), hex('10070000 00000000'));
    assert.deepEqual(encodeErrorResponse(3, 1795), hex('03070000'));
  });

  it('encodes a device notification with stamps and samples', () => {
    const stamp = toFileTime(Date.UTC(2024, 0, 1));
    const payload = encodeDeviceNotification([
      {
        timestamp: stamp,
        samples: [
          { handle: 1, data: hex('0102') },
          { handle: 2, data: hex('ff') },
        ],
      },
    ]);
    assert.deepEqual(
      payload,
      Buffer.concat([
        hex('23000000 01000000'),
        hex(stamp.toString(16).padStart(16, '0')).reverse(),
        hex('02000000 01000000 02000000 0102 02000000 01000000 ff'),
      ]),
    );
    const [decoded] = decodeDeviceNotification(payload);
    assert.equal(fromFileTime(decoded?.timestamp ?? 0n), Date.UTC(2024, 0, 1));
    assert.deepEqual(
      decoded?.samples.map((s) => s.handle),
      [1, 2],
    );
  });
});
