// A raw AMS/TCP test client: frames in and out of a socket, no ADS library in between.
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import {
  decodeAmsPacket,
  encodeAmsPacket,
  FrameSplitter,
  type AmsPacket,
  type AmsTcpFrame,
} from '../../../src/simulator/ads-server/protocol/frame.ts';
import { AdsCommand } from '../../../src/plc/ads/constants.ts';
import { AdsErrorCode } from '../../../src/plc/ads/error-codes.ts';
import { encodeRequest, type AdsRequest } from '../../../src/simulator/ads-server/protocol/commands.ts';
import type { AmsAddress } from '../../../src/simulator/ads-server/protocol/net-id.ts';

export interface RawClient {
  socket: Socket;
  next(): Promise<AmsTcpFrame>;
  closed: Promise<void>;
}

export function rawClient(port: number): Promise<RawClient> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1' });
    const splitter = new FrameSplitter(16 * 1024 * 1024);
    const frames: AmsTcpFrame[] = [];
    const waiting: Array<(f: AmsTcpFrame) => void> = [];
    socket.on('data', (chunk: Buffer) => {
      for (const f of splitter.push(chunk)) {
        const w = waiting.shift();
        if (w) w(f);
        else frames.push(f);
      }
    });
    const closed = new Promise<void>((r) => socket.once('close', () => r()));
    socket.once('error', reject);
    socket.once('connect', () =>
      resolve({
        socket,
        closed,
        next: () =>
          new Promise((r, j) => {
            const f = frames.shift();
            if (f) return r(f);
            const timer = setTimeout(() => j(new Error('no frame received')), 3000);
            waiting.push((x) => {
              clearTimeout(timer);
              r(x);
            });
          }),
      }),
    );
  });
}

export interface RequestOptions {
  port?: number;
  netId?: string;
  invokeId?: number;
  /** The client's own AMS address (a fixed one, as command-line tools use). */
  source?: AmsAddress;
}

export function request(commandId: number, data: Buffer, options: RequestOptions = {}): Buffer {
  return encodeAmsPacket({
    header: {
      target: { netId: options.netId ?? '127.0.0.1.1.1', port: options.port ?? 851 },
      source: options.source ?? { netId: '192.168.7.7.1.1', port: 40001 },
      commandId,
      stateFlags: 4,
      errorCode: 0,
      invokeId: options.invokeId ?? 1,
    },
    data,
  });
}

export async function reply(client: RawClient): Promise<AmsPacket> {
  const frame = await client.next();
  assert.equal(frame.command, 0);
  return decodeAmsPacket(frame.payload);
}

/** Sends one request and decodes its answer: the ADS result code and (Read/ReadWrite) the data. */
export async function call(
  client: RawClient,
  ads: AdsRequest,
  options: RequestOptions = {},
): Promise<{ amsError: number; result: number; data: Buffer }> {
  client.socket.write(request(ads.command, encodeRequest(ads), options));
  const r = await reply(client);
  const { result, data } = decodeResponseResult(ads.command, r.data);
  return { amsError: r.header.errorCode, result, data };
}

/** Result code and (for Read/ReadWrite) data of a response payload, as a client reads it. */
function decodeResponseResult(commandId: number, data: Buffer): { result: number; data: Buffer } {
  const result = data.length >= 4 ? data.readUInt32LE(0) : AdsErrorCode.InvalidAdsLength;
  if ((commandId === AdsCommand.Read || commandId === AdsCommand.ReadWrite) && data.length >= 8) {
    const length = data.readUInt32LE(4);
    return { result, data: data.subarray(8, 8 + length) };
  }
  return { result, data: data.subarray(4) };
}
