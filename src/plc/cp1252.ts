// Windows-1252, the code page of TwinCAT STRING: byte <-> character tables.

/** Characters of bytes 0x80..0x9F; the five bytes Windows leaves undefined map to the same C1 code. */
const high = [
  0x20ac, 0x81, 0x201a, 0x0192, 0x201e, 0x2026, 0x2020, 0x2021, 0x02c6, 0x2030, 0x0160, 0x2039, 0x0152, 0x8d,
  0x017d, 0x8f, 0x90, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x02dc, 0x2122, 0x0161, 0x203a,
  0x0153, 0x9d, 0x017e, 0x0178,
];

const byteToChar: string[] = [];
const charToByte = new Map<number, number>();
for (let b = 0; b < 256; b++) {
  const code = b >= 0x80 && b < 0xa0 ? (high[b - 0x80] ?? b) : b;
  byteToChar.push(String.fromCharCode(code));
  charToByte.set(code, b);
}

/** Decodes bytes up to the first NUL (or the end). */
export function decodeCp1252(buf: Buffer, start: number, end: number): string {
  let out = '';
  for (let i = start; i < end; i++) {
    const b = buf[i] ?? 0;
    if (b === 0) break;
    if (b < 0x80) out += String.fromCharCode(b);
    else out += byteToChar[b];
  }
  return out;
}

/** Byte of a character, or undefined when cp1252 cannot represent it. */
export function cp1252Byte(codePoint: number): number | undefined {
  return codePoint < 0x80 ? codePoint : charToByte.get(codePoint);
}
