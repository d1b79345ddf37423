// Admin routes (Admin policy, always on whatever the flags): the open stream connections, and ending one. An admin
// sees and ends only streams of the PLCs in their plc_access; a stream of no PLC needs plc_access `*`.
import { Type } from '@sinclair/typebox';
import { AppError } from '../../errors.ts';
import { principalOf } from '../../guards/install-guards.ts';
import { canAccessPlc, type Principal } from '../../guards/principal.ts';
import { auditParam, noteAudit } from '../../http/audit-hooks.ts';
import { envelopeResponses, ok } from '../../http/envelope.ts';
import type { FeaturePlugin } from '../../feature-kit/feature-context.ts';

const Connection = Type.Object({
  id: Type.String(),
  kind: Type.String({ description: 'notifications.sse, notifications.ws, alarms.sse, ...' }),
  plcId: Type.Union([Type.String(), Type.Null()]),
  user: Type.String({ description: 'The token subject' }),
  remote: Type.String({ description: 'Client address' }),
  openedAt: Type.String({ format: 'date-time' }),
  symbols: Type.Array(Type.String(), { description: 'Subscribed symbol paths' }),
  sent: Type.Integer({ description: 'Events written to the client' }),
  dropped: Type.Integer({ description: 'Events dropped from its full queue' }),
  replica: Type.Optional(Type.String({ description: 'Cluster mode: the ReplicaId serving the stream' })),
  details: Type.Optional(
    Type.Object(
      {
        options: Type.Optional(
          Type.Array(
            Type.Object({
              symbols: Type.Array(Type.String()),
              cycleMs: Type.Number(),
              mode: Type.String({ description: 'on-change or cyclic' }),
              deadband: Type.Number(),
              maxIntervalMs: Type.Number(),
            }),
            {
              description:
                'Notification streams that named subscription options: the effective options, one entry per ' +
                'distinct set with the symbols running with it',
            },
          ),
        ),
      },
      { description: 'What the stream’s feature adds (absent when it adds nothing)' },
    ),
  ),
});

const config = { policy: 'Admin' } as const;

/** Whether the caller's plc_access covers the stream's PLC (all PLCs for a stream of none). */
function mayManage(principal: Principal, plcId: string | null): boolean {
  return plcId === null ? principal.plcAccess.all : canAccessPlc(principal, plcId);
}

export const adminRoutes: FeaturePlugin = (app, { streams }) => {
  app.get(
    '/api/admin/connections',
    {
      schema: {
        tags: ['Admin'],
        summary: 'Open SSE and WebSocket streams (of the PLCs in the caller’s plc_access)',
        response: envelopeResponses(Type.Array(Connection)),
      },
      config,
    },
    async (request) => {
      const principal = principalOf(request);
      return ok((await streams.registry.listAll()).filter((row) => mayManage(principal, row.plcId)));
    },
  );

  app.delete(
    '/api/admin/connections/:id',
    {
      schema: {
        tags: ['Admin'],
        summary: 'End a stream (SSE end; WebSocket SignalR Close then close frame)',
        params: Type.Object({ id: Type.String() }),
        response: envelopeResponses(Type.Object({ id: Type.String(), terminated: Type.Literal(true) })),
      },
      config: { ...config, audit: auditParam('connection.terminate', 'id') },
    },
    async (request) => {
      const { id } = request.params;
      const principal = principalOf(request);
      const ended = await streams.registry.end(id, (row) => {
        noteAudit(request, { plcId: row.plcId });
        if (mayManage(principal, row.plcId)) return;
        throw new AppError(
          'PLC_ACCESS_DENIED',
          row.plcId === null
            ? 'This stream names no PLC: ending it needs plc_access "*".'
            : `The token's plc_access claim does not include ${row.plcId}.`,
        );
      });
      if (ended === undefined) throw new AppError('NOT_FOUND', 'No open stream has this id.');
      return ok({ id, terminated: true as const });
    },
  );
};
