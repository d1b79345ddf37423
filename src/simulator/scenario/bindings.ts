// Absolute memory offsets of the gvl-hmi/1 symbols in a built program, and which revision areas a byte
// range belongs to (to attribute external writes). Computed once so the scan loop does no path lookups.
import type { Program } from '../engine/index.ts';
import { axisFields, machineFields, Rev, revisionMembers, type FieldSpec } from './hmi-layout.ts';

interface Span {
  start: number;
  end: number;
}

interface FieldOffsets {
  /** Offset relative to the struct start. */
  readonly offset: number;
  readonly size: number;
  readonly revs: number;
}

export interface HmiBindings {
  header: Span;
  machine: Span & { fields: Readonly<Record<string, FieldOffsets>> };
  axes: Span & { stride: number; fields: Readonly<Record<string, FieldOffsets>> };
  parts: Span & { stride: number };
  revisions: Span & { members: readonly number[] };
  alarms: Span & { stride: number; slots: number; fields: Readonly<Record<string, FieldOffsets>> };
}

function span(program: Program, path: string): Span {
  const r = program.resolve(path);
  return { start: r.offset, end: r.offset + r.size };
}

function fieldOffsets(
  program: Program,
  elementPath: string,
  fields: ReadonlyArray<Pick<FieldSpec, 'name' | 'revs'>>,
): Record<string, FieldOffsets> {
  const base = program.resolve(elementPath).offset;
  const out: Record<string, FieldOffsets> = {};
  for (const f of fields) {
    const r = program.resolve(`${elementPath}.${f.name}`);
    out[f.name] = { offset: r.offset - base, size: r.size, revs: f.revs };
  }
  return out;
}

const entryFields = [
  'sKey',
  'Id',
  'ErrorCode',
  'ErrorType',
  'IsActive',
  'NeedsAck',
  'IsAcked',
  'PLCTimeStamp',
].map((name) => ({ name, revs: Rev.alarms }));

export function bindHmi(program: Program, root: string, alarmSlots: number): HmiBindings {
  const axes = span(program, `${root}.aAxes`);
  const first = span(program, `${root}.aAxes[1]`);
  const parts = span(program, `${root}.aParts`);
  const part = span(program, `${root}.aParts[1]`);
  const alarms = span(program, `${root}.fbAlarms.aAlarms`);
  const entry = span(program, `${root}.fbAlarms.aAlarms[1]`);
  return {
    header: span(program, `${root}.stHeader`),
    machine: {
      ...span(program, `${root}.stMachine`),
      fields: fieldOffsets(program, `${root}.stMachine`, machineFields),
    },
    axes: {
      ...axes,
      stride: first.end - first.start,
      fields: fieldOffsets(program, `${root}.aAxes[1]`, axisFields),
    },
    parts: { ...parts, stride: part.end - part.start },
    revisions: {
      ...span(program, `${root}.stRev`),
      members: revisionMembers.map((m) => program.resolve(`${root}.stRev.${m}`).offset),
    },
    alarms: {
      ...alarms,
      stride: entry.end - entry.start,
      slots: alarmSlots,
      fields: fieldOffsets(program, `${root}.fbAlarms.aAlarms[1]`, entryFields),
    },
  };
}

const overlaps = (a: number, b: number, s: Span) => a < s.end && b > s.start;

/** Revision areas whose members overlap [offset, offset + size), for memory written from outside. */
export function areasTouched(b: HmiBindings, offset: number, size: number): number {
  const end = offset + size;
  let mask = 0;
  if (overlaps(offset, end, b.header)) mask |= Rev.header;
  if (overlaps(offset, end, b.machine)) mask |= fieldRevs(b.machine.fields, b.machine.start, offset, end);
  if (overlaps(offset, end, b.parts)) mask |= Rev.parts;
  if (overlaps(offset, end, b.alarms)) mask |= Rev.alarms;
  if (overlaps(offset, end, b.axes)) {
    const from = Math.max(0, Math.floor((offset - b.axes.start) / b.axes.stride));
    const to = Math.min(
      Math.ceil((end - b.axes.start) / b.axes.stride),
      (b.axes.end - b.axes.start) / b.axes.stride,
    );
    for (let i = from; i < to && mask !== (mask | Rev.axesConfig | Rev.axesMotion); i++) {
      mask |= fieldRevs(b.axes.fields, b.axes.start + i * b.axes.stride, offset, end);
    }
  }
  return mask;
}

function fieldRevs(
  fields: Readonly<Record<string, FieldOffsets>>,
  base: number,
  start: number,
  end: number,
): number {
  let mask = 0;
  for (const f of Object.values(fields)) {
    if (start < base + f.offset + f.size && end > base + f.offset) mask |= f.revs;
  }
  return mask;
}
