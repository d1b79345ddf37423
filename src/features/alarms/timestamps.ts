// PLCTimeStamp (TIMESTRUCT) -> the alarm's time fields: a zeroed structure or one that is not a real date binds
// as unset, so no placeholder date is ever reported; the declared clock decides the offset.
import type { AlarmTime, PlcClock } from './reading.ts';

export interface TimeStruct {
  readonly wYear: number;
  readonly wMonth: number;
  readonly wDayOfWeek: number;
  readonly wDay: number;
  readonly wHour: number;
  readonly wMinute: number;
  readonly wSecond: number;
  readonly wMilliseconds: number;
}

/** `zero`: the PLC gave no time (normal); `invalid`: not a real date (worth a log line). */
export type BoundTime = AlarmTime | 'zero' | 'invalid';

// A TIMESTRUCT comes from a FILETIME, which starts in 1601; four digits keep ISO 8601 plain.
const firstYear = 1601;
const lastYear = 9999;

const monthDays = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Gregorian calendar; `month` 1-12. */
function daysInMonth(year: number, month: number): number {
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  return month === 2 && leap ? 29 : (monthDays[month - 1] ?? 0);
}

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

export function bindTime(t: TimeStruct, clock: PlcClock): BoundTime {
  const { wYear: y, wMonth: mo, wDay: d, wHour: h, wMinute: mi, wSecond: s, wMilliseconds: ms } = t;
  if (y === 0 && mo === 0 && d === 0 && h === 0 && mi === 0 && s === 0 && ms === 0) return 'zero';
  const real =
    y >= firstYear &&
    y <= lastYear &&
    mo >= 1 &&
    mo <= 12 &&
    d >= 1 &&
    d <= daysInMonth(y, mo) &&
    h <= 23 &&
    mi <= 59 &&
    s <= 59 &&
    ms <= 999;
  if (!real) return 'invalid';
  const lastOccurred = `${pad(y, 4)}-${pad(mo)}-${pad(d)}T${pad(h)}:${pad(mi)}:${pad(s)}.${pad(ms, 3)}`;
  return { lastOccurred, plcTimestamp: lastOccurred + offsetSuffix(t, clock), plcClock: clock };
}

function offsetSuffix(t: TimeStruct, clock: PlcClock): string {
  if (clock === 'Utc') return 'Z';
  if (clock === 'Unspecified') return '';
  // The gateway's own offset at that wall time (daylight saving included).
  const local = new Date(t.wYear, t.wMonth - 1, t.wDay, t.wHour, t.wMinute, t.wSecond, t.wMilliseconds);
  const east = -local.getTimezoneOffset();
  const sign = east >= 0 ? '+' : '-';
  const abs = Math.abs(east);
  return `${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}
