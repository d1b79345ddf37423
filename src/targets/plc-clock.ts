// DATE and DT values as the PLC's clock means them (PlcTargets.<id>.PlcClock), applied the same way by both
// drivers at the port: the codec reads and writes the clock's fields as if they were UTC; this module says
// what those fields are. Utc: UTC (ISO with Z). Local: the gateway's local time (ISO with its offset).
// Unspecified: no zone (ISO without designator; written fields taken as given).
import type { PlcType, PlcValue } from '../plc/index.ts';

export type PlcClock = 'Utc' | 'Local' | 'Unspecified';

const holdsDates = new WeakMap<PlcType, boolean>();

function hasDates(type: PlcType): boolean {
  if (type.kind === 'primitive') return type.name === 'DATE' || type.name === 'DT';
  if (type.kind !== 'struct' && type.kind !== 'array') return false;
  let known = holdsDates.get(type);
  if (known === undefined) {
    known = type.kind === 'array' ? hasDates(type.element) : type.members.some((m) => hasDates(m.type));
    holdsDates.set(type, known);
  }
  return known;
}

/** A value as the codec decoded it (clock fields written as UTC) -> as the port answers it. */
export function fromPlcClock(type: PlcType, value: PlcValue, clock: PlcClock): PlcValue {
  if (clock === 'Utc' || !hasDates(type)) return value;
  return walk(type, value, (v) => (typeof v === 'string' ? shownAs(v, clock) : v)) as PlcValue;
}

/** A value as a caller sent it -> the clock's fields as the codec takes them (zone-less ISO = fields). */
export function toPlcClock(type: PlcType, value: unknown, clock: PlcClock): unknown {
  if (clock !== 'Local' || !hasDates(type)) return value;
  return walk(type, value, (v) => (typeof v === 'string' ? localFields(v) : v));
}

function walk(type: PlcType, value: unknown, leaf: (v: unknown) => unknown): unknown {
  if (type.kind === 'primitive') return type.name === 'DATE' || type.name === 'DT' ? leaf(value) : value;
  if (type.kind === 'array' && Array.isArray(value)) return value.map((v) => walkElement(type, v, leaf));
  if (type.kind === 'struct' && typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(value)) {
      const m = type.members.find((x) => x.name.toUpperCase() === key.toUpperCase());
      out[key] = m ? walk(m.type, v, leaf) : v;
    }
    return out;
  }
  return value;
}

/** Multi-dimensional arrays nest one JS array per dimension. */
function walkElement(
  type: PlcType & { kind: 'array' },
  value: unknown,
  leaf: (v: unknown) => unknown,
): unknown {
  if (Array.isArray(value) && type.dimensions.length > 1 && type.element.kind !== 'array') {
    return value.map((v) => walkElement(type, v, leaf));
  }
  return walk(type.element, value, leaf);
}

const fieldsPattern = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})\.000Z$/;

function shownAs(decoded: string, clock: PlcClock): string {
  const m = fieldsPattern.exec(decoded);
  if (!m) return decoded;
  if (clock === 'Unspecified') return decoded.slice(0, -1);
  const [y, mo, d, h, mi, s] = m.slice(1).map(Number) as [number, number, number, number, number, number];
  const local = new Date(y, mo - 1, d, h, mi, s);
  const offset = -local.getTimezoneOffset();
  const sign = offset < 0 ? '-' : '+';
  const abs = Math.abs(offset);
  return `${decoded.slice(0, -1)}${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

const zoned = /(?:[Zz]|[+-]\d{2}:?\d{2})$/;

/** An instant with a zone becomes the local clock's fields; zone-less text already is them. */
function localFields(text: string): string {
  const trimmed = text.trim();
  if (!/T|t| /.test(trimmed) || !zoned.test(trimmed)) return text;
  const ms = Date.parse(trimmed);
  if (Number.isNaN(ms)) return text;
  const t = new Date(ms);
  if (t.getMilliseconds() !== 0) return text;
  return (
    `${String(t.getFullYear()).padStart(4, '0')}-${pad(t.getMonth() + 1)}-${pad(t.getDate())}` +
    `T${pad(t.getHours())}:${pad(t.getMinutes())}:${pad(t.getSeconds())}`
  );
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}
