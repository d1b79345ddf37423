// Small schema building blocks shared by the settings schema and its section modules.
import { Type } from '@sinclair/typebox';

/** Six octets 0-255: a PLC's AmsNetId and the gateway's own. */
export const AmsNetId = Type.String({
  pattern: '^(25[0-5]|2[0-4]\\d|1?\\d?\\d)(\\.(25[0-5]|2[0-4]\\d|1?\\d?\\d)){5}$',
  errorMessage: 'must be six octets 0-255 separated by dots',
});

export const PositiveInt = (def: number, description?: string) =>
  Type.Integer({ minimum: 1, default: def, ...(description ? { description } : {}) });
