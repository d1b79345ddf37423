// Declares the gvl-hmi/1 program under `root` with the engine's ProgramBuilder and computes the seed
// bytes a reset writes back. PLC types come from the layout tables, never from the scenario.
import { encode, type MethodImpl, type PlcType, type ProgramBuilder } from '../engine/index.ts';
import {
  axisFields,
  contractId,
  errorTypeMembers,
  headerFields,
  machineFields,
  minAlarmSlots,
  partSlots,
  revisionMembers,
  timestampFields,
  typeNames,
  type FieldSpec,
} from './hmi-layout.ts';
import type { ScenarioDefinition } from './schema.ts';
import { errorEntryMembers } from '../../plc/index.ts';

/** Bytes written to `offset` on load and on every reset; resolved to offsets after build. */
interface SeedBlock {
  symbol: string;
  type: PlcType;
  bytes: Buffer;
}

export interface HmiDeclaration {
  root: string;
  alarmSlots: number;
  /** Seeds of every scenario symbol except `stRev`, whose counters survive a reset. */
  seeds: readonly SeedBlock[];
  /** The `stRev` symbol; its counters start at 1 (the seed counts as the first change). */
  revisionsSymbol: string;
}

const members = (fields: readonly FieldSpec[]) => fields.map((f) => ({ name: f.name, type: f.type }));

function axisSeed(scenario: ScenarioDefinition): Array<Record<string, unknown>> {
  return scenario.axes.map((a) => ({
    sId: a.id,
    sComponent: a.component ?? '',
    sUnit: a.unit,
    rPosition: a.start.position,
    rTargetPos: a.start.targetPos ?? a.start.position,
    rVelocity: 0,
    rMin: a.limits.min,
    rMax: a.limits.max,
    rVmax: a.limits.vmax,
    rAmax: a.limits.amax,
    bEnabled: a.start.enabled,
    bHomed: a.start.homed,
    bMoving: false,
  }));
}

/** Declares types and symbols; `acknowledge` implements `fbAlarms#AcknowledgeAlarm`. */
export function declareHmiProgram(
  builder: ProgramBuilder,
  scenario: ScenarioDefinition,
  acknowledge: MethodImpl,
): HmiDeclaration {
  const { root } = scenario;
  const alarmSlots = Math.max(minAlarmSlots, scenario.alarms.length);
  // The host program may already publish E_ErrorType (same members); reuse it rather than redeclare.
  if (!sameEnum(builder.types.lookup(typeNames.errorType), errorTypeMembers)) {
    builder.enum(typeNames.errorType, errorTypeMembers, 'INT');
  }
  builder.struct(
    typeNames.timestamp,
    timestampFields.map((name) => ({ name, type: 'WORD' })),
  );
  builder.struct(typeNames.errorEntry, errorEntryMembers);
  builder.struct(typeNames.header, members(headerFields));
  builder.struct(typeNames.machine, members(machineFields));
  builder.struct(typeNames.axis, members(axisFields));
  builder.struct(
    typeNames.revisions,
    revisionMembers.map((name) => ({ name, type: 'UDINT' })),
  );
  builder.functionBlock(
    typeNames.alarms,
    [{ name: 'aAlarms', type: `ARRAY [1..${alarmSlots}] OF ${typeNames.errorEntry}` }],
    [
      {
        name: 'AcknowledgeAlarm',
        returnType: 'BOOL',
        parameters: [{ name: 'sKey', type: 'STRING' }],
        comment: 'Acknowledges the outstanding alarm with this key; FALSE when none awaits acknowledgement.',
        implementation: acknowledge,
      },
    ],
  );

  const seedValues: Array<[string, string, unknown]> = [
    [
      'stHeader',
      typeNames.header,
      {
        sContract: contractId,
        nAxisCount: scenario.axes.length,
        nPartCount: scenario.parts.length,
        nMaxAxes: scenario.maxAxes,
        nScanMs: scenario.scanMs,
      },
    ],
    [
      'stMachine',
      typeNames.machine,
      {
        nState: scenario.machine.state,
        nMode: scenario.machine.mode,
        rSpeed: scenario.machine.speed,
        rSpeedSetpoint: scenario.machine.speedSetpoint,
        nActiveRecipeId: scenario.machine.activeRecipeId,
        nActiveRecipeVersion: scenario.machine.activeRecipeVersion,
      },
    ],
    ['aAxes', `ARRAY [1..${scenario.maxAxes}] OF ${typeNames.axis}`, axisSeed(scenario)],
    ['aParts', `ARRAY [1..${partSlots}] OF STRING(15)`, scenario.parts],
  ];
  const seeds: SeedBlock[] = [];
  for (const [name, typeName, value] of seedValues) {
    const symbol = `${root}.${name}`;
    const type = builder.type(typeName);
    const padded = Array.isArray(value) ? padArray(type, value) : value;
    const bytes = encode(type, padded, symbol);
    builder.symbol(symbol, type, { value: padded });
    seeds.push({ symbol, type, bytes });
  }
  const revisionsSymbol = `${root}.stRev`;
  builder.symbol(revisionsSymbol, typeNames.revisions, {
    value: Object.fromEntries(revisionMembers.map((m) => [m, 1])),
    comment: 'Change counters per area; they only ever advance',
  });
  const alarmsSymbol = `${root}.fbAlarms`;
  const alarmsType = builder.type(typeNames.alarms);
  builder.symbol(alarmsSymbol, alarmsType);
  seeds.push({ symbol: alarmsSymbol, type: alarmsType, bytes: Buffer.alloc(alarmsType.size) });
  return { root, alarmSlots, seeds, revisionsSymbol };
}

function sameEnum(
  type: PlcType | undefined,
  members: ReadonlyArray<{ name: string; value: number }>,
): boolean {
  if (type === undefined) return false;
  return (
    type.kind === 'enum' &&
    type.members.length === members.length &&
    type.members.every((m, i) => m.name === members[i]?.name && m.value === members[i]?.value)
  );
}

/** The codec wants every element of an array value; unused slots are zero (empty strings, zeroed axes). */
function padArray(type: PlcType, value: readonly unknown[]): unknown[] {
  if (type.kind !== 'array') return [...value];
  const length = type.dimensions[0]?.length ?? value.length;
  const element = type.element;
  const blank: unknown = element.kind === 'string' ? '' : {};
  return Array.from({ length }, (_, i) => (i < value.length ? value[i] : blank));
}
