// Wire formats of the alarm routes (TypeBox): Alarm, the list result, transition frames, acknowledge, history.
import { Type, type Static } from '@sinclair/typebox';

export const PlcClock = Type.Union([Type.Literal('Unspecified'), Type.Literal('Utc'), Type.Literal('Local')]);

export const Alarm = Type.Object(
  {
    code: Type.String({ description: 'The alarm key (sKey); used in the acknowledge path' }),
    sourceId: Type.String({ description: 'Alarm source: ads' }),
    scope: Type.String({ description: 'The plcId' }),
    severity: Type.Integer({ description: 'Raw ErrorType value' }),
    severityLabel: Type.String({ description: 'E_ErrorType member name, or UNKNOWN' }),
    status: Type.Union([Type.Literal('active'), Type.Literal('passive'), Type.Literal('cleared')]),
    description: Type.String({ description: 'TextCatalog text for the key, or ""' }),
    lastOccurred: Type.Optional(
      Type.String({ description: 'ISO 8601 without offset; absent when the PLC gave no readable time' }),
    ),
    capabilities: Type.Array(Type.String(), { description: 'Contains acknowledge when acknowledgeable' }),
    'x-ads': Type.Object({
      equipmentId: Type.String(),
      errorCode: Type.Integer(),
      slotIndex: Type.Integer(),
      needsAcknowledgement: Type.Boolean(),
      isAcknowledged: Type.Boolean(),
      plcTimestamp: Type.Optional(Type.String({ description: 'With the offset PlcClock implies' })),
      plcClock: Type.Optional(PlcClock),
    }),
  },
  { $id: 'Alarm' },
);
export type Alarm = Static<typeof Alarm>;

export const FailedScope = Type.Object({
  peer: Type.String({ description: '<sourceId>:<scope>' }),
  state: Type.Union([Type.Literal('Connecting'), Type.Literal('Disconnected'), Type.Literal('Stale')], {
    description:
      'Connecting or Disconnected: the PLC connection; Stale: replicas sharing a Redis cannot reach it, so ' +
      'the items are this replica’s last copy of the shared journal',
  }),
  reason: Type.String(),
  since: Type.String({ description: 'ISO 8601 UTC: when the scope stopped being readable' }),
});
export type FailedScope = Static<typeof FailedScope>;

export const AlarmList = Type.Object({
  count: Type.Integer(),
  partial: Type.Boolean({ description: 'true when a monitored scope could not be read fresh' }),
  failedPeers: Type.Array(Type.String()),
  'x-ads-failed': Type.Array(FailedScope),
  items: Type.Array(Type.Ref(Alarm)),
});
export type AlarmList = Static<typeof AlarmList>;

export const TransitionKind = Type.Union([
  Type.Literal('raised'),
  Type.Literal('acknowledged'),
  Type.Literal('cleared'),
  Type.Literal('reoccurred'),
  Type.Literal('ended'),
]);

export const AcknowledgeResult = Type.Object({ acknowledged: Type.Boolean() });

export const HistoryQuery = Type.Object({
  after: Type.Optional(
    Type.Integer({ minimum: 0, description: 'Entries after this seq; default: the oldest held' }),
  ),
  limit: Type.Integer({ minimum: 1, maximum: 1000, default: 100 }),
  from: Type.Optional(
    Type.String({
      format: 'date-time',
      description:
        'ISO 8601: transitions at or after this time, from the history store when one is configured',
    }),
  ),
  to: Type.Optional(
    Type.String({ format: 'date-time', description: 'ISO 8601: transitions before this time' }),
  ),
});

export const HistoryPage = Type.Object({
  items: Type.Array(
    Type.Object({
      seq: Type.Integer(),
      at: Type.String({ description: 'Gateway time, ISO 8601 UTC' }),
      kind: TransitionKind,
      alarm: Type.Ref(Alarm),
      user: Type.Optional(Type.String({ description: 'acknowledged: sub of the acknowledging caller' })),
    }),
  ),
  nextAfter: Type.Integer({ description: 'Pass as after to continue' }),
});

export const AlarmKeyParams = Type.Object({
  plcId: Type.String(),
  key: Type.String({ description: 'The alarm key, URL-encoded' }),
});
