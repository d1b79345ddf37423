// GET /api/admin/audit (Admin): the audit trail, oldest first, paged by sequence number.
import { Type } from '@sinclair/typebox';
import { ErrorBody, envelopeResponses, ok } from '../../http/envelope.ts';
import type { FeaturePlugin } from '../../feature-kit/feature-context.ts';

const maxAuditPage = 1000;

const AuditRecord = Type.Object({
  seq: Type.Integer({ description: 'Increasing sequence number; the paging cursor' }),
  at: Type.String({ format: 'date-time' }),
  sub: Type.String({ description: 'The caller (JWT sub)' }),
  plcId: Type.Union([Type.String(), Type.Null()]),
  action: Type.String({
    description: 'variable.write, method.invoke, file.write, lifecycle.stop, sim.step, ...',
  }),
  target: Type.String({ description: 'The path, method, file, state or connection acted on' }),
  result: Type.Union([Type.Literal('ok'), Type.Literal('error')]),
  error: Type.Optional(ErrorBody),
  oldValue: Type.Optional(Type.Unknown()),
  newValue: Type.Optional(Type.Unknown()),
});

export const auditRoutes: FeaturePlugin = (app, { audit }) => {
  app.get(
    '/api/admin/audit',
    {
      schema: {
        tags: ['Admin'],
        summary: 'Audit records of state-changing requests, oldest first',
        querystring: Type.Object({
          after: Type.Integer({ minimum: 0, default: 0, description: 'Only records with a larger seq' }),
          limit: Type.Integer({ minimum: 1, maximum: maxAuditPage, default: 100 }),
          plcId: Type.Optional(Type.String({ minLength: 1, description: 'Only records of this PLC' })),
        }),
        response: envelopeResponses(
          Type.Object({
            items: Type.Array(AuditRecord),
            nextAfter: Type.Integer({ description: 'Pass as `after` to get the records that follow' }),
          }),
        ),
      },
      config: { policy: 'Admin' },
    },
    async (request) => {
      const { after, limit, plcId } = request.query;
      return ok(await audit.store.list({ after, limit, ...(plcId === undefined ? {} : { plcId }) }));
    },
  );
};
