// GET /api/admin/plcs/{plcId}/program-changes (Admin, plc_access): the PLC's last program changes and what each
// did to the symbols the gateway serves. The log behind it also writes each change to the audit trail.
import { Type } from '@sinclair/typebox';
import { targetOf } from '../../guards/install-guards.ts';
import { envelopeResponses, ok } from '../../http/envelope.ts';
import { PlcIdParams } from '../../http/schemas.ts';
import type { FeaturePlugin } from '../../feature-kit/feature-context.ts';
import { ProgramChangeLog } from './program-changes.ts';

const Placement = Type.Object({
  type: Type.String({ description: 'PLC type name' }),
  size: Type.Integer({ description: 'Bytes' }),
  indexGroup: Type.Integer(),
  indexOffset: Type.Integer(),
});

const AffectedSymbol = Type.Object({
  symbol: Type.String({ description: 'The path as the PLC declared it before the change' }),
  impact: Type.Union([Type.Literal('vanished'), Type.Literal('typeChanged'), Type.Literal('moved')], {
    description:
      'vanished: subscribers got `error` SYMBOL_INVALIDATED; typeChanged: other type or size, subscribers got ' +
      '`typeChanged` and stream on in the new type; moved: other index group/offset, re-resolved and streaming on',
  }),
  before: Placement,
  after: Type.Optional(Placement),
});

const ProgramChangeSchema = Type.Object({
  at: Type.String({ format: 'date-time', description: 'When the gateway had re-resolved its symbols' }),
  kind: Type.Union([Type.Literal('download'), Type.Literal('onlineChange')], {
    description: 'download: the symbol version changed (also seen at reconnecting); onlineChange: it did not',
  }),
  oldSymbolVersion: Type.Union([Type.Integer(), Type.Null()]),
  newSymbolVersion: Type.Union([Type.Integer(), Type.Null()]),
  affectedCount: Type.Integer({ description: 'Affected symbols in all' }),
  counts: Type.Object({
    vanished: Type.Integer(),
    typeChanged: Type.Integer(),
    moved: Type.Integer(),
  }),
  affected: Type.Array(AffectedSymbol, {
    description:
      'Symbols held by stream clients, history, MQTT or alarms that the change touched, by path; at most ' +
      'ProgramChanges.MaxSymbolsPerChange',
  }),
  replica: Type.Optional(Type.String({ description: 'Cluster mode: the ReplicaId that saw the change' })),
});

export const programChangesRoutes: FeaturePlugin = (app, { config, registry, audit, cluster }) => {
  const changes = new ProgramChangeLog({
    registry,
    audit,
    length: config.settings.ProgramChanges.Length,
    replicaId: cluster?.cluster.replicaId,
    log: app.log,
  });
  app.addHook('onClose', () => changes.close());

  app.get(
    '/api/admin/plcs/:plcId/program-changes',
    {
      schema: {
        tags: ['Admin'],
        summary: "The PLC's last program changes and the served symbols each affected, newest first",
        description:
          'Downloads and online changes of a Real PLC seen by this replica (at most ProgramChanges.Length), ' +
          'each with the old and new symbol version and every subscribed, recorded or alarm-bound symbol that ' +
          'vanished, changed type or size, or moved. Each change is also an audit record `plc.program-change`. ' +
          'A Simulated PLC has none.',
        params: PlcIdParams,
        response: envelopeResponses(
          Type.Object({ plcId: Type.String(), items: Type.Array(ProgramChangeSchema) }),
        ),
      },
      config: { policy: 'Admin', plcScoped: true },
    },
    (request) => {
      const target = targetOf(request);
      return Promise.resolve(ok({ plcId: target.id, items: changes.list(target.id) }));
    },
  );
};
