// Method calls over ADS RPC: find the method in the uploaded type, check and pack the inputs, unpack results.
import { AppError } from '../../errors.ts';
import {
  decode,
  encode,
  type MethodDef,
  type PlcType,
  type PlcValue,
  type StructType,
} from '../../simulator/engine/index.ts';
import type { MethodResult } from '../target.ts';
import type { SymbolAddress, SymbolTable } from './symbol-table.ts';

export interface MethodTarget {
  instance: SymbolAddress;
  type: StructType;
  method: MethodDef;
  /** `instancePath#Method`, canonical: the name a method handle is requested by. */
  handleName: string;
}

/** SYMBOL_NOT_FOUND when the instance or its method does not exist (the simulated target's messages). */
export function findMethod(table: SymbolTable, instancePath: string, methodName: string): MethodTarget {
  const instance = table.resolve(instancePath);
  const type = instance.type;
  const method =
    type.kind === 'struct'
      ? type.methods.find((m) => m.name.toUpperCase() === methodName.toUpperCase())
      : undefined;
  if (type.kind !== 'struct' || !method) {
    throw new AppError('SYMBOL_NOT_FOUND', `Method '${instancePath}#${methodName}' not found.`);
  }
  return { instance, type, method, handleName: `${instance.path}#${method.name}` };
}

/**
 * Validates positional or named parameters and packs VAR_INPUT and VAR_IN_OUT values in declaration
 * order, as TwinCAT expects them. TYPE_MISMATCH before anything is sent.
 */
export function packInputs(
  target: MethodTarget,
  parameters: readonly unknown[] | Readonly<Record<string, unknown>>,
): Buffer {
  const { method } = target;
  const label = `${target.instance.path}#${method.name}`;
  const params = method.parameters.filter((p) => p.direction !== 'out');
  const values: unknown[] = [];
  if (Array.isArray(parameters)) {
    if (parameters.length !== params.length) {
      throw new AppError(
        'TYPE_MISMATCH',
        `${label} takes ${params.length} parameter(s), got ${parameters.length}.`,
      );
    }
    values.push(...(parameters as readonly unknown[]));
  } else {
    if (typeof parameters !== 'object' || parameters === null) {
      throw new AppError('TYPE_MISMATCH', `${label}: parameters must be an array or an object.`);
    }
    const byName = new Map(params.map((p, i) => [p.name.toUpperCase(), i] as const));
    const given = new Map<number, unknown>();
    for (const [key, value] of Object.entries(parameters as Record<string, unknown>)) {
      const i = byName.get(key.toUpperCase());
      if (i === undefined) throw new AppError('TYPE_MISMATCH', `${label} has no input parameter '${key}'.`);
      given.set(i, value);
    }
    const missing = params.filter((_, i) => !given.has(i)).map((p) => p.name);
    if (missing.length) {
      throw new AppError('TYPE_MISMATCH', `${label}: missing parameter(s) ${missing.join(', ')}.`);
    }
    params.forEach((_, i) => values.push(given.get(i)));
  }
  return Buffer.concat(params.map((p, i) => encode(p.type, values[i], `${label}.${p.name}`)));
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
  return { returnValue, outParameters };
}
