// RPC over ADS: raw input bytes -> the engine's method implementation -> return value + outputs as bytes.

import { decode, encode } from '../../plc/index.ts';
import type { SimulatedPlc } from '../engine/index.ts';
import type { PlcValue } from '../../plc/index.ts';
import { AdsError, AdsErrorCode } from '../../plc/ads/index.ts';
import type { HandleTarget } from './symbol-service.ts';

type MethodTarget = Extract<HandleTarget, { kind: 'method' }>;

/**
 * Inputs (VAR_INPUT and VAR_IN_OUT, declaration order, packed) arrive in `data`; the answer is the
 * return value followed by VAR_OUTPUT and VAR_IN_OUT values, packed, as ADS clients expect.
 */
export function invokeRpc(plc: SimulatedPlc, target: MethodTarget, data: Buffer, readLength: number): Buffer {
  const { method } = target;
  const inputs = method.parameters.filter((p) => p.direction !== 'out');
  const outputs = method.parameters.filter((p) => p.direction !== 'in');
  const inSize = inputs.reduce((sum, p) => sum + p.type.size, 0);
  const outSize = (method.returnType?.size ?? 0) + outputs.reduce((sum, p) => sum + p.type.size, 0);
  if (data.length !== inSize) {
    throw new AdsError(
      AdsErrorCode.InvalidSize,
      `${method.name} takes ${inSize} input bytes, got ${data.length}`,
    );
  }
  if (readLength < outSize) {
    throw new AdsError(
      AdsErrorCode.InvalidSize,
      `${method.name} answers ${outSize} bytes, buffer holds ${readLength}`,
    );
  }
  const values: Record<string, PlcValue> = {};
  let pos = 0;
  for (const p of inputs) {
    values[p.name] = decode(p.type, data, pos);
    pos += p.type.size;
  }
  const result = plc.invoke(target.instancePath, method.name, values);
  const parts: Buffer[] = [];
  if (method.returnType)
    parts.push(encode(method.returnType, result.returnValue, `${method.name} return value`));
  for (const p of outputs)
    parts.push(encode(p.type, result.outParameters[p.name] ?? null, `${method.name}.${p.name}`));
  return Buffer.concat(parts);
}
