// The symbol entry history recording (History.Targets.<plcId>.Symbols) and MQTT publishing
// (Mqtt.Targets.<plcId>.Symbols) both select symbols with: one definition, one validation, one docs row.
import { Type } from '@sinclair/typebox';
import { PositiveInt } from './schema-primitives.ts';

export const SymbolEntrySettings = Type.Object(
  {
    Path: Type.String({
      minLength: 1,
      description:
        'Symbol path; `[*]` stands for every index of an array (GVL_HMI.aAxes[*].rPosition); a struct, array or FB instance means its leaves',
    }),
    Mode: Type.Union([Type.Literal('OnChange'), Type.Literal('Cyclic')], {
      default: 'OnChange',
      errorMessage: 'must be OnChange or Cyclic',
    }),
    CycleTimeMs: PositiveInt(1000, 'Cyclic: how often the current value is taken (recorded or published)'),
    Deadband: Type.Number({
      minimum: 0,
      default: 0,
      description: 'OnChange, numbers: a change smaller than this from the value last taken is skipped',
    }),
    MaxIntervalSeconds: Type.Integer({
      minimum: 0,
      default: 0,
      description: 'OnChange: take the current value again after this long without one (0: never)',
    }),
  },
  { additionalProperties: false },
);
