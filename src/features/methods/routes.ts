// Method call route (flag Rpc, WriteAccess, RpcInvocations limit): POST .../methods/{instancePath}.{Method}.
import { Type } from '@sinclair/typebox';
import { targetOf } from '../../guards/install-guards.ts';
import { auditParam } from '../../http/audit-hooks.ts';
import { envelopeResponses, ok } from '../../http/envelope.ts';
import type { FeaturePlugin } from '../../feature-kit/feature-context.ts';
import { PlcIdParams } from '../../http/schemas.ts';
import { MethodInvoker } from './service.ts';

const CallParams = Type.Object({
  ...PlcIdParams.properties,
  call: Type.String({
    description:
      'instancePath.Method (the last dot separates the method) or instancePath#Method, URL-encoded',
  }),
});

// Declared open: the positional-or-named check is the service's, so a scalar is refused rather than coerced.
const CallBody = Type.Object({
  parameters: Type.Optional(
    Type.Unknown({
      description: 'Positional array, or an object by parameter name; absent for a method without inputs',
    }),
  ),
});

const MethodResult = Type.Object({
  returnValue: Type.Unknown({ description: 'null for a method without a return value' }),
  outParameters: Type.Record(Type.String(), Type.Unknown(), { description: 'Output and in/out parameters' }),
});

export const methodsRoutes: FeaturePlugin = (app, { config }) => {
  const invoker = new MethodInvoker(config.settings.PlcTargets);

  app.post(
    '/api/plcs/:plcId/methods/:call',
    {
      schema: {
        tags: ['Methods'],
        summary: 'Call a PLC method allowed by the target’s Rpc.Invokable list',
        params: CallParams,
        body: CallBody,
        response: envelopeResponses(MethodResult),
      },
      config: {
        feature: 'Rpc',
        policy: 'WriteAccess',
        plcScoped: true,
        limit: 'RpcInvocations',
        audit: auditParam('method.invoke', 'call'),
      },
      // A call without a body is a call without parameters, not an invalid body.
      preValidation: (request, _reply, next) => {
        request.body ??= {};
        next();
      },
    },
    async (request) =>
      ok(await invoker.invoke(targetOf(request), request.params.call, request.body.parameters)),
  );
};
