// File service records of the system service (port 10000): names in requests and the 324-byte
// FFILEFIND record (handle, attributes, times, size, name[260] at offset 48).

import { toFileTime } from './constants.ts';
import { AdsError, AdsErrorCode } from './errors.ts';

export const FIND_RECORD_LENGTH = 324;
const NAME_OFFSET = 48;
const NAME_LENGTH = 260;
export const FILE_ATTRIBUTE_DIRECTORY = 0x10;
export const FILE_ATTRIBUTE_NORMAL = 0x80;

/** FOPEN mode bits (index offset, low word); the high word selects a standard directory. */
export const FileOpenMode = {
  Read: 0x1,
  Write: 0x2,
  Append: 0x4,
  Plus: 0x8,
  Binary: 0x10,
  Text: 0x20,
  EnsureDir: 0x40,
} as const;

/** A file name as clients send it: bytes up to the first NUL (or all of them), cp1252 read as latin1. */
export function decodeFileName(data: Buffer): string {
  const end = data.indexOf(0);
  return data.subarray(0, end < 0 ? data.length : end).toString('latin1');
}

/** FRENAME's payload: the old and the new name, each NUL-terminated. */
export function decodeFileNamePair(data: Buffer): [string, string] {
  const first = data.indexOf(0);
  if (first < 0) throw new AdsError(AdsErrorCode.InvalidParameter, 'FRENAME needs two NUL-terminated names');
  return [decodeFileName(data.subarray(0, first)), decodeFileName(data.subarray(first + 1))];
}

export interface FindRecordInput {
  handle: number;
  name: string;
  isDirectory: boolean;
  size: number;
  modified: Date;
}

export function encodeFindRecord(input: FindRecordInput): Buffer {
  const out = Buffer.alloc(FIND_RECORD_LENGTH);
  out.writeUInt32LE(input.handle >>> 0, 0);
  out.writeUInt32LE(input.isDirectory ? FILE_ATTRIBUTE_DIRECTORY : FILE_ATTRIBUTE_NORMAL, 4);
  const stamp = toFileTime(input.modified.getTime());
  out.writeBigUInt64LE(stamp, 8); // creation
  out.writeBigUInt64LE(stamp, 16); // last access
  out.writeBigUInt64LE(stamp, 24); // last write
  out.writeUInt32LE(Math.floor(input.size / 0x100000000), 32);
  out.writeUInt32LE(input.size % 0x100000000, 36);
  Buffer.from(input.name, 'latin1').copy(out, NAME_OFFSET, 0, NAME_LENGTH - 1);
  return out;
}

export function decodeFindRecord(data: Buffer): FindRecordInput {
  return {
    handle: data.readUInt32LE(0),
    isDirectory: (data.readUInt32LE(4) & FILE_ATTRIBUTE_DIRECTORY) !== 0,
    size: data.readUInt32LE(32) * 0x100000000 + data.readUInt32LE(36),
    modified: new Date(Number((data.readBigUInt64LE(24) - 116444736000000000n) / 10000n)),
    name: decodeFileName(data.subarray(NAME_OFFSET, NAME_OFFSET + NAME_LENGTH)),
  };
}
