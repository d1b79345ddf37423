// The UDP ADS discovery and route service (port 48899): a 12-byte header (cookie 0x71146603, invoke id,
// service id; answers set bit 31), the sender's AMS address, then tagged blocks {u16 tag, u16 length,
// data}. Layout as Beckhoff's ADS library sends it (AdsLib/AdsLib.cpp: SendRecv, AddRemoteRoute,
// GetRemoteAddress); the discovery answer's blocks (host name, OS version info, TwinCAT version) as a
// TwinCAT 3.1 system answers them (Apache PLC4X's ads-discovery.mspec documents the same blocks).

import { AdsError, AdsErrorCode, UDP_COOKIE, UDP_HEADER_LENGTH, UdpService } from '../../../plc/ads/index.ts';
import { formatNetId, parseNetId, type AmsAddress } from './net-id.ts';

export interface UdpRequest {
  invokeId: number;
  service: number;
  source: AmsAddress;
  tags: ReadonlyMap<number, Buffer>;
}

/** Parses a request; AdsError 1797 for a datagram whose lengths do not add up. */
export function decodeUdpRequest(data: Buffer): UdpRequest | undefined {
  if (data.length < UDP_HEADER_LENGTH + 12 || data.readUInt32LE(0) !== UDP_COOKIE) return undefined;
  const invokeId = data.readUInt32LE(4);
  const service = data.readUInt32LE(8);
  const source = { netId: formatNetId(data.subarray(12, 18)), port: data.readUInt16LE(18) };
  const count = data.readUInt32LE(20);
  const tags = new Map<number, Buffer>();
  let pos = 24;
  for (let i = 0; i < count; i++) {
    if (pos + 4 > data.length) throw new AdsError(AdsErrorCode.InvalidSize, 'Truncated tag header');
    const tag = data.readUInt16LE(pos);
    const length = data.readUInt16LE(pos + 2);
    if (pos + 4 + length > data.length) throw new AdsError(AdsErrorCode.InvalidSize, 'Truncated tag');
    tags.set(tag, data.subarray(pos + 4, pos + 4 + length));
    pos += 4 + length;
  }
  return { invokeId, service, source, tags };
}

/** A string block's text: NUL-terminated (the length counts the NUL). */
export function tagText(value: Buffer | undefined): string | undefined {
  if (value === undefined) return undefined;
  const end = value.indexOf(0);
  return value.subarray(0, end < 0 ? value.length : end).toString('utf8');
}

export function textTag(text: string): Buffer {
  return Buffer.from(`${text}\0`, 'utf8');
}

export function encodeUdpResponse(
  request: Pick<UdpRequest, 'invokeId' | 'service'>,
  server: AmsAddress,
  tags: ReadonlyArray<readonly [number, Buffer]>,
): Buffer {
  const size = tags.reduce((n, [, v]) => n + 4 + v.length, UDP_HEADER_LENGTH + 12);
  const out = Buffer.alloc(size);
  out.writeUInt32LE(UDP_COOKIE, 0);
  out.writeUInt32LE(request.invokeId >>> 0, 4);
  out.writeUInt32LE((UdpService.Response | request.service) >>> 0, 8);
  parseNetId(server.netId).copy(out, 12);
  out.writeUInt16LE(server.port, 18);
  out.writeUInt32LE(tags.length, 20);
  let pos = 24;
  for (const [tag, value] of tags) {
    out.writeUInt16LE(tag, pos);
    out.writeUInt16LE(value.length, pos + 2);
    value.copy(out, pos + 4);
    pos += 4 + value.length;
  }
  return out;
}

/** TwinCAT version block: major, minor (u8), build (u16). */
export function versionTag(major: number, minor: number, build: number): Buffer {
  const out = Buffer.alloc(4);
  out.writeUInt8(major & 0xff, 0);
  out.writeUInt8(minor & 0xff, 1);
  out.writeUInt16LE(build & 0xffff, 2);
  return out;
}

/** OS block: Windows' OSVERSIONINFOW (size, major, minor, build, platform id, 128 UTF-16 service-pack chars). */
export function osVersionTag(major: number, minor: number, build: number, platformId = 2): Buffer {
  const out = Buffer.alloc(276);
  out.writeUInt32LE(out.length, 0);
  out.writeUInt32LE(major, 4);
  out.writeUInt32LE(minor, 8);
  out.writeUInt32LE(build, 12);
  out.writeUInt32LE(platformId, 16);
  return out;
}

export function statusTag(code: number): Buffer {
  const out = Buffer.alloc(4);
  out.writeUInt32LE(code >>> 0, 0);
  return out;
}
