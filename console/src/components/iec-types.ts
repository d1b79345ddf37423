// How a value of each IEC type is entered: integer ranges, 64-bit integers as decimal strings, text lengths.

export type InputKind =
  | { kind: 'bool' }
  | { kind: 'integer'; min: number; max: number }
  | { kind: 'bigint'; min: bigint; max: bigint }
  | { kind: 'real' }
  | { kind: 'text'; maxLength: number }
  | { kind: 'json' };

const integerRanges: Record<string, [number, number]> = {
  SINT: [-128, 127],
  USINT: [0, 255],
  BYTE: [0, 255],
  INT: [-32768, 32767],
  UINT: [0, 65535],
  WORD: [0, 65535],
  DINT: [-2147483648, 2147483647],
  UDINT: [0, 4294967295],
  DWORD: [0, 4294967295],
  TIME: [0, 4294967295],
  TOD: [0, 86399999],
  TIME_OF_DAY: [0, 86399999],
};

const bigRanges: Record<string, [bigint, bigint]> = {
  LINT: [-(2n ** 63n), 2n ** 63n - 1n],
  ULINT: [0n, 2n ** 64n - 1n],
  LWORD: [0n, 2n ** 64n - 1n],
  LTIME: [0n, 2n ** 64n - 1n],
};

export function inputKindOf(typeName: string): InputKind {
  const upper = typeName.toUpperCase();
  if (upper === 'BOOL') return { kind: 'bool' };
  const range = integerRanges[upper];
  if (range !== undefined) return { kind: 'integer', min: range[0], max: range[1] };
  const big = bigRanges[upper];
  if (big !== undefined) return { kind: 'bigint', min: big[0], max: big[1] };
  if (upper === 'REAL' || upper === 'LREAL') return { kind: 'real' };
  const text = /^W?STRING(?:\((\d+)\))?$/.exec(upper);
  if (text !== null) return { kind: 'text', maxLength: Number(text[1] ?? 80) };
  if (['DATE', 'DT', 'DATE_AND_TIME'].includes(upper)) return { kind: 'text', maxLength: 40 };
  return { kind: 'json' };
}

/** True for the elementary types, whose names never resolve to an enum. */
export function isElementary(typeName: string): boolean {
  return inputKindOf(typeName).kind !== 'json';
}

/** The JSON value to write for what was typed, or a problem to show before anything is sent. */
export function parseInput(kind: InputKind, text: string): { value: unknown } | { problem: string } {
  const trimmed = text.trim();
  switch (kind.kind) {
    case 'bool':
      return { value: trimmed === 'true' };
    case 'integer': {
      if (!/^-?\d+$/.test(trimmed)) return { problem: 'Enter a whole number.' };
      const n = Number(trimmed);
      if (n < kind.min || n > kind.max) return { problem: `Enter a number from ${kind.min} to ${kind.max}.` };
      return { value: n };
    }
    case 'bigint': {
      if (!/^-?\d+$/.test(trimmed)) return { problem: 'Enter a whole number.' };
      const n = BigInt(trimmed);
      if (n < kind.min || n > kind.max) return { problem: `Enter a number from ${kind.min} to ${kind.max}.` };
      return { value: n.toString() };
    }
    case 'real': {
      const n = Number(trimmed);
      if (trimmed === '' || !Number.isFinite(n)) return { problem: 'Enter a number.' };
      return { value: n };
    }
    case 'text':
      if (text.length > kind.maxLength) return { problem: `At most ${kind.maxLength} characters.` };
      return { value: text };
    case 'json':
      try {
        return { value: JSON.parse(text) as unknown };
      } catch {
        return { problem: 'Enter a JSON value.' };
      }
  }
}
