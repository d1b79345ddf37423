// A write touches only the bytes of what it names: the members a partial struct value gives, each array
// element, whole leaves. Nothing is read first, so a member the PLC changes meanwhile is never put back stale.
import {
  arrayStrides,
  encode,
  findMember,
  type ArrayType,
  type NonMemberSink,
  type PlcType,
} from '../../plc/index.ts';
import { checkDecodable } from './undecodable.ts';

/** Bytes to write at `offset` within the symbol. */
export interface ByteRange {
  offset: number;
  bytes: Buffer;
}

/**
 * Validates `value` against `type` in full (TYPE_MISMATCH before anything reaches the PLC) and answers the
 * byte ranges it covers, adjacent ranges joined, in ascending order. Enum values that are no member go to
 * `onNonMember`.
 */
export function writeRanges(
  type: PlcType,
  value: unknown,
  path: string,
  onNonMember?: NonMemberSink,
): ByteRange[] {
  checkDecodable(type, path);
  const encoded = encode(type, value, path, onNonMember);
  const spans: Array<[number, number]> = [];
  collect(type, value, 0, spans);
  spans.sort((a, b) => a[0] - b[0]);
  const joined: Array<[number, number]> = [];
  for (const [from, to] of spans) {
    const last = joined[joined.length - 1];
    if (last && from <= last[1]) last[1] = Math.max(last[1], to);
    else joined.push([from, to]);
  }
  return joined.map(([from, to]) => ({ offset: from, bytes: encoded.subarray(from, to) }));
}

function collect(type: PlcType, value: unknown, offset: number, out: Array<[number, number]>): void {
  if (type.kind === 'struct' && typeof value === 'object' && value !== null && !Array.isArray(value)) {
    for (const [key, member] of Object.entries(value)) {
      const m = findMember(type, key);
      if (m) collect(m.type, member, offset + m.offset, out);
    }
    return;
  }
  if (type.kind === 'array' && Array.isArray(value)) {
    collectArray(type, arrayStrides(type), 0, value, offset, out);
    return;
  }
  out.push([offset, offset + type.size]);
}

function collectArray(
  type: ArrayType,
  strides: readonly number[],
  dim: number,
  value: readonly unknown[],
  offset: number,
  out: Array<[number, number]>,
): void {
  const stride = strides[dim] ?? type.element.size;
  const last = dim === type.dimensions.length - 1;
  value.forEach((item, i) => {
    const at = offset + i * stride;
    if (last) collect(type.element, item, at, out);
    else if (Array.isArray(item)) collectArray(type, strides, dim + 1, item, at, out);
  });
}
