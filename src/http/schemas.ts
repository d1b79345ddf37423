// Schemas shared by feature routes.
import { Type, type Static } from '@sinclair/typebox';

/** Path parameters of every per-PLC route. Any string: an unknown alias is answered 404 PLC_NOT_FOUND. */
export const PlcIdParams = Type.Object({
  plcId: Type.String({ description: 'The PLC alias (a key of PlcTargets)' }),
});
export type PlcIdParams = Static<typeof PlcIdParams>;

export const ConnectionState = Type.Union(
  [Type.Literal('Connected'), Type.Literal('Connecting'), Type.Literal('Disconnected')],
  { description: 'Connection state of the gateway to the PLC' },
);

export const TargetMode = Type.Union([Type.Literal('Real'), Type.Literal('Simulated')]);
