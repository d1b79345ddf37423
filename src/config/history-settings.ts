// The History settings schema: where samples are stored, how long, and which symbols each PLC records.
import { Type } from '@sinclair/typebox';
import { PositiveInt } from './schema-primitives.ts';
import { SymbolEntrySettings } from './symbol-entry-settings.ts';

export const HistorySettings = Type.Object(
  {
    Store: Type.Union([Type.Literal('sqlite'), Type.Literal('postgres')], {
      default: 'sqlite',
      errorMessage: 'must be sqlite or postgres',
    }),
    Path: Type.String({ minLength: 1, default: 'data/history.db', description: 'sqlite: the database file' }),
    Postgres: Type.Object(
      { ConnectionString: Type.Optional(Type.String({ minLength: 1 })) },
      { additionalProperties: false, default: {} },
    ),
    RetentionDays: PositiveInt(30, 'samples and alarm transitions older than this are deleted'),
    FlushIntervalMs: Type.Integer({
      minimum: 10,
      maximum: 1000,
      default: 1000,
      description: 'longest a recorded sample waits in the buffer before it is written',
    }),
    BufferLength: PositiveInt(200_000, 'samples held while the store is slow or down; more are dropped'),
    MaxSymbolsPerQuery: PositiveInt(20, 'symbols one history query may ask for'),
    MaxPoints: PositiveInt(10_000, 'largest maxPoints (buckets or raw samples per symbol) of one query'),
    Targets: Type.Record(
      Type.String(),
      Type.Object(
        { Symbols: Type.Array(SymbolEntrySettings, { default: [] }) },
        { additionalProperties: false, default: {} },
      ),
      { default: {} },
    ),
  },
  { additionalProperties: false, default: {} },
);
