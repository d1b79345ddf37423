// Methods of function blocks as RPC calls see them: lookup by name and the inputs in declaration order.
import { AppError } from '../errors.ts';
import type { MethodDef, MethodParameter, PlcType } from './types.ts';

/** The method named `methodName` (case-insensitive) of a function block type, or undefined. */
export function methodOf(type: PlcType, methodName: string): MethodDef | undefined {
  const name = methodName.toUpperCase();
  return type.kind === 'struct' ? type.methods.find((m) => m.name.toUpperCase() === name) : undefined;
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
