// Raw access to the PLC's memory areas by index group (see protocol/area-groups.ts). Bit groups take a
// bit address (byte * 8 + bit) as offset and carry one byte (0 or 1) per bit, as ADS transfers a BOOL.

import { AdsError, AdsErrorCode } from '../../plc/ads/index.ts';
import type { SimulatedPlc, AreaName, MemoryArea } from '../engine/index.ts';
import { bitGroups, byteGroups } from './protocol/area-groups.ts';

export class MemoryAreas {
  constructor(private readonly plc: SimulatedPlc) {}

  /** True for the byte and bit groups of the areas. */
  serves(ig: number): boolean {
    return byteGroups.has(ig) || bitGroups.has(ig);
  }

  isBitGroup(ig: number): boolean {
    return bitGroups.has(ig);
  }

  /** Absolute offset of `length` bytes at `io` of a byte group: 1795 past the area's end, 1797 across it. */
  range(ig: number, io: number, length: number): number {
    const area = this.#area(byteGroups.get(ig) ?? bitGroups.get(ig));
    if (io >= area.size && length > 0) {
      throw new AdsError(AdsErrorCode.InvalidIndexOffset, `Offset ${io} is outside the ${describe(area)}`);
    }
    if (io + length > area.size) {
      throw new AdsError(AdsErrorCode.InvalidSize, `${length} bytes at ${io} exceed the ${describe(area)}`);
    }
    return area.offset + io;
  }

  read(ig: number, io: number, length: number): Buffer {
    if (!bitGroups.has(ig)) {
      const at = this.range(ig, io, length);
      return Buffer.from(this.plc.memory.subarray(at, at + length));
    }
    const out = Buffer.alloc(length);
    for (let i = 0; i < length; i++) {
      const bit = io + i;
      const at = this.range(ig, bit >>> 3, 1);
      out[i] = ((this.plc.memory[at] ?? 0) >> (bit & 7)) & 1;
    }
    return out;
  }

  write(ig: number, io: number, data: Buffer): void {
    if (!bitGroups.has(ig)) {
      this.plc.writeRaw(this.range(ig, io, data.length), data);
      return;
    }
    // Check the whole range first: a write is all or nothing.
    if (data.length > 0) this.range(ig, (io + data.length - 1) >>> 3, 1);
    for (let i = 0; i < data.length; i++) {
      const bit = io + i;
      const at = this.range(ig, bit >>> 3, 1);
      const current = this.plc.memory[at] ?? 0;
      const next = (data[i] ?? 0) !== 0 ? current | (1 << (bit & 7)) : current & ~(1 << (bit & 7));
      this.plc.writeRaw(at, Buffer.from([next]));
    }
  }

  #area(name: AreaName | undefined): MemoryArea {
    const area = this.plc.program.areas.find((a) => a.name === name);
    if (!area) throw new AdsError(AdsErrorCode.ServiceNotSupported, 'Index group not served');
    return area;
  }
}

function describe(area: MemoryArea): string {
  return area.name === 'data' ? 'data area' : `%${area.name} area (${area.size} bytes)`;
}
