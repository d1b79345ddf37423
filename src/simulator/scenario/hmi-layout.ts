// The gvl-hmi/1 symbol layout as pure tables: member names, PLC types and the revision areas they feed.
// Shared by scenario validation (script paths), program declaration and the scan runtime.

/** Revision areas, one bit each; the order is the member order of `stRev`. */
export const Rev = {
  header: 1 << 0,
  machine: 1 << 1,
  mode: 1 << 2,
  speed: 1 << 3,
  recipe: 1 << 4,
  axesConfig: 1 << 5,
  axesMotion: 1 << 6,
  parts: 1 << 7,
  alarms: 1 << 8,
} as const;

/** `stRev` members in declaration order; index i counts changes of the area with bit `1 << i`. */
export const revisionMembers = [
  'nHeader',
  'nMachine',
  'nMode',
  'nSpeed',
  'nRecipe',
  'nAxesConfig',
  'nAxesMotion',
  'nParts',
  'nAlarms',
] as const;

/** A leaf PLC type of the layout: an elementary name or `STRING(n)`. */
export type LeafTypeName =
  'BOOL' | 'INT' | 'UINT' | 'DINT' | 'UDINT' | 'REAL' | 'LREAL' | `STRING(${number})`;

export interface FieldSpec {
  readonly name: string;
  readonly type: LeafTypeName;
  /** Revision areas a change of this member advances. */
  readonly revs: number;
}

export const typeNames = {
  header: 'ST_HmiHeader',
  machine: 'ST_HmiMachine',
  axis: 'ST_HmiAxis',
  revisions: 'ST_HmiRevisions',
  alarms: 'FB_HmiAlarms',
  errorEntry: 'ST_ErrorEntry',
  errorType: 'E_ErrorType',
  timestamp: 'TIMESTRUCT',
} as const;

export const contractId = 'gvl-hmi/1';
export const partSlots = 8;
export const minAlarmSlots = 16;

/** Members in declaration order, each feeding the revision areas `revs`. */
function area(revs: number, members: Readonly<Record<string, LeafTypeName>>): FieldSpec[] {
  return Object.entries(members).map(([name, type]) => ({ name, type, revs }));
}

export const headerFields: readonly FieldSpec[] = area(Rev.header, {
  sContract: 'STRING(15)',
  nAxisCount: 'UINT',
  nPartCount: 'UINT',
  nMaxAxes: 'UINT',
  nScanMs: 'UINT',
});

export const machineFields: readonly FieldSpec[] = [
  ...area(Rev.machine, { nState: 'INT' }),
  ...area(Rev.machine | Rev.mode, { nMode: 'INT' }),
  ...area(Rev.machine | Rev.speed, { rSpeed: 'REAL', rSpeedSetpoint: 'REAL' }),
  ...area(Rev.machine | Rev.recipe, { nActiveRecipeId: 'UDINT', nActiveRecipeVersion: 'UDINT' }),
];

export const axisFields: readonly FieldSpec[] = [
  ...area(Rev.axesConfig, { sId: 'STRING(15)', sComponent: 'STRING(31)', sUnit: 'STRING(7)' }),
  ...area(Rev.axesMotion, { rPosition: 'LREAL', rTargetPos: 'LREAL', rVelocity: 'LREAL' }),
  ...area(Rev.axesConfig, { rMin: 'LREAL', rMax: 'LREAL', rVmax: 'LREAL', rAmax: 'LREAL' }),
  ...area(Rev.axesMotion, { bEnabled: 'BOOL', bHomed: 'BOOL', bMoving: 'BOOL' }),
];

const partType: LeafTypeName = 'STRING(15)';

export {
  errorTypeMembers,
  timeStructMembers as timestampFields,
  type ErrorTypeName,
} from '../../plc/index.ts';

function stringLength(type: LeafTypeName): number | null {
  const m = /^STRING\((\d+)\)$/.exec(type);
  return m ? Number(m[1]) : null;
}

/** Where a script `set` lands: the member's field spec and, for arrays, its 1-based index. */
export interface ScriptTarget {
  readonly area: 'stMachine' | 'aAxes' | 'aParts';
  readonly field: FieldSpec;
  readonly index: number;
}

/**
 * Resolves a script path relative to root (`stMachine.nState`, `aAxes[2].rTargetPos`, `aParts[1]`).
 * Header, revisions and alarm slots are runtime-owned and not scriptable (alarms use raise/clear).
 */
export function resolveScriptPath(path: string, maxAxes: number): ScriptTarget | string {
  const machine = /^stMachine\.(\w+)$/.exec(path);
  if (machine) {
    const field = machineFields.find((f) => f.name === machine[1]);
    return field ? { area: 'stMachine', field, index: 0 } : `stMachine has no member ${machine[1]}`;
  }
  const axis = /^aAxes\[(\d+)\]\.(\w+)$/.exec(path);
  if (axis) {
    const index = Number(axis[1]);
    if (index < 1 || index > maxAxes) return `axis index must be 1..${maxAxes}`;
    const field = axisFields.find((f) => f.name === axis[2]);
    return field ? { area: 'aAxes', field, index } : `ST_HmiAxis has no member ${axis[2]}`;
  }
  const part = /^aParts\[(\d+)\]$/.exec(path);
  if (part) {
    const index = Number(part[1]);
    if (index < 1 || index > partSlots) return `part index must be 1..${partSlots}`;
    return { area: 'aParts', field: { name: '', type: partType, revs: Rev.parts }, index };
  }
  return 'must be stMachine.<member>, aAxes[<i>].<member> or aParts[<i>]';
}

const intRanges: Readonly<Record<string, readonly [number, number]>> = {
  INT: [-32768, 32767],
  UINT: [0, 65535],
  DINT: [-2147483648, 2147483647],
  UDINT: [0, 4294967295],
};

const realMax = 3.4028234663852886e38;

/** Checks that a scenario value fits a leaf type; returns the problem or null. */
export function checkLeafValue(type: LeafTypeName, value: unknown): string | null {
  if (type === 'BOOL') return typeof value === 'boolean' ? null : 'must be a boolean for BOOL';
  const len = stringLength(type);
  if (len !== null) {
    if (typeof value !== 'string') return `must be a string for ${type}`;
    if (value.length > len) return `must be at most ${len} characters for ${type}`;
    return latin1.test(value) ? null : 'must contain only printable Latin-1 characters';
  }
  if (typeof value !== 'number' || !Number.isFinite(value)) return `must be a finite number for ${type}`;
  const range = intRanges[type];
  if (range) {
    if (!Number.isInteger(value) || value < range[0] || value > range[1]) {
      return `must be an integer ${range[0]}..${range[1]} for ${type}`;
    }
    return null;
  }
  if (type === 'REAL' && Math.abs(value) > realMax) return 'must fit a REAL';
  return null;
}

/** Text that a STRING can hold faithfully: printable ASCII and Latin-1 (°, µ, ä ...). */
const latin1 = /^[\x20-\x7E\xA0-\xFF]*$/;
