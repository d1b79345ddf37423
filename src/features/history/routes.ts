// History routes (flag History): the recorded past of a PLC's symbols as buckets, raw pages or CSV, and the
// list of what is recorded (historian.ts records).
import { Readable } from 'node:stream';
import { AppError } from '../../errors.ts';
import { targetOf } from '../../guards/install-guards.ts';
import { envelopeResponses, ok } from '../../http/envelope.ts';
import type { FeaturePlugin } from '../../feature-kit/feature-context.ts';
import { PlcIdParams } from '../../http/schemas.ts';
import { startHistorian } from './historian.ts';
import { historyQueriesKey, type HistoryQueries } from './query.ts';
import { HistoryQuery, HistoryResultSchema, RecordedSymbols } from './schemas.ts';

export const historyRoutes: FeaturePlugin = async (app, context) => {
  // Registered with the flag off too (501 FEATURE_DISABLED, hidden from OpenAPI and MCP), but nothing runs.
  const historian = context.config.features.History ? await startHistorian(app, context) : undefined;
  const queries = (): HistoryQueries => {
    if (!historian) throw new AppError('FEATURE_DISABLED');
    return historian.queries;
  };
  if (historian) context.services.provide(historyQueriesKey, historian.queries);
  const recorded = {
    serves: (plcId: string) => historian?.recorders.has(plcId) === true,
    notServed: (plcId: string) => `Nothing is recorded for PLC '${plcId}' (History.Targets).`,
  };

  const tags = ['History'];

  app.get(
    '/api/plcs/:plcId/history',
    {
      schema: {
        tags,
        summary: 'Recorded values of symbols over a window: buckets for numbers, raw changes otherwise, gaps',
        description:
          'Numbers answer at most maxPoints buckets { t, min, max, first, last, count } (a one-sample spike ' +
          'survives); other types their raw changes. aggregate=raw pages through samples with nextCursor. ' +
          '`Accept: text/csv` streams the same as CSV. 404 SYMBOL_NOT_RECORDED for a symbol not recorded.',
        produces: ['application/json', 'text/csv'],
        params: PlcIdParams,
        querystring: HistoryQuery,
        response: envelopeResponses(HistoryResultSchema),
      },
      config: { feature: 'History', policy: 'ReadAccess', plcScoped: recorded, limit: 'HistoryQueries' },
    },
    async (request, reply) => {
      const plcId = targetOf(request).id;
      const q = request.query;
      const query = { ...q, cursor: q.cursor };
      if (request.headers.accept?.includes('text/csv')) {
        // Errors (bad window, unknown symbol) surface before the first byte: the first page is read first.
        const lines = queries().csv(plcId, query);
        const first = await lines.next();
        async function* rest(): AsyncGenerator<string> {
          if (first.done !== true) yield first.value;
          yield* lines;
        }
        return reply.type('text/csv; charset=utf-8').send(Readable.from(rest()) as never);
      }
      return ok(await queries().query(plcId, query));
    },
  );

  app.get(
    '/api/plcs/:plcId/history/symbols',
    {
      schema: {
        tags,
        summary: 'What is recorded on a PLC, with its settings and first and last sample time',
        params: PlcIdParams,
        response: envelopeResponses(RecordedSymbols),
      },
      config: { feature: 'History', policy: 'ReadAccess', plcScoped: recorded, limit: 'HistoryQueries' },
    },
    async (request) => {
      const series = await queries().symbols(targetOf(request).id);
      return ok({
        items: series.map((s) => ({
          symbol: s.symbol,
          type: s.typeName,
          kind: s.kind,
          settings: JSON.parse(s.settings) as unknown,
          firstSample: s.first === null ? null : new Date(s.first).toISOString(),
          lastSample: s.last === null ? null : new Date(s.last).toISOString(),
        })),
      });
    },
  );
};
