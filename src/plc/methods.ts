// Methods of function blocks as RPC calls see them: lookup by name and the inputs in declaration order.
import { AppError } from '../errors.ts';
import type { MethodArguments, MethodDef, MethodParameter, PlcType, PlcValue, StructType } from './types.ts';

/** The method named `methodName` (case-insensitive) of a function block type, or undefined. */
function methodOf(type: PlcType, methodName: string): MethodDef | undefined {
  const name = methodName.toUpperCase();
  return type.kind === 'struct' ? type.methods.find((m) => m.name.toUpperCase() === name) : undefined;
}

/** `{ returnMember }` when the method returns an enum and `value` names a member of it, else `{}`. */
export function returnMemberOf(method: MethodDef, value: PlcValue): { returnMember?: string } {
  const type = method.returnType;
  const member = type?.kind === 'enum' ? type.members.find((m) => m.value === value) : undefined;
  return member ? { returnMember: member.name } : {};
}

/**
 * The method `methodName` of the function block at `instancePath`, resolved by `resolve` (the program's or
 * the PLC's symbol table): SYMBOL_NOT_FOUND when the instance or its method does not exist.
 */
export function findMethod<Instance extends { type: PlcType }>(
  resolve: (path: string) => Instance,
  instancePath: string,
  methodName: string,
): { instance: Instance; type: StructType; method: MethodDef } {
  const instance = resolve(instancePath);
  const type = instance.type;
  const method = methodOf(type, methodName);
  if (type.kind !== 'struct' || !method) {
    throw new AppError('SYMBOL_NOT_FOUND', `Method '${instancePath}#${methodName}' not found.`);
  }
  return { instance, type, method };
}

/**
 * The values for a method's VAR_INPUT and VAR_IN_OUT parameters in declaration order, from positional or
 * named (case-insensitive) parameters: TYPE_MISMATCH for a wrong count, an unknown or a missing name.
 */
export function orderedInputs(
  method: MethodDef,
  label: string,
  parameters: MethodArguments,
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
