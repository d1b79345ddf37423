// IEC 61131-3 direct addresses as TwinCAT 3 writes them after AT: %MB12, %IW2, %QD1, %I*, %Q*.
// Sizes scale the number as CODESYS V3 does: %MW3 is byte 6, %MD2 byte 8.
import { AppError } from '../errors.ts';

/** The PLC's located areas: flags (%M), inputs (%I) and outputs (%Q). */
export type LocatedArea = 'M' | 'I' | 'Q';

export type IecLocation =
  | { area: LocatedArea; byteOffset: number }
  /** `%I*` / `%Q*`: placed by the runtime after the explicitly located symbols of the area. */
  | { area: LocatedArea; byteOffset: 'auto' };

const unitBytes: Readonly<Record<string, number>> = { B: 1, W: 2, D: 4, L: 8 };
const pattern = /^%([MIQ])(?:([BWDL])(\d{1,9})|(\*))$/i;

/** Parses a byte location; VALIDATION_ERROR for bit locations (%IX0.1) and anything else. */
export function parseIecLocation(text: string): IecLocation {
  const trimmed = text.trim();
  if (/^%[MIQ]X/i.test(trimmed)) {
    throw new AppError(
      'VALIDATION_ERROR',
      `Location '${text}' addresses a bit; use a byte location such as %IB0 (bits are served through 0xF021/0xF031/0x4021).`,
    );
  }
  const m = pattern.exec(trimmed);
  if (!m) {
    throw new AppError(
      'VALIDATION_ERROR',
      `Location '${text}' is not %M, %I or %Q with B, W, D or L and a number (or %I* / %Q*).`,
    );
  }
  const area = (m[1] ?? 'M').toUpperCase() as LocatedArea;
  if (m[4] !== undefined) {
    if (area === 'M')
      throw new AppError('VALIDATION_ERROR', `Location '${text}': %M* is not an IEC location.`);
    return { area, byteOffset: 'auto' };
  }
  const unit = unitBytes[(m[2] ?? 'B').toUpperCase()] ?? 1;
  return { area, byteOffset: Number(m[3]) * unit };
}
