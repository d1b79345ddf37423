// Index groups of the PLC's memory areas and where a symbol's bytes are served: the data area (0x4040),
// flags (%M: 0x4020 bytes, 0x4021 bits), inputs (%I: 0xF020, 0xF021), outputs (%Q: 0xF030, 0xF031).

import { IndexGroup } from '../../../plc/ads/index.ts';
import type { AreaName, MemoryArea } from '../../engine/index.ts';

export const byteGroups: ReadonlyMap<number, AreaName> = new Map([
  [IndexGroup.PlcMemory, 'data'],
  [IndexGroup.PlcFlags, 'M'],
  [IndexGroup.PlcInputs, 'I'],
  [IndexGroup.PlcOutputs, 'Q'],
]);

export const bitGroups: ReadonlyMap<number, AreaName> = new Map([
  [IndexGroup.PlcFlagBits, 'M'],
  [IndexGroup.PlcInputBits, 'I'],
  [IndexGroup.PlcOutputBits, 'Q'],
]);

/** The index group and offset under which ADS serves an absolute memory offset (symbol entries carry them). */
export function locate(
  areas: readonly MemoryArea[],
  offset: number,
): { indexGroup: number; indexOffset: number } {
  for (const a of areas) {
    if (a.name === 'data' || offset < a.offset || offset >= a.offset + a.size) continue;
    for (const [ig, name] of byteGroups) {
      if (name === a.name) return { indexGroup: ig, indexOffset: offset - a.offset };
    }
  }
  return { indexGroup: IndexGroup.PlcMemory, indexOffset: offset };
}
