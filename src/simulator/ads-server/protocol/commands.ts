// ADS command payloads (commands 1-9): request decoders and response encoders for the server side,
// and the mirror-image request encoders / response decoders that raw test clients use.

import { AdsCommand, AdsError, AdsErrorCode } from '../../../plc/ads/index.ts';

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

type NumberField<R> = { [K in keyof R]: R[K] extends number ? K : never }[Exclude<keyof R, 'command'>];

/**
 * Where a request's fields sit: numbers (u16 or u32, little-endian) in order, then for some a u32 length and
 * that many data bytes. One table serves both directions, the server's decoder and the raw clients' encoder.
 */
interface RequestLayout<R> {
  readonly numbers: ReadonlyArray<readonly [field: NumberField<R>, bytes: 2 | 4]>;
  readonly data?: true;
  /** Reserved bytes a client sends after the fields (zero) and a server does not need. */
  readonly reserved?: number;
}

type RequestLayouts = {
  readonly [C in AdsRequest['command']]: RequestLayout<Extract<AdsRequest, { command: C }>>;
};

/** Index group and offset, the head of most requests. */
const address = [
  ['indexGroup', 4],
  ['indexOffset', 4],
] as const;

const requestLayouts: RequestLayouts = {
  [AdsCommand.ReadDeviceInfo]: { numbers: [] },
  [AdsCommand.Read]: { numbers: [...address, ['length', 4]] },
  [AdsCommand.Write]: { numbers: address, data: true },
  [AdsCommand.ReadState]: { numbers: [] },
  [AdsCommand.WriteControl]: {
    numbers: [
      ['adsState', 2],
      ['deviceState', 2],
    ],
    data: true,
  },
  [AdsCommand.AddNotification]: {
    numbers: [...address, ['length', 4], ['transmissionMode', 4], ['maxDelay', 4], ['cycleTime', 4]],
    reserved: 16,
  },
  [AdsCommand.DeleteNotification]: { numbers: [['handle', 4]] },
  [AdsCommand.ReadWrite]: { numbers: [...address, ['readLength', 4]], data: true },
};

type AnyNumberField = {
  [C in AdsRequest['command']]: NumberField<Extract<AdsRequest, { command: C }>>;
}[AdsRequest['command']];

/** A request as the layout table sees it: its command, numbers by field name and data. */
type FlatRequest = { command: number; data?: Buffer } & Partial<Record<AnyNumberField, number>>;

interface FlatLayout {
  readonly numbers: ReadonlyArray<readonly [field: AnyNumberField, bytes: 2 | 4]>;
  readonly data?: true;
  readonly reserved?: number;
}

function layoutOf(commandId: number): FlatLayout | undefined {
  return Object.hasOwn(requestLayouts, commandId)
    ? requestLayouts[commandId as AdsRequest['command']]
    : undefined;
}

const commandNames = new Map<number, string>(Object.entries(AdsCommand).map(([name, id]) => [id, name]));

/** Decodes a request payload; throws AdsError (1797 size, 8 unknown command) when it does not parse. */
export function decodeRequest(commandId: number, data: Buffer): AdsRequest {
  const layout = layoutOf(commandId);
  if (layout === undefined) {
    throw new AdsError(AdsErrorCode.UnknownCommandId, `Unknown ADS command id ${commandId}`);
  }
  const what = commandNames.get(commandId) ?? String(commandId);
  const fixed = layout.numbers.reduce((n, [, bytes]) => n + bytes, layout.data ? 4 : 0);
  need(data, fixed, what);
  const request: FlatRequest = { command: commandId };
  let at = 0;
  for (const [field, bytes] of layout.numbers) {
    request[field] = bytes === 2 ? data.readUInt16LE(at) : data.readUInt32LE(at);
    at += bytes;
  }
  if (layout.data) request.data = sized(data, at + 4, data.readUInt32LE(at), what);
  // The layout of the command is what the command's member of the union holds.
  return request as AdsRequest;
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
interface NotificationSample {
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
  const flat: FlatRequest = request;
  const layout = layoutOf(request.command) ?? { numbers: [] };
  const fixed = layout.numbers.reduce((n, [, bytes]) => n + bytes, 0);
  const data = layout.data ? (flat.data ?? Buffer.alloc(0)) : undefined;
  const out = Buffer.alloc(fixed + (data ? 4 + data.length : 0) + (layout.reserved ?? 0));
  let at = 0;
  for (const [field, bytes] of layout.numbers) {
    const value = flat[field] ?? 0;
    if (bytes === 2) out.writeUInt16LE(value, at);
    else out.writeUInt32LE(value >>> 0, at);
    at += bytes;
  }
  if (data) {
    out.writeUInt32LE(data.length, at);
    data.copy(out, at + 4);
  }
  return out;
}

/** The ReadDeviceInfo answer of a port: a version under the port's device name. */
export function deviceInfoResponse(
  version: { major: number; minor: number; build: number },
  name: string,
): AdsResponse {
  const { major, minor, build } = version;
  return { command: AdsCommand.ReadDeviceInfo, major, minor, build, name };
}
