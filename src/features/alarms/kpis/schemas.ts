// Wire formats of the alarm KPI routes (TypeBox): the window query, one PLC's figures, the fleet's.
import { Type, type Static } from '@sinclair/typebox';

export const KpiQuery = Type.Object({
  from: Type.Optional(
    Type.String({
      description: 'ISO 8601 start (inclusive); default: to minus PlcAlarms.Kpis.DefaultWindowHours',
    }),
  ),
  to: Type.Optional(Type.String({ description: 'ISO 8601 end (exclusive); default and at most: now' })),
});

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);
const Ref = { plcId: Type.String(), key: Type.String({ description: 'The alarm key (code)' }) };
const Window = Type.Object({
  from: Type.String({ description: 'ISO 8601 UTC, inclusive' }),
  to: Type.String({ description: 'ISO 8601 UTC, exclusive' }),
});

const KpiFiguresSchema = Type.Object({
  raised: Type.Object({
    total: Type.Integer({ description: 'Raises: raised and reoccurred transitions (annunciations)' }),
    periods: Type.Integer({ description: '10-minute periods from covered.from; the last may be shorter' }),
    per10Minutes: Type.Object({
      average: Nullable(Type.Number({ description: 'total × 10 min / covered duration' })),
      peak: Type.Integer({ description: 'Most raises in one period' }),
      assessment: Nullable(
        Type.Union(
          [
            Type.Literal('very likely acceptable'),
            Type.Literal('manageable'),
            Type.Literal('likely over-demanding'),
            Type.Literal('very likely unacceptable'),
          ],
          { description: 'EEMUA 191 reading of the average' },
        ),
      ),
    }),
    floodPeriods: Type.Integer({ description: 'Periods with more than 10 raises' }),
    floodShare: Nullable(Type.Number({ description: 'floodPeriods / periods (0 to 1)' })),
  }),
  standing: Type.Object({
    count: Type.Integer({ description: 'Alarms outstanding at covered.to for longer than 24 h' }),
    items: Type.Array(
      Type.Object({
        ...Ref,
        outstandingSince: Type.String(),
        sinceBeforeWindow: Type.Boolean({
          description: 'Raised before covered.from: outstandingSince is the window start, a lower bound',
        }),
      }),
    ),
  }),
  chattering: Type.Object({
    count: Type.Integer({ description: 'Keys raised 3 or more times within 60 s' }),
    items: Type.Array(Type.Object({ ...Ref, raises: Type.Integer(), maxRaisesIn60s: Type.Integer() })),
  }),
  topKeys: Type.Object({
    share: Nullable(Type.Number({ description: 'The ten keys’ share of all raises (0 to 1)' })),
    items: Type.Array(Type.Object({ ...Ref, raises: Type.Integer(), share: Type.Number() })),
  }),
  timeToAcknowledge: Type.Object({
    count: Type.Integer({ description: 'Acknowledgements of raises in the window' }),
    p50Seconds: Nullable(Type.Number()),
    p90Seconds: Nullable(Type.Number()),
  }),
  now: Type.Object({
    outstanding: Type.Integer(),
    shelved: Type.Integer(),
    outOfService: Type.Integer(),
    suppressed: Type.Integer(),
  }),
});

const Benchmarks = Type.Object(
  {
    source: Type.String(),
    raisedPer10Minutes: Type.Object({
      veryLikelyAcceptable: Type.Number(),
      maximumManageable: Type.Number(),
    }),
    floodAbove: Type.Integer(),
    floodShareBelow: Type.Number(),
    peakPer10MinutesAtMost: Type.Integer(),
    topKeysShareBelow: Type.Number(),
    chatteringTarget: Type.Integer(),
    standingBelow: Type.Integer(),
  },
  { description: 'The ISA-18.2 / EEMUA 191 benchmark values beside the figures' },
);

export const PlcKpis = Type.Object({
  plcId: Type.String(),
  requested: Window,
  covered: Window,
  source: Type.Union([Type.Literal('history'), Type.Literal('journal')], {
    description: 'history: the history store; journal: what the in-memory (or Redis) journal still holds',
  }),
  limitedBy: Type.Optional(
    Type.Union([Type.Literal('retention'), Type.Literal('journal'), Type.Literal('maxTransitions')], {
      description: 'Why covered is shorter than requested',
    }),
  ),
  figures: KpiFiguresSchema,
  benchmarks: Benchmarks,
});
export type PlcKpis = Static<typeof PlcKpis>;

export const FleetKpis = Type.Object({
  requested: Window,
  covered: Type.Object(Window.properties, {
    description:
      'The part of the window every listed PLC covers (one covering nothing aside): what figures are over',
  }),
  plcs: Type.Array(Type.Omit(PlcKpis, ['benchmarks'])),
  figures: KpiFiguresSchema,
  benchmarks: Benchmarks,
});
export type FleetKpis = Static<typeof FleetKpis>;
