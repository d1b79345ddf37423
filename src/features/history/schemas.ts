// Wire formats of the history routes (TypeBox).
import { Type } from '@sinclair/typebox';

const Kind = Type.Union(
  [
    Type.Literal('number'),
    Type.Literal('int64'),
    Type.Literal('uint64'),
    Type.Literal('bool'),
    Type.Literal('string'),
  ],
  { description: 'How values are kept: 64-bit integers exactly, as decimal strings' },
);
const NumberOrText = Type.Union([Type.Number(), Type.String()]);

export const HistoryQuery = Type.Object({
  symbols: Type.Array(Type.String({ minLength: 1 }), {
    minItems: 1,
    description: 'Repeat per symbol (symbols=a&symbols=b); at most History.MaxSymbolsPerQuery',
  }),
  from: Type.String({ description: 'ISO 8601 start of the window (inclusive)' }),
  to: Type.String({ description: 'ISO 8601 end of the window (exclusive)' }),
  maxPoints: Type.Optional(
    Type.Integer({
      minimum: 1,
      description: 'Buckets (numbers) or raw samples per symbol; default 1000 (at most History.MaxPoints)',
    }),
  ),
  aggregate: Type.Union([Type.Literal('auto'), Type.Literal('raw')], {
    default: 'auto',
    description: 'auto: buckets for numbers, raw changes for other types; raw: samples, paged by cursor',
  }),
  cursor: Type.Optional(Type.String({ minLength: 1, description: 'aggregate=raw, one symbol: nextCursor' })),
});

const Gap = Type.Object({
  from: Type.String(),
  to: Type.Union([Type.String(), Type.Null()], { description: 'null: still open (the PLC is still down)' }),
  reason: Type.Union([Type.Literal('unreachable'), Type.Literal('overflow')], {
    description: 'unreachable: the PLC was down; overflow: samples were dropped (the store was slow or down)',
  }),
});

export const HistoryResultSchema = Type.Object({
  plcId: Type.String(),
  from: Type.String(),
  to: Type.String(),
  series: Type.Array(
    Type.Object({
      symbol: Type.String(),
      type: Type.String(),
      kind: Kind,
      bucketMs: Type.Optional(Type.Integer({ description: 'Bucket width in milliseconds' })),
      buckets: Type.Optional(
        Type.Array(
          Type.Object({
            t: Type.String({ description: 'Bucket start, ISO 8601' }),
            min: NumberOrText,
            max: NumberOrText,
            first: NumberOrText,
            last: NumberOrText,
            count: Type.Integer(),
          }),
        ),
      ),
      samples: Type.Optional(Type.Array(Type.Object({ t: Type.String(), value: Type.Unknown() }))),
      nextCursor: Type.Optional(Type.String()),
      gaps: Type.Array(Gap),
    }),
  ),
});

export const RecordedSymbols = Type.Object({
  items: Type.Array(
    Type.Object({
      symbol: Type.String(),
      type: Type.String(),
      kind: Kind,
      settings: Type.Unknown({ description: 'The History.Targets entry that records it' }),
      firstSample: Type.Union([Type.String(), Type.Null()]),
      lastSample: Type.Union([Type.String(), Type.Null()]),
    }),
  ),
});
