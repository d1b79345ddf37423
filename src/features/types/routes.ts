// Type metadata routes (flag TypeMetadata, ReadAccess, SymbolBrowsing limit shared with the symbol routes).
import { Type } from '@sinclair/typebox';
import { targetOf } from '../../guards/install-guards.ts';
import { envelopeResponses, ok } from '../../http/envelope.ts';
import type { FeaturePlugin } from '../../feature-kit/feature-context.ts';
import { PlcIdParams } from '../../http/schemas.ts';

const EnumMembersResult = Type.Object({
  typeName: Type.String(),
  members: Type.Array(Type.Object({ name: Type.String(), value: Type.Integer() }), {
    description: 'Declaration order; values may have gaps, start anywhere and be negative',
  }),
});

const TypeNameParams = Type.Object({
  ...PlcIdParams.properties,
  typeName: Type.String({ minLength: 1, maxLength: 256, description: 'Enum type name, e.g. E_MachineMode' }),
});

export const typesRoutes: FeaturePlugin = (app, _context) => {
  app.get(
    '/api/plcs/:plcId/types/:typeName/enum-members',
    {
      schema: {
        tags: ['Type metadata'],
        summary: 'Members of an enum type, cached for the life of the ADS connection',
        params: TypeNameParams,
        response: envelopeResponses(EnumMembersResult),
      },
      config: { feature: 'TypeMetadata', policy: 'ReadAccess', plcScoped: true, limit: 'SymbolBrowsing' },
    },
    async (request) => ok(await targetOf(request).enumMembers(request.params.typeName.trim())),
  );
};
