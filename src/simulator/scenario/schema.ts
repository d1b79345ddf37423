// The built-in JSON schema of machine.yaml (contract gvl-hmi/1): the single source of scenario validation.
// `errorMessage` annotations (a string, or one per keyword) replace ajv's generic wording (validate.ts).
import { Type, type Static } from '@sinclair/typebox';
import { EtherCatSection, EtherCatStep } from './ethercat-schema.ts';
import { contractId, errorTypeMembers, partSlots, type ErrorTypeName } from './hmi-layout.ts';

const identifier = '^[A-Za-z_][A-Za-z0-9_]*$';
const name = '[A-Za-z0-9_-]+';
const printable = '^[\\x20-\\x7E\\xA0-\\xFF]*$';
const printableMessage = { pattern: 'must contain only printable Latin-1 characters' };

const Num = (opts: { default?: number } = {}) => Type.Number(opts);

const Machine = Type.Object(
  {
    state: Type.Integer({
      minimum: 0,
      maximum: 3,
      default: 1,
      errorMessage: 'must be 0 (Running), 1 (Idle), 2 (Fault) or 3 (Maintenance)',
    }),
    mode: Type.Integer({ minimum: -32768, maximum: 32767, default: 0 }),
    speed: Num({ default: 0 }),
    speedSetpoint: Num({ default: 0 }),
    activeRecipeId: Type.Integer({ minimum: 0, maximum: 4294967295, default: 0 }),
    activeRecipeVersion: Type.Integer({ minimum: 0, maximum: 4294967295, default: 0 }),
  },
  { additionalProperties: false, default: {} },
);

const Axis = Type.Object(
  {
    id: Type.String({
      minLength: 1,
      maxLength: 15,
      pattern: `^${name}(\\.${name})?$`,
      errorMessage: { pattern: 'must be <jointId> or <partId>.<jointId> (letters, digits, _ or -)' },
    }),
    component: Type.Optional(
      Type.String({ maxLength: 31, pattern: printable, errorMessage: printableMessage }),
    ),
    unit: Type.String({ maxLength: 7, pattern: printable, default: '', errorMessage: printableMessage }),
    limits: Type.Object(
      {
        min: Num(),
        max: Num(),
        vmax: Type.Number({ exclusiveMinimum: 0 }),
        amax: Type.Number({ exclusiveMinimum: 0 }),
      },
      { additionalProperties: false },
    ),
    start: Type.Object(
      {
        position: Num(),
        targetPos: Type.Optional(Num()),
        enabled: Type.Boolean({ default: true }),
        homed: Type.Boolean({ default: true }),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);

const Alarm = Type.Object(
  {
    key: Type.String({ minLength: 1, maxLength: 80, pattern: printable, errorMessage: printableMessage }),
    equipment: Type.String({
      maxLength: 80,
      pattern: printable,
      default: '',
      errorMessage: printableMessage,
    }),
    errorCode: Type.Integer({ minimum: -2147483648, maximum: 2147483647, default: 0 }),
    errorType: Type.Unsafe<ErrorTypeName>({
      type: 'string',
      enum: errorTypeMembers.map((m) => m.name),
      default: 'ERROR',
      errorMessage: 'must be NONE, INFO, WARNING or ERROR',
    }),
    needsAck: Type.Boolean({ default: true }),
    text: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);

const ScalarValue = Type.Unsafe<number | boolean | string>({
  type: ['number', 'boolean', 'string'],
  errorMessage: 'must be a number, boolean or string',
});

const Step = Type.Object(
  {
    atCycle: Type.Optional(Type.Integer({ minimum: 1 })),
    atMs: Type.Optional(Type.Integer({ minimum: 0 })),
    every: Type.Optional(Type.Integer({ minimum: 1, description: 'Repeat period in scans' })),
    everyMs: Type.Optional(Type.Integer({ minimum: 1, description: 'Repeat period in simulated ms' })),
    set: Type.Optional(
      Type.Object(
        { path: Type.String({ minLength: 1 }), value: ScalarValue },
        { additionalProperties: false },
      ),
    ),
    raise: Type.Optional(Type.String({ minLength: 1 })),
    clear: Type.Optional(Type.String({ minLength: 1 })),
    fail: Type.Optional(Type.String({ minLength: 1 })),
    ethercat: Type.Optional(EtherCatStep),
  },
  { additionalProperties: false },
);

// The program's own types and variables, for reproducing a test program (arrays, structs, AT locations).
const TypeDecl = Type.Object(
  {
    name: Type.String({ pattern: identifier, errorMessage: { pattern: 'must be an IEC identifier' } }),
    members: Type.Optional(
      Type.Array(
        Type.Object(
          {
            name: Type.String({
              pattern: identifier,
              errorMessage: { pattern: 'must be an IEC identifier' },
            }),
            type: Type.String({ minLength: 1 }),
            comment: Type.Optional(Type.String()),
          },
          { additionalProperties: false },
        ),
        { minItems: 1 },
      ),
    ),
    enum: Type.Optional(
      Type.Array(
        Type.Object(
          {
            name: Type.String({
              pattern: identifier,
              errorMessage: { pattern: 'must be an IEC identifier' },
            }),
            value: Type.Integer(),
          },
          { additionalProperties: false },
        ),
        { minItems: 1 },
      ),
    ),
    base: Type.Optional(Type.String({ minLength: 1 })),
    comment: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);

const Variable = Type.Object(
  {
    type: Type.String({ minLength: 1 }),
    value: Type.Optional(Type.Unknown()),
    location: Type.Optional(Type.String({ minLength: 1, description: 'AT location, e.g. %MB0, %IW2, %Q*' })),
    comment: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);

export const ScenarioSchema = Type.Object(
  {
    contract: Type.Literal(contractId, { errorMessage: `must be exactly "${contractId}"` }),
    root: Type.String({
      maxLength: 63,
      pattern: identifier,
      errorMessage: { pattern: 'must be an IEC identifier (a letter or _, then letters, digits or _)' },
    }),
    scanMs: Type.Integer({ minimum: 10, maximum: 1000, default: 100 }),
    maxAxes: Type.Integer({ minimum: 1, maximum: 1024, default: 16 }),
    parts: Type.Array(
      Type.String({
        minLength: 1,
        maxLength: 15,
        pattern: `^${name}$`,
        errorMessage: { pattern: 'must be letters, digits, _ or -' },
      }),
      { maxItems: partSlots, default: [] },
    ),
    machine: Machine,
    axes: Type.Array(Axis, { default: [] }),
    alarms: Type.Array(Alarm, { default: [] }),
    script: Type.Array(Step, { default: [] }),
    types: Type.Array(TypeDecl, { default: [] }),
    variables: Type.Record(Type.String({ minLength: 1 }), Variable, { default: {} }),
    ethercat: Type.Optional(EtherCatSection),
  },
  { additionalProperties: false },
);

/** A validated scenario with every default applied. */
export type ScenarioDefinition = Static<typeof ScenarioSchema>;
export type AlarmDefinition = ScenarioDefinition['alarms'][number];
export type ScriptStepDefinition = ScenarioDefinition['script'][number];
export type EtherCatSectionDefinition = NonNullable<ScenarioDefinition['ethercat']>;
export type EtherCatStepDefinition = NonNullable<ScriptStepDefinition['ethercat']>;
