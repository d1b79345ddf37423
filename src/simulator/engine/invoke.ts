// Method calls on function block instances: parameters checked and encoded with the codec, results normalised.
import { AppError } from '../../errors.ts';
import { decode, encode } from './codec.ts';
import type { MethodContext, Program } from './program.ts';
import type { SimulatedPlc } from './plc.ts';
import type { MethodDef, MethodParameter, PlcType, PlcValue } from './types.ts';

import type { MethodResult } from '../../targets/target.ts';

export type { MethodResult };

/** The method named `methodName` (case-insensitive) of a function block type, or undefined. */
export function methodOf(type: PlcType, methodName: string): MethodDef | undefined {
  const name = methodName.toUpperCase();
  return type.kind === 'struct' ? type.methods.find((m) => m.name.toUpperCase() === name) : undefined;
}

/** The method of the instance at `instancePath`; SYMBOL_NOT_FOUND when either does not exist. */
export function findMethod(program: Program, instancePath: string, methodName: string): MethodContextBase {
  const r = program.resolve(instancePath);
  const type = r.type;
  const method = methodOf(type, methodName);
  if (type.kind !== 'struct' || !method) {
    throw new AppError('SYMBOL_NOT_FOUND', `Method '${instancePath}#${methodName}' not found.`);
  }
  return { instancePath: r.path, offset: r.offset, type, method };
}

/**
 * The values for a method's VAR_INPUT and VAR_IN_OUT parameters in declaration order, from positional or
 * named (case-insensitive) parameters: TYPE_MISMATCH for a wrong count, an unknown or a missing name.
 */
export function orderedInputs(
  method: MethodDef,
  label: string,
  parameters: readonly unknown[] | Readonly<Record<string, unknown>>,
): Array<{ parameter: MethodParameter; value: unknown }> {
  const params = method.parameters.filter((p) => p.direction !== 'out');
  if (Array.isArray(parameters)) {
    if (parameters.length !== params.length) {
      throw new AppError(
        'TYPE_MISMATCH',
        `${label} takes ${params.length} parameter(s), got ${parameters.length}.`,
      );
    }
    const values = parameters as readonly unknown[];
    return params.map((parameter, i) => ({ parameter, value: values[i] }));
  }
  if (typeof parameters !== 'object' || parameters === null) {
    throw new AppError('TYPE_MISMATCH', `${label}: parameters must be an array or an object.`);
  }
  const byName = new Map(params.map((p) => [p.name.toUpperCase(), p] as const));
  const given = new Map<MethodParameter, unknown>();
  for (const [key, value] of Object.entries(parameters as Record<string, unknown>)) {
    const p = byName.get(key.toUpperCase());
    if (!p) throw new AppError('TYPE_MISMATCH', `${label} has no input parameter '${key}'.`);
    given.set(p, value);
  }
  const missing = params.filter((p) => !given.has(p)).map((p) => p.name);
  if (missing.length)
    throw new AppError('TYPE_MISMATCH', `${label}: missing parameter(s) ${missing.join(', ')}.`);
  return params.map((parameter) => ({ parameter, value: given.get(parameter) }));
}

export type MethodContextBase = Omit<MethodContext, 'plc'>;

export function invokeMethod(
  plc: SimulatedPlc,
  instancePath: string,
  methodName: string,
  parameters: readonly unknown[] | Readonly<Record<string, unknown>>,
): MethodResult {
  const base = findMethod(plc.program, instancePath, methodName);
  const { method } = base;
  const label = `${base.instancePath}#${method.name}`;
  const impl = plc.program.method(base.type.name, method.name);
  if (!impl) throw new AppError('ADS_ERROR', `${label} is not callable (no RPC implementation).`);
  const inputs = normaliseInputs(method, label, parameters);
  const outcome = impl({ ...base, plc }, inputs);
  const returnValue = method.returnType
    ? normaliseOutput(method.returnType, outcome.returnValue, `${label} return value`)
    : null;
  const outParameters: Record<string, PlcValue> = {};
  const given = new Map(Object.entries(outcome.outputs ?? {}).map(([k, v]) => [k.toUpperCase(), v] as const));
  for (const p of method.parameters) {
    if (p.direction === 'in') continue;
    const v = given.get(p.name.toUpperCase());
    outParameters[p.name] =
      v === undefined && p.direction === 'inout'
        ? (inputs[p.name] ?? null)
        : v === undefined
          ? decode(p.type, Buffer.alloc(p.type.size), 0)
          : normaliseOutput(p.type, v, `${label}.${p.name}`);
  }
  return { returnValue, outParameters };
}

function normaliseInputs(
  method: MethodDef,
  label: string,
  parameters: readonly unknown[] | Readonly<Record<string, unknown>>,
): Record<string, PlcValue> {
  const inputs: Record<string, PlcValue> = {};
  for (const { parameter, value } of orderedInputs(method, label, parameters)) {
    inputs[parameter.name] = roundTrip(parameter.type, value, `${label}.${parameter.name}`);
  }
  return inputs;
}

function roundTrip(type: PlcType, value: unknown, path: string): PlcValue {
  return decode(type, encode(type, value, path), 0);
}

/** A method body returning a value its declaration cannot hold is a program bug, not the caller's. */
function normaliseOutput(type: PlcType, value: unknown, path: string): PlcValue {
  try {
    return roundTrip(type, value, path);
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new AppError('INTERNAL_ERROR', `The method returned a bad value: ${why}`);
  }
}
