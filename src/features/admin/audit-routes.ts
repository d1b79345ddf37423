// GET /api/admin/audit (Admin): the audit trail, oldest first, paged by sequence number. An admin whose plc_access
// names some PLCs reads only their records; PLC-less records need plc_access `*`.
import { Type } from '@sinclair/typebox';
import { auditRings, type AuditRing } from '../../audit/store.ts';
import { AuditRecordSchema } from '../../audit/wire.ts';
import { principalOf } from '../../guards/install-guards.ts';
import { envelopeResponses, ok } from '../../http/envelope.ts';
import type { FeaturePlugin } from '../../feature-kit/feature-context.ts';

const maxAuditPage = 1000;

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
          plcId: Type.Optional(
            Type.String({ minLength: 1, description: 'Only records of this PLC (any case)' }),
          ),
          ring: Type.Optional(
            Type.Unsafe<AuditRing>({
              ...Type.Union(auditRings.map((r) => Type.Literal(r))),
              description:
                'Only changes (carried out or attempted) or only refusals (answered 4xx or 501); default both',
            }),
          ),
        }),
        response: envelopeResponses(
          Type.Object({
            items: Type.Array(AuditRecordSchema),
            nextAfter: Type.Integer({ description: 'Pass as `after` to get the records that follow' }),
          }),
        ),
      },
      config: { policy: 'Admin' },
    },
    async (request) => {
      const { after, limit, plcId, ring } = request.query;
      const access = principalOf(request).plcAccess;
      return ok(
        await audit.store.list({
          after,
          limit,
          ...(plcId === undefined ? {} : { plcId }),
          ...(ring === undefined ? {} : { ring: ring as AuditRing }),
          ...(access.all ? {} : { plcs: access.ids }),
        }),
      );
    },
  );
};
