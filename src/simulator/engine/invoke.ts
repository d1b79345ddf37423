// Method calls on function block instances: parameters checked and encoded with the codec, results normalised.
import { AppError } from '../../errors.ts';
import { decode, encode, findMethod, orderedInputs, returnMemberOf } from '../../plc/index.ts';
import type { MethodArguments, MethodDef, MethodResult, PlcType, PlcValue } from '../../plc/index.ts';
import type { MethodContext, MethodPlc, Program } from './program.ts';

export type { MethodResult };

/** Calls a method of `program` on the PLC `plc` that holds the program's memory. */
export function invokeMethod(
  program: Program,
  plc: MethodPlc,
  instancePath: string,
  methodName: string,
  parameters: MethodArguments,
): MethodResult {
  const { instance, type, method } = findMethod((path) => program.resolve(path), instancePath, methodName);
  const base: Omit<MethodContext, 'plc'> = {
    instancePath: instance.path,
    offset: instance.offset,
    type,
    method,
  };
  const label = `${base.instancePath}#${method.name}`;
  const impl = program.method(base.type.name, method.name);
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
  return { returnValue, outParameters, ...returnMemberOf(method, returnValue) };
}

function normaliseInputs(
  method: MethodDef,
  label: string,
  parameters: MethodArguments,
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
