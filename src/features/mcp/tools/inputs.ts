// Argument schemas the tools share, written for agents: each says what to pass in one line.
import { Type } from '@sinclair/typebox';

export const PlcId = Type.String({ minLength: 1, description: 'The PLC alias, as list_plcs gives it' });

export const SymbolPath = Type.String({
  minLength: 1,
  description: 'Instance path, e.g. GVL_HMI.aAxes[3].rPosition',
});

/** Input objects refuse unknown arguments, so a misspelt one is reported instead of silently ignored. */
export const strict = { additionalProperties: false } as const;
