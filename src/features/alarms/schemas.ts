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
    'x-shelved': Type.Optional(
      Type.Object(
        {
          by: Type.String({ description: 'sub of the caller who shelved it' }),
          at: Type.String({ description: 'ISO 8601 UTC' }),
          until: Type.String({ description: 'ISO 8601 UTC: the shelve runs out then' }),
          reason: Type.String(),
        },
        { description: 'Shelved (listed with include=shelved): the shelve ends with the occurrence' },
      ),
    ),
    'x-outOfService': Type.Optional(
      Type.Object(
        { by: Type.String(), at: Type.String({ description: 'ISO 8601 UTC' }), reason: Type.String() },
        { description: 'Out of service (listed with include=outOfService) until returned to service' },
      ),
    ),
    'x-suppressed': Type.Optional(
      Type.Object(
        { rule: Type.String({ description: 'The Suppression rule’s Name, else Suppression[<index>]' }) },
        { description: 'Suppressed by design (listed with include=suppressed)' },
      ),
    ),
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
  count: Type.Integer({ description: 'Items listed' }),
  shelvedCount: Type.Integer({ description: 'Outstanding alarms shelved, listed or not' }),
  outOfServiceCount: Type.Integer({ description: 'Outstanding alarms out of service, listed or not' }),
  suppressedCount: Type.Integer({ description: 'Outstanding alarms suppressed by design, listed or not' }),
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

const includeDescription =
  'Also list alarms of these groups, hidden by default: shelved, outOfService, suppressed, or all; ' +
  'comma-separated (include=shelved,suppressed) or repeated (include=shelved&include=suppressed)';

export const IncludeQuery = Type.Object({
  include: Type.Optional(
    Type.Array(Type.String({ maxLength: 128 }), { maxItems: 8, description: includeDescription }),
  ),
});

export const ShelveBody = (maxMinutes: number, maxReason: number) =>
  Type.Object(
    {
      minutes: Type.Integer({
        minimum: 1,
        maximum: maxMinutes,
        description: 'How long, 1 to MaxShelveMinutes',
      }),
      reason: Type.String({ minLength: 1, maxLength: maxReason }),
    },
    { additionalProperties: false },
  );

export const ReasonBody = (maxReason: number) =>
  Type.Object(
    { reason: Type.String({ minLength: 1, maxLength: maxReason }) },
    { additionalProperties: false },
  );

export const ShelvingAction = Type.Union([
  Type.Literal('shelved'),
  Type.Literal('unshelved'),
  Type.Literal('outOfService'),
  Type.Literal('returnedToService'),
]);

export const ShelvingEntry = Type.Object({
  seq: Type.Integer(),
  at: Type.String({ description: 'Gateway time, ISO 8601 UTC' }),
  action: ShelvingAction,
  code: Type.String({ description: 'The alarm key' }),
  by: Type.Optional(
    Type.String({ description: 'sub of the caller; absent when the shelve expired or ended' }),
  ),
  reason: Type.Optional(Type.String()),
  until: Type.Optional(Type.String({ description: 'shelved: when it runs out' })),
  cause: Type.Optional(
    Type.Union([Type.Literal('byHand'), Type.Literal('expired'), Type.Literal('ended')], {
      description: 'unshelved: by hand, its time ran out, or the occurrence ended',
    }),
  ),
});

export const ShelvingPage = Type.Object({
  items: Type.Array(ShelvingEntry),
  nextAfter: Type.Integer({ description: 'Pass as after to continue' }),
});
