// The memory areas of a program: the data area, then the located areas (%M flags, %I inputs, %Q
// outputs) that `AT %MB0`-style symbols live in. Each located area is as large as its symbols need
// (rounded up to 8 bytes); ADS serves each under its own index groups.
import { AppError } from '../../errors.ts';
import type { IecLocation, LocatedArea, PlcType } from '../../plc/index.ts';
import { alignUp, alignmentOf, maxTypeSize } from '../../plc/index.ts';

export type AreaName = 'data' | LocatedArea;

export interface MemoryArea {
  name: AreaName;
  /** Where the area starts in the program's memory image. */
  offset: number;
  size: number;
}

export interface LocatedDecl {
  type: PlcType;
  location: IecLocation;
}

const locatedOrder: readonly LocatedArea[] = ['M', 'I', 'Q'];

/**
 * Lays out the located areas after a data area of `dataSize` bytes: explicit locations first, then
 * `%I*`/`%Q*` symbols after them (aligned, in declaration order). Returns the areas and each
 * declaration's absolute offset, in the order given.
 */
export function layoutAreas(
  dataSize: number,
  located: readonly LocatedDecl[],
): { areas: MemoryArea[]; offsets: number[] } {
  const areas: MemoryArea[] = [{ name: 'data', offset: 0, size: dataSize }];
  const relative = new Array<number>(located.length).fill(0);
  let base = alignUp(dataSize, 8);
  for (const name of locatedOrder) {
    let end = 0;
    located.forEach((d, i) => {
      if (d.location.area !== name || d.location.byteOffset === 'auto') return;
      relative[i] = d.location.byteOffset;
      end = Math.max(end, d.location.byteOffset + d.type.size);
    });
    located.forEach((d, i) => {
      if (d.location.area !== name || d.location.byteOffset !== 'auto') return;
      relative[i] = alignUp(end, alignmentOf(d.type));
      end = (relative[i] ?? 0) + d.type.size;
    });
    const size = alignUp(end, 8);
    if (base + size > maxTypeSize) throw new AppError('VALIDATION_ERROR', 'The program is too large.');
    located.forEach((d, i) => {
      if (d.location.area === name) relative[i] = (relative[i] ?? 0) + base;
    });
    areas.push({ name, offset: base, size });
    base += size;
  }
  return { areas, offsets: relative };
}

/** The area an absolute offset lies in (the data area for anything outside the located ones). */
export function areaAt(areas: readonly MemoryArea[], offset: number): MemoryArea {
  for (const a of areas) if (a.name !== 'data' && offset >= a.offset && offset < a.offset + a.size) return a;
  return areas[0] ?? { name: 'data', offset: 0, size: 0 };
}
