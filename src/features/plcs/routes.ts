// PLC routes: GET /api/plcs (the permitted PLCs) and GET /api/plcs/{plcId}/status.
import { Type } from '@sinclair/typebox';
import { principalOf, targetOf } from '../../guards/install-guards.ts';
import { canAccessPlc } from '../../guards/principal.ts';
import { envelopeResponses, ok } from '../../http/envelope.ts';
import type { FeaturePlugin } from '../../feature-kit/feature-context.ts';
import { ConnectionState, PlcIdParams, TargetMode } from '../../http/schemas.ts';
import { adsStates, type AdsState } from '../../targets/target.ts';
import { listPlcs, plcStatus } from './service.ts';

const PlcSummary = Type.Object({
  plcId: Type.String(),
  displayName: Type.String(),
  isConnected: Type.Boolean(),
  state: ConnectionState,
  mode: TargetMode,
});

const AdsStateSchema = Type.Unsafe<AdsState>({
  type: 'string',
  enum: [...adsStates],
  description: 'ADS state; present when connected and readable',
});

const LastError = Type.Object(
  {
    code: Type.String(),
    message: Type.String(),
    since: Type.String({ format: 'date-time', description: 'When this cause was first seen' }),
  },
  { description: 'Why the PLC is not connected; present only while not Connected' },
);

const PlcStatus = Type.Object({
  ...PlcSummary.properties,
  adsState: Type.Optional(AdsStateSchema),
  lastError: Type.Optional(LastError),
});

export const plcsRoutes: FeaturePlugin = (app, { registry }) => {
  app.get(
    '/api/plcs',
    {
      schema: {
        tags: ['PLCs'],
        summary: 'List the PLCs the token may access, sorted by plcId',
        response: envelopeResponses(Type.Array(PlcSummary)),
      },
      config: { policy: 'ReadAccess', fleet: true },
    },
    (request) => {
      const principal = principalOf(request);
      return ok(listPlcs(registry.list(), (plcId) => canAccessPlc(principal, plcId)));
    },
  );

  app.get(
    '/api/plcs/:plcId/status',
    {
      schema: {
        tags: ['PLCs'],
        summary: 'Connection and ADS state of one PLC',
        params: PlcIdParams,
        response: envelopeResponses(PlcStatus),
      },
      config: { policy: 'ReadAccess', plcScoped: true },
    },
    async (request) =>
      ok(
        await plcStatus(targetOf(request), (err) =>
          request.log.warn({ err, plcId: request.params.plcId }, 'reading the ADS state failed'),
        ),
      ),
  );
};
