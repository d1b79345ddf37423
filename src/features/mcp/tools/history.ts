// query_history: the recorded past of a PLC's symbols, as GET /api/plcs/{plcId}/history answers it.
import { Type } from '@sinclair/typebox';
import { defineTool, type Tool } from '../tool-kit.ts';
import { historyQueries, type ToolDeps } from './deps.ts';
import { PlcId, strict } from './inputs.ts';
import { targetOf } from './plcs.ts';

export function historyTools({ context }: ToolDeps): Tool[] {
  return [
    defineTool({
      name: 'query_history',
      title: 'Recorded values over time',
      description:
        'The recorded values of symbols over a window [from, to) (ISO 8601): numbers as at most maxPoints buckets ' +
        '{ t, min, max, first, last, count } (spikes survive), other types as their raw changes, with the gaps ' +
        'where the PLC was unreachable. aggregate "raw" pages through samples of one symbol with cursor = ' +
        'nextCursor. Symbols not recorded are SYMBOL_NOT_RECORDED.',
      input: Type.Object(
        {
          plcId: PlcId,
          symbols: Type.Array(Type.String({ minLength: 1 }), { minItems: 1 }),
          from: Type.String({ minLength: 1, description: 'ISO 8601 start (inclusive)' }),
          to: Type.String({ minLength: 1, description: 'ISO 8601 end (exclusive)' }),
          maxPoints: Type.Optional(Type.Integer({ minimum: 1, description: 'Default 1000' })),
          aggregate: Type.Optional(Type.Union([Type.Literal('auto'), Type.Literal('raw')])),
          cursor: Type.Optional(Type.String({ minLength: 1 })),
        },
        strict,
      ),
      mirrors: 'GET /api/plcs/:plcId/history',
      readOnly: true,
      run: ({ symbols, from, to, maxPoints, aggregate, cursor }, { target }) =>
        historyQueries(context).query(targetOf(target).id, {
          symbols,
          from,
          to,
          maxPoints,
          aggregate: aggregate ?? 'auto',
          cursor,
        }),
    }),
  ];
}
