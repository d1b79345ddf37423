// ADS command payloads (commands 1-9): request decoders and response encoders for the server side,
// and the mirror-image request encoders / response decoders that raw test clients use.

import { AdsCommand } from '../../../plc/ads/constants.ts';
import { AdsError, AdsErrorCode } from '../../../plc/ads/error-codes.ts';

export type AdsRequest =
  | { command: typeof AdsCommand.ReadDeviceInfo }
  | { command: typeof AdsCommand.Read; indexGroup: number; indexOffset: number; length: number }
  | { command: typeof AdsCommand.Write; indexGroup: number; indexOffset: number; data: Buffer }
  | { command: typeof AdsCommand.ReadState }
  | { command: typeof AdsCommand.WriteControl; adsState: number; deviceState: number; data: Buffer }
  | ({ command: typeof AdsCommand.AddNotification } & NotificationRequest)
  | { command: typeof AdsCommand.DeleteNotification; handle: number }
  | {
      command: typeof AdsCommand.ReadWrite;
      indexGroup: number;
      indexOffset: number;
      readLength: number;
      data: Buffer;
    };

export interface NotificationRequest {
  indexGroup: number;
  indexOffset: number;
  length: number;
  transmissionMode: number;
  /** Both in 100 ns units, as on the wire. */
  maxDelay: number;
  cycleTime: number;
}

export type AdsResponse =
  | { command: typeof AdsCommand.ReadDeviceInfo; major: number; minor: number; build: number; name: string }
  | { command: typeof AdsCommand.Read; data: Buffer }
  | { command: typeof AdsCommand.Write }
  | { command: typeof AdsCommand.ReadState; adsState: number; deviceState: number }
  | { command: typeof AdsCommand.WriteControl }
  | { command: typeof AdsCommand.AddNotification; handle: number }
  | { command: typeof AdsCommand.DeleteNotification }
  | { command: typeof AdsCommand.ReadWrite; data: Buffer };

function need(data: Buffer, bytes: number, what: string): void {
  if (data.length < bytes) {
    throw new AdsError(AdsErrorCode.InvalidSize, `${what} request needs ${bytes} bytes, got ${data.length}`);
  }
}

function sized(data: Buffer, start: number, length: number, what: string): Buffer {
  if (data.length - start !== length) {
    throw new AdsError(
      AdsErrorCode.InvalidSize,
      `${what} request announces ${length} data bytes but carries ${data.length - start}`,
    );
  }
  return data.subarray(start);
}

/** The index group and offset at `at`, as requests and sum-command tables carry them. */
export function readAddress(data: Buffer, at: number): { indexGroup: number; indexOffset: number } {
  return { indexGroup: data.readUInt32LE(at), indexOffset: data.readUInt32LE(at + 4) };
}

/** Decodes a request payload; throws AdsError (1797 size, 8 unknown command) when it does not parse. */
export function decodeRequest(commandId: number, data: Buffer): AdsRequest {
  switch (commandId) {
    case AdsCommand.ReadDeviceInfo:
      return { command: commandId };
    case AdsCommand.ReadState:
      return { command: commandId };
    case AdsCommand.Read:
      need(data, 12, 'Read');
      return {
        command: commandId,
        ...readAddress(data, 0),
        length: data.readUInt32LE(8),
      };
    case AdsCommand.Write:
      need(data, 12, 'Write');
      return {
        command: commandId,
        ...readAddress(data, 0),
        data: sized(data, 12, data.readUInt32LE(8), 'Write'),
      };
    case AdsCommand.WriteControl:
      need(data, 8, 'WriteControl');
      return {
        command: commandId,
        adsState: data.readUInt16LE(0),
        deviceState: data.readUInt16LE(2),
        data: sized(data, 8, data.readUInt32LE(4), 'WriteControl'),
      };
    case AdsCommand.AddNotification:
      need(data, 24, 'AddNotification');
      return {
        command: commandId,
        ...readAddress(data, 0),
        length: data.readUInt32LE(8),
        transmissionMode: data.readUInt32LE(12),
        maxDelay: data.readUInt32LE(16),
        cycleTime: data.readUInt32LE(20),
      };
    case AdsCommand.DeleteNotification:
      need(data, 4, 'DeleteNotification');
      return { command: commandId, handle: data.readUInt32LE(0) };
    case AdsCommand.ReadWrite:
      need(data, 16, 'ReadWrite');
      return {
        command: commandId,
        ...readAddress(data, 0),
        readLength: data.readUInt32LE(8),
        data: sized(data, 16, data.readUInt32LE(12), 'ReadWrite'),
      };
    default:
      throw new AdsError(AdsErrorCode.UnknownCommandId, `Unknown ADS command id ${commandId}`);
  }
}

function u32(value: number): Buffer {
  const b = Buffer.allocUnsafe(4);
  b.writeUInt32LE(value >>> 0, 0);
  return b;
}

function withData(data: Buffer): Buffer {
  const out = Buffer.allocUnsafe(8 + data.length);
  out.writeUInt32LE(0, 0);
  out.writeUInt32LE(data.length, 4);
  data.copy(out, 8);
  return out;
}

/** Encodes a successful response payload. */
export function encodeResponse(response: AdsResponse): Buffer {
  switch (response.command) {
    case AdsCommand.ReadDeviceInfo: {
      const out = Buffer.alloc(24);
      out.writeUInt8(response.major, 4);
      out.writeUInt8(response.minor, 5);
      out.writeUInt16LE(response.build, 6);
      // 16 bytes, always NUL-terminated.
      Buffer.from(response.name, 'latin1').copy(out, 8, 0, 15);
      return out;
    }
    case AdsCommand.Read:
    case AdsCommand.ReadWrite:
      return withData(response.data);
    case AdsCommand.ReadState: {
      const out = Buffer.alloc(8);
      out.writeUInt16LE(response.adsState, 4);
      out.writeUInt16LE(response.deviceState, 6);
      return out;
    }
    case AdsCommand.AddNotification: {
      const out = Buffer.alloc(8);
      out.writeUInt32LE(response.handle >>> 0, 4);
      return out;
    }
    case AdsCommand.Write:
    case AdsCommand.WriteControl:
    case AdsCommand.DeleteNotification:
      return u32(0);
  }
}

/** The payload of a failed command: the ADS result code in the shape the command's response has. */
export function encodeErrorResponse(commandId: number, code: number): Buffer {
  switch (commandId) {
    case AdsCommand.Read:
    case AdsCommand.ReadWrite:
    case AdsCommand.ReadState:
    case AdsCommand.AddNotification: {
      const out = Buffer.alloc(8);
      out.writeUInt32LE(code >>> 0, 0);
      return out;
    }
    case AdsCommand.ReadDeviceInfo: {
      const out = Buffer.alloc(24);
      out.writeUInt32LE(code >>> 0, 0);
      return out;
    }
    default:
      return u32(code);
  }
}

/** One sample of a DeviceNotification stamp. */
export interface NotificationSample {
  handle: number;
  data: Buffer;
}

export interface NotificationStamp {
  /** FILETIME, 100 ns since 1601 (UTC). */
  timestamp: bigint;
  samples: readonly NotificationSample[];
}

/** The payload of a DeviceNotification (command 8) the server sends to a client. */
export function encodeDeviceNotification(stamps: readonly NotificationStamp[]): Buffer {
  let size = 8;
  for (const stamp of stamps) {
    size += 12;
    for (const sample of stamp.samples) size += 8 + sample.data.length;
  }
  const out = Buffer.allocUnsafe(size);
  out.writeUInt32LE(size - 4, 0);
  out.writeUInt32LE(stamps.length, 4);
  let pos = 8;
  for (const stamp of stamps) {
    out.writeBigUInt64LE(stamp.timestamp, pos);
    out.writeUInt32LE(stamp.samples.length, pos + 8);
    pos += 12;
    for (const sample of stamp.samples) {
      out.writeUInt32LE(sample.handle >>> 0, pos);
      out.writeUInt32LE(sample.data.length, pos + 4);
      sample.data.copy(out, pos + 8);
      pos += 8 + sample.data.length;
    }
  }
  return out;
}

export function decodeDeviceNotification(data: Buffer): NotificationStamp[] {
  const stamps: NotificationStamp[] = [];
  const count = data.readUInt32LE(4);
  let pos = 8;
  for (let s = 0; s < count; s++) {
    const timestamp = data.readBigUInt64LE(pos);
    const sampleCount = data.readUInt32LE(pos + 8);
    pos += 12;
    const samples: NotificationSample[] = [];
    for (let i = 0; i < sampleCount; i++) {
      const handle = data.readUInt32LE(pos);
      const size = data.readUInt32LE(pos + 4);
      samples.push({ handle, data: data.subarray(pos + 8, pos + 8 + size) });
      pos += 8 + size;
    }
    stamps.push({ timestamp, samples });
  }
  return stamps;
}

/** Encodes a request payload, as a client would send it. */
export function encodeRequest(request: AdsRequest): Buffer {
  switch (request.command) {
    case AdsCommand.ReadDeviceInfo:
    case AdsCommand.ReadState:
      return Buffer.alloc(0);
    case AdsCommand.Read: {
      const out = Buffer.alloc(12);
      out.writeUInt32LE(request.indexGroup >>> 0, 0);
      out.writeUInt32LE(request.indexOffset >>> 0, 4);
      out.writeUInt32LE(request.length >>> 0, 8);
      return out;
    }
    case AdsCommand.Write: {
      const out = Buffer.alloc(12 + request.data.length);
      out.writeUInt32LE(request.indexGroup >>> 0, 0);
      out.writeUInt32LE(request.indexOffset >>> 0, 4);
      out.writeUInt32LE(request.data.length, 8);
      request.data.copy(out, 12);
      return out;
    }
    case AdsCommand.WriteControl: {
      const out = Buffer.alloc(8 + request.data.length);
      out.writeUInt16LE(request.adsState, 0);
      out.writeUInt16LE(request.deviceState, 2);
      out.writeUInt32LE(request.data.length, 4);
      request.data.copy(out, 8);
      return out;
    }
    case AdsCommand.AddNotification: {
      const out = Buffer.alloc(40);
      out.writeUInt32LE(request.indexGroup >>> 0, 0);
      out.writeUInt32LE(request.indexOffset >>> 0, 4);
      out.writeUInt32LE(request.length >>> 0, 8);
      out.writeUInt32LE(request.transmissionMode, 12);
      out.writeUInt32LE(request.maxDelay >>> 0, 16);
      out.writeUInt32LE(request.cycleTime >>> 0, 20);
      return out;
    }
    case AdsCommand.DeleteNotification:
      return u32(request.handle);
    case AdsCommand.ReadWrite: {
      const out = Buffer.alloc(16 + request.data.length);
      out.writeUInt32LE(request.indexGroup >>> 0, 0);
      out.writeUInt32LE(request.indexOffset >>> 0, 4);
      out.writeUInt32LE(request.readLength >>> 0, 8);
      out.writeUInt32LE(request.data.length, 12);
      request.data.copy(out, 16);
      return out;
    }
  }
}

/** The ReadDeviceInfo answer of a port: a version under the port's device name. */
export function deviceInfoResponse(
  version: { major: number; minor: number; build: number },
  name: string,
): AdsResponse {
  const { major, minor, build } = version;
  return { command: AdsCommand.ReadDeviceInfo, major, minor, build, name };
}
