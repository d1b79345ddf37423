// Successive readings of one symbol decoded against the previous reading: a struct member or array element
// whose bytes did not change keeps its previous value, the same object. A 1000-slot array with two changed
// slots costs two slot decodes, and a consumer can tell an unchanged element by identity. Values are shared
// between readings, so consumers treat them as read-only (JSON encoders do).
import { decode } from './codec.ts';
import { arrayStrides } from './memory-layout.ts';
import type { ArrayType, PlcType, PlcValue } from './types.ts';

export class IncrementalDecoder {
  #last: { type: PlcType; data: Buffer; value: PlcValue } | undefined;

  /** Decodes `data` (at least `type.size` bytes), which is kept until the next call: the caller must not reuse it. */
  decode(type: PlcType, data: Buffer): PlcValue {
    const last = this.#last;
    // A retyped symbol (a download) shares nothing with its old value.
    const value =
      last !== undefined && last.type === type
        ? decodeChanged(type, data, last.data, 0, last.value)
        : decode(type, data, 0);
    this.#last = { type, data, value };
    return value;
  }
}

const sameBytes = (a: Buffer, b: Buffer, offset: number, size: number): boolean =>
  a.compare(b, offset, offset + size, offset, offset + size) === 0;

function decodeChanged(type: PlcType, data: Buffer, old: Buffer, offset: number, value: PlcValue): PlcValue {
  // A scalar decodes as cheaply as its bytes compare.
  if (type.kind === 'primitive' || type.kind === 'enum') return decode(type, data, offset);
  if (sameBytes(data, old, offset, type.size)) return value;
  if (type.kind === 'struct') {
    const before = value as { readonly [member: string]: PlcValue };
    const out: { [member: string]: PlcValue } = {};
    for (const m of type.members) {
      const previous = before[m.name];
      out[m.name] =
        previous === undefined
          ? decode(m.type, data, offset + m.offset)
          : decodeChanged(m.type, data, old, offset + m.offset, previous);
    }
    return out;
  }
  if (type.kind === 'array') return decodeArray(type, arrayStrides(type), 0, data, old, offset, value);
  return decode(type, data, offset);
}

function decodeArray(
  type: ArrayType,
  strides: readonly number[],
  dim: number,
  data: Buffer,
  old: Buffer,
  offset: number,
  value: PlcValue,
): PlcValue[] {
  const d = type.dimensions[dim];
  const before = value as readonly PlcValue[];
  const stride = strides[dim] ?? type.element.size;
  if (!d) return [];
  const last = dim === type.dimensions.length - 1;
  const element = last ? type.element : undefined;
  // Unchanged elements are found by comparing halves, so a few changes cost a few compares, not one each.
  const out = before.slice();
  const changed: number[] = [];
  findChanged(data, old, offset, stride, 0, d.length, changed);
  for (const i of changed) {
    const at = offset + i * stride;
    const previous = before[i] as PlcValue;
    out[i] = element
      ? decodeChanged(element, data, old, at, previous)
      : decodeArray(type, strides, dim + 1, data, old, at, previous);
  }
  return out;
}

/** Pushes onto `out` the indices in [from, to) of the elements of `stride` bytes whose bytes differ. */
function findChanged(
  data: Buffer,
  old: Buffer,
  offset: number,
  stride: number,
  from: number,
  to: number,
  out: number[],
): void {
  if (sameBytes(data, old, offset + from * stride, (to - from) * stride)) return;
  if (to - from === 1) {
    out.push(from);
    return;
  }
  const mid = (from + to) >>> 1;
  findChanged(data, old, offset, stride, from, mid, out);
  findChanged(data, old, offset, stride, mid, to, out);
}
