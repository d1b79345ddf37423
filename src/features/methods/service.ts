// PLC method calls: the call is parsed and checked against the target's Rpc.Invokable allow-list before
// anything reaches the PLC; the driver validates and encodes the parameters.
import type { Settings } from '../../config/schema.ts';
import { AppError } from '../../errors.ts';
import type { MethodArguments, MethodResult, PlcTarget } from '../../targets/target.ts';
import { compileAllowList, parseMethodCall, type AllowList } from './invokable.ts';

/** Invokes methods for any configured target; allow-lists are compiled once per target. */
export class MethodInvoker {
  readonly #allowLists: ReadonlyMap<string, AllowList>;

  constructor(targets: Settings['PlcTargets']) {
    this.#allowLists = new Map(
      Object.entries(targets).map(([plcId, settings]) => [plcId, compileAllowList(settings.Rpc.Invokable)]),
    );
  }

  /**
   * Calls `instancePath.Method` (or `instancePath#Method`): 400 VALIDATION_ERROR for a malformed call or
   * parameters, 403 RPC_INVOKE_DENIED outside the allow-list (a target without settings allows nothing).
   */
  invoke(target: PlcTarget, call: string, parameters: unknown): Promise<MethodResult> {
    const parsed = parseMethodCall(call);
    if (!parsed) {
      throw new AppError(
        'VALIDATION_ERROR',
        `'${call}' does not name a method: use instancePath.Method or instancePath#Method.`,
      );
    }
    const args = checkParameters(parameters);
    const allowed = this.#allowLists.get(target.id);
    if (!allowed?.(parsed)) {
      throw new AppError(
        'RPC_INVOKE_DENIED',
        `${parsed.instancePath}.${parsed.method} is not in the Rpc.Invokable allow-list of ${target.id}.`,
      );
    }
    return target.invoke(parsed.instancePath, parsed.method, args);
  }
}

/** Absent means no parameters; otherwise a positional array or an object by parameter name. */
function checkParameters(parameters: unknown): MethodArguments {
  if (parameters === undefined) return [];
  if (Array.isArray(parameters)) return parameters as unknown[];
  if (typeof parameters === 'object' && parameters !== null) return parameters as Record<string, unknown>;
  throw new AppError('VALIDATION_ERROR', 'parameters must be an array or an object by parameter name.');
}
