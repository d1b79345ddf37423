// The TwinCAT system service's file commands (port 10000): numbers, name encoding and the FFILEFIND record.

export const SystemServicePort = 10000;

export const FileGroup = {
  Open: 120,
  Close: 121,
  Read: 122,
  Write: 123,
  Delete: 131,
  Rename: 132,
  Find: 133,
} as const;

export const OpenMode = {
  Read: 0x1,
  Write: 0x2,
  Binary: 0x10,
  EnsureDir: 0x40,
} as const;

/** Standard directory the relative paths are taken from (index offset high word): TwinCAT's BootData. */
export const BootDataDirectory = 3;

export const FILE_CHUNK = 64 * 1024;
const FIND_RECORD_LENGTH = 324;
const NAME_OFFSET = 48;
const NAME_LENGTH = 260;
const ATTRIBUTE_DIRECTORY = 0x10;
const FILETIME_EPOCH_OFFSET = 116444736000000000n;

/** Index offset of FOPEN/FFILEFIND/FDELETE/FRENAME: mode flags plus the standard directory. */
export function fileOffset(mode: number): number {
  return ((BootDataDirectory << 16) | mode) >>> 0;
}

/** A NUL-terminated file name; TwinCAT file names are Windows-1252 (latin1 for the printable range). */
export function fileName(path: string): Buffer {
  return Buffer.from(`${path}\0`, 'latin1');
}

export function renamePayload(from: string, to: string): Buffer {
  return Buffer.concat([fileName(from), fileName(to)]);
}

export interface FindRecord {
  handle: number;
  name: string;
  isDirectory: boolean;
  size: number;
  modified: Date;
}

export function parseFindRecord(data: Buffer): FindRecord | undefined {
  if (data.length < FIND_RECORD_LENGTH) return undefined;
  const end = data.indexOf(0, NAME_OFFSET);
  const nameEnd = end < 0 || end > NAME_OFFSET + NAME_LENGTH ? NAME_OFFSET + NAME_LENGTH : end;
  const written = data.readBigUInt64LE(24);
  return {
    handle: data.readUInt32LE(0),
    isDirectory: (data.readUInt32LE(4) & ATTRIBUTE_DIRECTORY) !== 0,
    size: data.readUInt32LE(32) * 0x100000000 + data.readUInt32LE(36),
    modified: new Date(
      written > FILETIME_EPOCH_OFFSET ? Number((written - FILETIME_EPOCH_OFFSET) / 10000n) : 0,
    ),
    name: data.subarray(NAME_OFFSET, nameEnd).toString('latin1'),
  };
}

export const findRecordLength = FIND_RECORD_LENGTH;
