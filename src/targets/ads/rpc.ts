// Method calls over ADS RPC: find the method in the uploaded type, check and pack the inputs, unpack results.
import { AppError } from '../../errors.ts';
import {
  decode,
  encode,
  findMethod,
  orderedInputs,
  returnMemberOf,
  type MethodDef,
  type PlcType,
  type PlcValue,
  type StructType,
} from '../../plc/index.ts';
import type { MethodArguments, MethodResult } from '../target.ts';
import type { SymbolAddress, SymbolTable } from './symbol-table.ts';

export interface MethodTarget {
  instance: SymbolAddress;
  type: StructType;
  method: MethodDef;
  /** `instancePath#Method`, canonical: the name a method handle is requested by. */
  handleName: string;
}

/** SYMBOL_NOT_FOUND when the instance or its method does not exist (the simulated target's messages). */
export function findMethodTarget(table: SymbolTable, instancePath: string, methodName: string): MethodTarget {
  const { instance, type, method } = findMethod((path) => table.resolve(path), instancePath, methodName);
  return { instance, type, method, handleName: `${instance.path}#${method.name}` };
}

/**
 * Validates positional or named parameters and packs VAR_INPUT and VAR_IN_OUT values in declaration
 * order, as TwinCAT expects them. TYPE_MISMATCH before anything is sent.
 */
export function packInputs(target: MethodTarget, parameters: MethodArguments): Buffer {
  const label = `${target.instance.path}#${target.method.name}`;
  return Buffer.concat(
    orderedInputs(target.method, label, parameters).map(({ parameter, value }) =>
      encode(parameter.type, value, `${label}.${parameter.name}`),
    ),
  );
}

/** Bytes the PLC answers: the return value, then VAR_OUTPUT and VAR_IN_OUT values, packed. */
export function resultSize(method: MethodDef): number {
  return (
    (method.returnType?.size ?? 0) +
    method.parameters.filter((p) => p.direction !== 'in').reduce((n, p) => n + p.type.size, 0)
  );
}

export function unpackResult(method: MethodDef, data: Buffer): MethodResult {
  if (data.length < resultSize(method)) {
    throw new AppError(
      'ADS_ERROR',
      `${method.name}: the PLC answered ${data.length} bytes, expected ${resultSize(method)}.`,
    );
  }
  let pos = 0;
  const take = (type: PlcType): PlcValue => {
    const v = decode(type, data, pos);
    pos += type.size;
    return v;
  };
  const returnValue = method.returnType ? take(method.returnType) : null;
  const outParameters: Record<string, PlcValue> = {};
  for (const p of method.parameters) if (p.direction !== 'in') outParameters[p.name] = take(p.type);
  return { returnValue, outParameters, ...returnMemberOf(method, returnValue) };
}
