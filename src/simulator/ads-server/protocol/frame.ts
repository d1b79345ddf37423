// AMS/TCP framing: the 6-byte AMS/TCP header, the 32-byte AMS header and a streaming frame splitter.

import { AMS_HEADER_LENGTH, AMS_TCP_HEADER_LENGTH } from '../../../plc/ads/index.ts';
import { formatNetId, parseNetId, type AmsAddress } from './net-id.ts';

/** One AMS/TCP frame: its command (0 = ADS, 0x1000 = port connect, ...) and the bytes after the header. */
export interface AmsTcpFrame {
  command: number;
  payload: Buffer;
}

export interface AmsHeader {
  target: AmsAddress;
  source: AmsAddress;
  commandId: number;
  stateFlags: number;
  errorCode: number;
  invokeId: number;
}

/** An ADS command or response: the AMS header and its data. */
export interface AmsPacket {
  header: AmsHeader;
  data: Buffer;
}

/** A byte stream that cannot be framed: the connection must be closed. */
export class FrameError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FrameError';
  }
}

export function encodeAmsTcpFrame(command: number, payload: Buffer): Buffer {
  const frame = Buffer.allocUnsafe(AMS_TCP_HEADER_LENGTH + payload.length);
  frame.writeUInt16LE(command, 0);
  frame.writeUInt32LE(payload.length, 2);
  payload.copy(frame, AMS_TCP_HEADER_LENGTH);
  return frame;
}

/** A complete AMS/TCP frame carrying one ADS packet. */
export function encodeAmsPacket(packet: AmsPacket): Buffer {
  const { header, data } = packet;
  const frame = Buffer.allocUnsafe(AMS_TCP_HEADER_LENGTH + AMS_HEADER_LENGTH + data.length);
  frame.writeUInt16LE(0, 0);
  frame.writeUInt32LE(AMS_HEADER_LENGTH + data.length, 2);
  const h = AMS_TCP_HEADER_LENGTH;
  parseNetId(header.target.netId).copy(frame, h);
  frame.writeUInt16LE(header.target.port, h + 6);
  parseNetId(header.source.netId).copy(frame, h + 8);
  frame.writeUInt16LE(header.source.port, h + 14);
  frame.writeUInt16LE(header.commandId, h + 16);
  frame.writeUInt16LE(header.stateFlags, h + 18);
  frame.writeUInt32LE(data.length, h + 20);
  frame.writeUInt32LE(header.errorCode >>> 0, h + 24);
  frame.writeUInt32LE(header.invokeId >>> 0, h + 28);
  data.copy(frame, h + AMS_HEADER_LENGTH);
  return frame;
}

/** Decodes the payload of an ADS AMS/TCP frame; throws FrameError when the AMS header is inconsistent. */
export function decodeAmsPacket(payload: Buffer): AmsPacket {
  if (payload.length < AMS_HEADER_LENGTH) {
    throw new FrameError(`AMS packet of ${payload.length} bytes is shorter than the 32-byte AMS header`);
  }
  const dataLength = payload.readUInt32LE(20);
  if (dataLength !== payload.length - AMS_HEADER_LENGTH) {
    throw new FrameError(
      `AMS header announces ${dataLength} data bytes but the frame carries ${payload.length - AMS_HEADER_LENGTH}`,
    );
  }
  return {
    header: {
      target: { netId: formatNetId(payload.subarray(0, 6)), port: payload.readUInt16LE(6) },
      source: { netId: formatNetId(payload.subarray(8, 14)), port: payload.readUInt16LE(14) },
      commandId: payload.readUInt16LE(16),
      stateFlags: payload.readUInt16LE(18),
      errorCode: payload.readUInt32LE(24),
      invokeId: payload.readUInt32LE(28),
    },
    data: payload.subarray(AMS_HEADER_LENGTH),
  };
}

/**
 * Cuts a TCP byte stream into AMS/TCP frames, whatever the chunking. A frame announcing more than
 * `maxFrameBytes` is a FrameError (the peer is not speaking AMS, or is hostile).
 */
export class FrameSplitter {
  private pending: Buffer = Buffer.alloc(0);
  /** Chunks received after `pending` while a frame is incomplete, joined once it can be complete. */
  private later: Buffer[] = [];
  private laterBytes = 0;
  /** Bytes `pending` must reach before another frame can be cut. */
  private needed = AMS_TCP_HEADER_LENGTH;

  constructor(private readonly maxFrameBytes: number) {}

  /** Bytes received but not yet part of a complete frame. */
  get buffered(): number {
    return this.pending.length + this.laterBytes;
  }

  push(chunk: Buffer): AmsTcpFrame[] {
    // A large frame arriving in small chunks is joined once, not copied again on every chunk.
    if (this.pending.length + this.laterBytes + chunk.length < this.needed) {
      this.later.push(chunk);
      this.laterBytes += chunk.length;
      return [];
    }
    this.pending =
      this.pending.length === 0 && this.later.length === 0
        ? chunk
        : Buffer.concat([this.pending, ...this.later, chunk]);
    this.later = [];
    this.laterBytes = 0;
    const frames: AmsTcpFrame[] = [];
    let offset = 0;
    this.needed = AMS_TCP_HEADER_LENGTH;
    while (this.pending.length - offset >= AMS_TCP_HEADER_LENGTH) {
      const length = this.pending.readUInt32LE(offset + 2);
      if (length > this.maxFrameBytes) {
        throw new FrameError(`AMS/TCP frame of ${length} bytes exceeds the limit of ${this.maxFrameBytes}`);
      }
      const end = offset + AMS_TCP_HEADER_LENGTH + length;
      if (end > this.pending.length) {
        this.needed = AMS_TCP_HEADER_LENGTH + length;
        break;
      }
      frames.push({
        command: this.pending.readUInt16LE(offset),
        payload: this.pending.subarray(offset + AMS_TCP_HEADER_LENGTH, end),
      });
      offset = end;
    }
    // Copy the tail so frames handed out never alias bytes that later chunks are appended to.
    this.pending = offset === 0 ? this.pending : Buffer.from(this.pending.subarray(offset));
    return frames;
  }
}
