// The system service's file commands (port 10000, index groups IndexGroup.File*): FOPEN mode bits, the
// index offset that selects a standard directory, file names in requests and the 324-byte FFILEFIND record
// (handle, attributes, times, size, name[260] at offset 48). TwinCAT file names are Windows-1252, read
// and written as latin1 (the same bytes for the printable range).

import { bitFlags } from '../bit-flags.ts';
import { fromFileTime, toFileTime } from './constants.ts';
import { AdsError, AdsErrorCode } from './error-codes.ts';

export const FIND_RECORD_LENGTH = 324;
const NAME_OFFSET = 48;
const NAME_LENGTH = 260;
const FILE_ATTRIBUTE_DIRECTORY = 0x10;
const FILE_ATTRIBUTE_NORMAL = 0x80;

/**
 * FOPEN mode bits (index offset, low word) from bit 0: Read 0x1, Write 0x2, Append 0x4, Plus 0x8, Binary 0x10,
 * Text 0x20, EnsureDir 0x40; the high word selects a standard directory.
 */
export const FileOpenMode = bitFlags(['Read', 'Write', 'Append', 'Plus', 'Binary', 'Text', 'EnsureDir']);

/** The standard directory relative paths are taken from (index offset high word): TwinCAT's BootData. */
const BootDataDirectory = 3;

/** Index offset of FOPEN/FFILEFIND/FDELETE/FRENAME: mode flags plus the standard directory. */
export function fileOffset(mode: number): number {
  return ((BootDataDirectory << 16) | mode) >>> 0;
}

/** A file name as requests carry it: NUL-terminated. */
export function encodeFileName(path: string): Buffer {
  return Buffer.from(`${path}\0`, 'latin1');
}

/** FRENAME's payload: the old and the new name, each NUL-terminated. */
export function encodeFileNamePair(from: string, to: string): Buffer {
  return Buffer.concat([encodeFileName(from), encodeFileName(to)]);
}

/** A file name as clients send it: bytes up to the first NUL (or all of them). */
export function decodeFileName(data: Buffer): string {
  const end = data.indexOf(0);
  return data.subarray(0, end < 0 ? data.length : end).toString('latin1');
}

export function decodeFileNamePair(data: Buffer): [string, string] {
  const first = data.indexOf(0);
  if (first < 0) throw new AdsError(AdsErrorCode.InvalidParameter, 'FRENAME needs two NUL-terminated names');
  return [decodeFileName(data.subarray(0, first)), decodeFileName(data.subarray(first + 1))];
}

export interface FindRecord {
  handle: number;
  name: string;
  isDirectory: boolean;
  size: number;
  modified: Date;
}

export function encodeFindRecord(input: FindRecord): Buffer {
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

/** The record, or undefined when the answer is too short to be one (the end of a listing). */
export function decodeFindRecord(data: Buffer): FindRecord | undefined {
  if (data.length < FIND_RECORD_LENGTH) return undefined;
  const written = data.readBigUInt64LE(24);
  return {
    handle: data.readUInt32LE(0),
    isDirectory: (data.readUInt32LE(4) & FILE_ATTRIBUTE_DIRECTORY) !== 0,
    size: data.readUInt32LE(32) * 0x100000000 + data.readUInt32LE(36),
    modified: new Date(written > toFileTime(0) ? fromFileTime(written) : 0),
    name: decodeFileName(data.subarray(NAME_OFFSET, NAME_OFFSET + NAME_LENGTH)),
  };
}
