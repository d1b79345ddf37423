// Symbol routes (flag Symbols, ReadAccess, SymbolBrowsing limit): the tree, search/flat listings and one symbol.
import { Type, type TSchema, type TUnsafe } from '@sinclair/typebox';
import { targetOf } from '../../guards/install-guards.ts';
import { envelopeResponses, ok } from '../../http/envelope.ts';
import type { FeaturePlugin } from '../../feature-kit/feature-context.ts';
import { PlcIdParams } from '../../http/schemas.ts';
import { SymbolBrowser, symbolBrowserKey } from './service.ts';

const symbolFields = {
  instancePath: Type.String({ description: 'Dotted instance path; array elements as path[i]' }),
  typeName: Type.String(),
  size: Type.Integer({ description: 'Bytes' }),
  comment: Type.String({ description: 'May be empty' }),
};

const childrenNote = 'Struct members and array elements (each a Symbol), or null for a leaf';

// Nullable by a type list rather than anyOf: the serializer then checks the type instead of validating each
// subtree. Children are described one level down and passed through as they are below that.
function childrenOf(items: TSchema): TUnsafe<unknown[] | null> {
  return Type.Unsafe<unknown[] | null>({ type: ['array', 'null'], items, description: childrenNote });
}

const ChildSymbol = Type.Object({ ...symbolFields, children: childrenOf(Type.Unknown()) });

const SymbolSchema = Type.Object({ ...symbolFields, children: childrenOf(ChildSymbol) });

const ListedSymbol = Type.Object({ ...symbolFields, children: Type.Optional(childrenOf(ChildSymbol)) });

const SymbolQuery = Type.Object({
  search: Type.Optional(
    Type.String({ maxLength: 256, description: 'Case-insensitive substring of the instance path' }),
  ),
  flat: Type.Optional(
    Type.Boolean({
      default: false,
      description: 'true: every matching node, without children; false: the outermost matches with children',
    }),
  ),
});

const SymbolPathParams = Type.Object({
  ...PlcIdParams.properties,
  symbolPath: Type.String({ description: 'Instance path, URL-encoded, e.g. GVL_HMI.aAxes%5B3%5D.rPosition' }),
});

const routeConfig = {
  feature: 'Symbols',
  policy: 'ReadAccess',
  plcScoped: true,
  limit: 'SymbolBrowsing',
} as const;

export const symbolsRoutes: FeaturePlugin = (app, { now, services }) => {
  const browser = new SymbolBrowser({ now });
  services.provide(symbolBrowserKey, browser);
  // Keyed by the index's own arrays, so an entry goes when its index is dropped.
  const wholeListings = new WeakMap<object, Buffer>();
  app.addHook('onClose', (_instance, next) => {
    browser.close();
    next();
  });

  app.get(
    '/api/plcs/:plcId/symbols',
    {
      schema: {
        tags: ['Symbols'],
        summary: 'Top-level symbols with children, or the symbols matching `search`',
        description:
          'Without `search`: the whole tree (flat=false) or every node (flat=true). With `search`: as a tree, the ' +
          'outermost symbols whose path matches, each with all its children; flat, every matching node.',
        params: PlcIdParams,
        querystring: SymbolQuery,
        response: envelopeResponses(Type.Array(ListedSymbol)),
      },
      config: routeConfig,
    },
    async (request, reply) => {
      const list = await browser.list(targetOf(request), {
        search: request.query.search,
        flat: request.query.flat ?? false,
      });
      // Whole listings are the same array until the index is rebuilt: serialize each once, not per request.
      if (!wholeListings.has(list) && (request.query.search ?? '') === '') {
        const body = reply.serialize(ok(list));
        wholeListings.set(
          list,
          typeof body === 'string' ? Buffer.from(body) : Buffer.from(body as ArrayBuffer),
        );
      }
      const serialized = wholeListings.get(list);
      // A Buffer is sent as it is; the typed reply only knows the envelope object it was serialized from.
      if (serialized) return reply.type('application/json; charset=utf-8').send(serialized as never);
      return ok(list);
    },
  );

  app.get(
    '/api/plcs/:plcId/symbols/:symbolPath',
    {
      schema: {
        tags: ['Symbols'],
        summary: 'One symbol, struct member or array element with its children',
        params: SymbolPathParams,
        response: envelopeResponses(SymbolSchema),
      },
      config: routeConfig,
    },
    async (request) => ok(await browser.get(targetOf(request), request.params.symbolPath)),
  );
};
