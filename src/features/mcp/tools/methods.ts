// call_method: a PLC method call through the same invoker (and so the same Rpc.Invokable allow-list) as the route.
import { Type } from '@sinclair/typebox';
import { MethodInvoker } from '../../methods/index.ts';
import { defineTool, type Tool } from '../tool-kit.ts';
import type { ToolDeps } from './deps.ts';
import { PlcId, strict } from './inputs.ts';
import { targetOf } from './plcs.ts';

export function methodTools({ context }: ToolDeps): Tool[] {
  const invoker = new MethodInvoker(context.config.settings.PlcTargets);
  return [
    defineTool({
      name: 'call_method',
      title: 'Call a PLC method',
      description:
        'Calls a PLC method allowed by the PLC’s Rpc.Invokable list (RPC_INVOKE_DENIED otherwise) and answers ' +
        'its return value and output parameters. Needs an operator token (WriteAccess); audited.',
      input: Type.Object(
        {
          plcId: PlcId,
          method: Type.String({
            minLength: 1,
            description: 'instancePath.Method, e.g. GVL_HMI.fbAlarms.AcknowledgeAlarm',
          }),
          parameters: Type.Optional(
            Type.Unknown({ description: 'Positional array, or an object by parameter name; omit for none' }),
          ),
        },
        strict,
      ),
      mirrors: 'POST /api/plcs/:plcId/methods/:call',
      auditTarget: ({ method }) => method,
      readOnly: false,
      run: ({ method, parameters }, { target }) => invoker.invoke(targetOf(target), method, parameters),
    }),
  ];
}
