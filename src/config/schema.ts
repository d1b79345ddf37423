// The settings schema (appsettings.json, PascalCase keys): one TypeBox schema that is also the Config type.
import { Type, type Static, type TOptional } from '@sinclair/typebox';
import { ClusterSettings } from './cluster-settings.ts';
import { HistorySettings } from './history-settings.ts';
import { MqttSettings } from './mqtt-settings.ts';
import type { SymbolEntrySettings } from './symbol-entry-settings.ts';
import { AmsNetId, PositiveInt } from './schema-primitives.ts';

export const featureNames = [
  'Symbols',
  'Variables',
  'DeviceInfo',
  'TypeMetadata',
  'Rpc',
  'Files',
  'Lifecycle',
  'Notifications',
  'Alarms',
  'Mcp',
  'Simulation',
  'EtherCatDiagnostics',
  'History',
] as const;
export type FeatureName = (typeof featureNames)[number];

/** Defaults: on for read-mostly areas, off where the spec says so or where hardware is written or stopped. */
export const featureDefaults: Readonly<Record<FeatureName, boolean>> = {
  Symbols: true,
  Variables: true,
  DeviceInfo: true,
  Notifications: true,
  TypeMetadata: false,
  Rpc: false,
  Files: false,
  Lifecycle: false,
  Alarms: false,
  Mcp: false,
  Simulation: false,
  EtherCatDiagnostics: false,
  History: false,
};

const FeatureFlag = Type.Union([Type.Boolean(), Type.Object({ Enabled: Type.Boolean() })]);
// Every flag optional: a flag left out takes its default from featureDefaults.
const featureFlagProperties = Object.fromEntries(
  featureNames.map((n) => [n, Type.Optional(FeatureFlag)]),
) as Record<FeatureName, TOptional<typeof FeatureFlag>>;

const AuthSettings = Type.Object(
  {
    Authority: Type.Optional(
      Type.String({ minLength: 1, description: 'OIDC issuer URL (discovery + JWKS)' }),
    ),
    JwksFile: Type.Optional(Type.String({ minLength: 1 })),
    PublicKeyFile: Type.Optional(
      Type.String({ minLength: 1, description: 'PEM public key (RS256 or ES256)' }),
    ),
    SigningKey: Type.Optional(
      Type.String({ minLength: 32, description: 'HS256 secret, at least 32 characters' }),
    ),
    UseDevelopmentKey: Type.Boolean({
      default: false,
      description: 'Built-in HS256 key; refused in production',
    }),
    Issuer: Type.Optional(Type.String({ minLength: 1 })),
    Audience: Type.Optional(Type.String({ minLength: 1 })),
    ClockSkewSeconds: Type.Integer({ minimum: 0, maximum: 3600, default: 30 }),
    RoleClaimType: Type.String({ minLength: 1, default: 'role' }),
    DefaultPlcAccess: Type.Union([Type.Literal('none'), Type.Literal('*')], { default: 'none' }),
    DefaultPlcAccessLogSubjects: Type.Integer({
      minimum: 1,
      maximum: 1_000_000,
      default: 10_000,
      description:
        'How many token subjects are remembered as already logged for meeting DefaultPlcAccess none without a ' +
        'plc_access claim (each is logged once; when full, the memory is emptied)',
    }),
    JwksCooldownSeconds: Type.Integer({
      minimum: 0,
      maximum: 3600,
      default: 30,
      description: 'With Authority: least seconds between JWKS refetches for tokens naming an unknown key id',
    }),
    PlcAccessClaimFormat: Type.Union([Type.Literal('JsonArray'), Type.Literal('JsonArrayOrString')], {
      default: 'JsonArray',
      description: 'JsonArrayOrString also accepts the array JSON-encoded in a string claim',
    }),
  },
  { additionalProperties: false, default: {} },
);

const InitialValue = Type.Union([
  Type.Object(
    {
      value: Type.Optional(Type.Unknown()),
      type: Type.String({ minLength: 1 }),
      location: Type.Optional(
        Type.String({ minLength: 1, description: 'AT location, e.g. %MB0, %IW2, %Q*' }),
      ),
      comment: Type.Optional(Type.String()),
    },
    { additionalProperties: false },
  ),
  Type.String(),
]);

const PlcTargetSettings = Type.Object(
  {
    DisplayName: Type.String({ default: '' }),
    Mode: Type.Union([Type.Literal('Real'), Type.Literal('Simulated')], {
      default: 'Real',
      errorMessage: 'must be Real or Simulated',
    }),
    AmsNetId: Type.Optional(AmsNetId),
    Port: Type.Integer({ minimum: 1, maximum: 65535, default: 851 }),
    Address: Type.Optional(Type.String({ minLength: 1 })),
    TcpPort: Type.Integer({ minimum: 1, maximum: 65535, default: 48898 }),
    TimeoutMs: PositiveInt(5000),
    SymbolBrowseTimeoutMs: PositiveInt(30000),
    NotificationBudget: PositiveInt(500, 'ADS notifications per PLC before falling back to polling'),
    NotificationRetryMs: Type.Optional(
      PositiveInt(10_000, 'First retry after the PLC refused a notification for lack of resources, ms'),
    ),
    NotificationRetryMaxMs: Type.Optional(
      PositiveInt(60_000, 'Longest wait between retries of a refused notification, ms'),
    ),
    PlcClock: Type.Optional(
      Type.Union([Type.Literal('Utc'), Type.Literal('Local'), Type.Literal('Unspecified')], {
        default: 'Utc',
        description:
          'What the PLC clock of DATE/DT values is: UTC, the gateway host local time, or unspecified',
      }),
    ),
    Rpc: Type.Object(
      { Invokable: Type.Array(Type.String({ minLength: 1 }), { default: [] }) },
      { additionalProperties: false, default: {} },
    ),
    FileRoot: Type.Optional(Type.String({ minLength: 1 })),
    Scenario: Type.Optional(Type.String({ minLength: 1 })),
    InitialValues: Type.Record(Type.String({ minLength: 1 }), InitialValue, { default: {} }),
    ScenarioAutoStart: Type.Boolean({ default: false }),
    EtherCat: Type.Optional(
      Type.Object(
        {
          PollingIntervalMs: PositiveInt(1000, 'How often the gateway reads each EtherCAT master'),
          CrcErrorThreshold: Type.Integer({
            minimum: 0,
            default: 100,
            description: 'A slave whose CRC errors (all ports) exceed this is Degraded and notified',
          }),
          EnableNotifications: Type.Boolean({ default: true }),
          TimeoutMs: PositiveInt(5000, 'Longest wait for one reading of a master'),
        },
        { additionalProperties: false },
      ),
    ),
  },
  // The default lets TypeBox's Value.Default descend into each Record entry.
  { additionalProperties: false, default: {} },
);

/** A value a suppression rule compares a PLC symbol's value with. */
const SuppressionValue = Type.Union([Type.String({ maxLength: 256 }), Type.Number(), Type.Boolean()]);

/** Suppression by design: the alarms whose keys match are suppressed while the symbol's value meets `When`. */
const SuppressionRule = Type.Object(
  {
    Name: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description: 'Shown as x-suppressed.rule; default Suppression[<i>]',
      }),
    ),
    Keys: Type.Array(Type.String({ minLength: 1, maxLength: 256 }), {
      minItems: 1,
      maxItems: 100,
      description: 'Alarm key patterns: * any run of characters, ? one character',
    }),
    When: Type.Object(
      {
        Symbol: Type.String({ minLength: 1, maxLength: 512 }),
        Equals: Type.Optional(SuppressionValue),
        In: Type.Optional(Type.Array(SuppressionValue, { minItems: 1, maxItems: 100 })),
        NotEquals: Type.Optional(SuppressionValue),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);

const AlarmTargetSettings = Type.Object(
  {
    SymbolPath: Type.String({ minLength: 1 }),
    CycleTimeMs: PositiveInt(200),
    PlcClock: Type.Union([Type.Literal('Unspecified'), Type.Literal('Utc'), Type.Literal('Local')], {
      default: 'Unspecified',
      errorMessage: 'must be Unspecified, Utc or Local',
    }),
    AcknowledgeInstancePath: Type.Optional(Type.String({ minLength: 1 })),
    AcknowledgeMethod: Type.String({ minLength: 1, default: 'AcknowledgeAlarm' }),
    JournalLength: Type.Integer({
      minimum: 1,
      maximum: 1_000_000,
      default: 10000,
      description: 'Transitions kept per PLC for GET .../alarms/history and stream resumption',
    }),
    Suppression: Type.Array(SuppressionRule, { maxItems: 50, default: [] }),
  },
  { additionalProperties: false, default: {} },
);

export const SettingsSchema = Type.Object(
  {
    Urls: Type.String({ default: 'http://127.0.0.1:5000' }),
    Logging: Type.Object(
      {
        Level: Type.Union(
          ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)),
          { default: 'info' },
        ),
      },
      { additionalProperties: false, default: {} },
    ),
    Features: Type.Object(featureFlagProperties, { additionalProperties: false, default: {} }),
    Auth: AuthSettings,
    AmsRouter: Type.Object(
      {
        NetId: Type.Optional(AmsNetId),
        LocalAdsPort: Type.Optional(Type.Integer({ minimum: 1, maximum: 65535 })),
      },
      { additionalProperties: false, default: {} },
    ),
    PlcTargets: Type.Record(Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$' }), PlcTargetSettings, {
      additionalProperties: false,
      default: {},
    }),
    PlcAlarms: Type.Object(
      {
        TextCatalog: Type.Optional(Type.String({ minLength: 1 })),
        Targets: Type.Record(Type.String(), AlarmTargetSettings, { default: {} }),
        MaxShelveMinutes: Type.Integer({
          minimum: 1,
          maximum: 525_600,
          default: 480,
          description: 'Longest shelve (POST .../alarms/{key}/shelve minutes)',
        }),
        MaxReasonLength: Type.Integer({
          minimum: 1,
          maximum: 4096,
          default: 500,
          description: 'Longest reason of a shelve or an out-of-service (characters)',
        }),
        ShelvingStateFile: Type.Optional(
          Type.String({
            minLength: 1,
            description:
              'Without Cluster.Redis: the JSON file where shelves and out-of-service states survive restarts',
          }),
        ),
        ShelvingWriteIntervalMs: Type.Integer({
          minimum: 0,
          maximum: 60_000,
          default: 1000,
          description:
            'Least time between two writes of ShelvingStateFile: changes meanwhile go out together at its end',
        }),
        ShelvingJournalLength: Type.Integer({
          minimum: 1,
          maximum: 1_000_000,
          default: 1000,
          description: 'Shelving and out-of-service changes kept per PLC for GET .../alarms/shelving',
        }),
        Kpis: Type.Object(
          {
            DefaultWindowHours: PositiveInt(24, 'the KPI window when from is not given'),
            MaxWindowDays: PositiveInt(31, 'longest KPI window (to - from)'),
            MaxTransitions: PositiveInt(200_000, 'transitions read per PLC for one KPI answer'),
            MaxFleetTransitions: PositiveInt(
              1_000_000,
              'transitions read for one fleet KPI answer, shared evenly by its PLCs',
            ),
            MaxConcurrent: PositiveInt(2, 'KPI answers computed at once in the gateway (429 beyond)'),
          },
          { additionalProperties: false, default: {} },
        ),
      },
      { additionalProperties: false, default: {} },
    ),
    RateLimiting: Type.Object(
      {
        Enabled: Type.Boolean({ default: true }),
        GlobalPerUser: PositiveInt(200, 'requests per second per user'),
        AlarmReads: PositiveInt(50, 'per second per user per PLC'),
        RpcInvocations: PositiveInt(10, 'per second per user per PLC'),
        SymbolBrowsing: PositiveInt(10, 'per second per user'),
        NotificationConnections: PositiveInt(5, 'stream connections opened per 60 s per user'),
        Lifecycle: PositiveInt(1, 'per 5 s sliding window per PLC'),
        FileTransfers: PositiveInt(5, 'file reads, writes and listings per second per user per PLC'),
        HistoryQueries: PositiveInt(10, 'history queries per second per user per PLC'),
      },
      { additionalProperties: false, default: {} },
    ),
    Notifications: Type.Object(
      {
        MaxSymbolsPerClient: PositiveInt(50),
        HeartbeatSeconds: PositiveInt(30),
        DefaultCycleTimeMs: PositiveInt(100),
        MinCycleTimeMs: PositiveInt(10, 'smallest cycleMs a stream client may ask for'),
        MaxCycleTimeMs: Type.Integer({
          minimum: 1,
          // The largest cycle an ADS notification takes: 2^32-1 units of 100 ns.
          maximum: 429_496,
          default: 60_000,
          description: 'largest cycleMs a stream client may ask for',
        }),
        MaxResendIntervalMs: PositiveInt(3_600_000, 'largest maxIntervalMs a stream client may ask for'),
        MinResendIntervalMs: PositiveInt(
          1000,
          'smallest maxIntervalMs a stream client may ask for (besides the cycle): the pace of its resend timers',
        ),
        MaxSubscriptionsPerUser: PositiveInt(
          250,
          "distinct (symbol, cycle, mode) subscriptions one user's streams hold on one PLC",
        ),
        CycleLadderMs: Type.Optional(
          Type.Array(Type.Integer({ minimum: 1, maximum: 429_496 }), {
            minItems: 1,
            maxItems: 32,
            description:
              'the cycles subscriptions run at, ascending from MinCycleTimeMs, DefaultCycleTimeMs among them; a ' +
              'requested cycleMs is revised down to the largest not above it (default: the 1-2-5 series from ' +
              'MinCycleTimeMs to MaxCycleTimeMs)',
          }),
        ),
        QueueLength: PositiveInt(1000),
      },
      { additionalProperties: false, default: {} },
    ),
    ConnectionLimits: Type.Object(
      { MaxPerUser: PositiveInt(20), MaxTotal: PositiveInt(2000) },
      { additionalProperties: false, default: {} },
    ),
    Hubs: Type.Object(
      {
        MaxMessageBytes: PositiveInt(64 * 1024, 'largest WebSocket message a hub client may send (bytes)'),
        MaxUnparsedBytes: PositiveInt(
          128 * 1024,
          'bytes a hub connection holds without a record separator before it is closed',
        ),
        HandshakeTimeoutSeconds: PositiveInt(15, 'the SignalR handshake must complete within this time'),
        InvocationsPerSecond: PositiveInt(20, 'hub method invocations per second per connection'),
        MaxRefusedInvocations: PositiveInt(
          100,
          'invocations refused in a row for the rate before the connection is closed',
        ),
        MaxPendingNegotiations: PositiveInt(10_000, 'negotiated, not yet connected hub connections in all'),
        MaxPendingNegotiationsPerUser: PositiveInt(
          20,
          'negotiated, not yet connected hub connections per user',
        ),
        LongPollSeconds: PositiveInt(
          90,
          'a LongPolling poll with nothing to send is answered empty after this long',
        ),
        DisconnectTimeoutSeconds: PositiveInt(
          15,
          'a LongPolling hub connection with no poll outstanding for this long is ended',
        ),
      },
      { additionalProperties: false, default: {} },
    ),
    Simulation: Type.Object(
      { MaxStepCycles: PositiveInt(100000) },
      { additionalProperties: false, default: {} },
    ),
    Files: Type.Object(
      {
        MaxBytes: PositiveInt(16 * 1024 * 1024),
        MaxJsonBytes: PositiveInt(
          1024 * 1024,
          'largest file answered as base64 JSON; larger ones only as application/octet-stream',
        ),
        MaxConcurrentDownloadsPerUser: PositiveInt(4, 'file downloads in progress at once per user'),
        MaxTotalBytes: PositiveInt(64 * 1024 * 1024, 'bytes of all files of a simulated PLC kept in memory'),
        MaxFileCount: PositiveInt(1000, 'files and folders of a simulated PLC kept in memory'),
      },
      { additionalProperties: false, default: {} },
    ),
    Mcp: Type.Object(
      {
        SessionIdleMinutes: PositiveInt(30, 'an MCP session without a request for this long is closed'),
        MaxSessionsPerUser: PositiveInt(10, 'open MCP sessions per user (sub)'),
        MaxSessions: PositiveInt(500, 'open MCP sessions in all'),
        WatchMaxSeconds: PositiveInt(60, 'longest watch_variables run'),
        WatchMaxSymbols: PositiveInt(10, 'symbols one watch_variables call samples'),
        WatchMinIntervalMs: Type.Integer({
          minimum: 1,
          maximum: 10_000,
          default: 100,
          description: 'shortest time between two samples of a watch_variables call (ms, at most 10000)',
        }),
        MaxConcurrentToolsPerUser: PositiveInt(
          3,
          'long-running tool calls (watch_variables) one user (sub) may have running at once',
        ),
        MaxConcurrentTools: PositiveInt(
          30,
          'long-running tool calls (watch_variables) running at once in all',
        ),
        MaxBodyBytes: PositiveInt(1024 * 1024, 'largest POST /mcp body (bytes); larger is 413'),
      },
      { additionalProperties: false, default: {} },
    ),
    Cluster: ClusterSettings,
    Mqtt: MqttSettings,
    ProgramChanges: Type.Object(
      {
        Length: PositiveInt(
          50,
          'program changes (downloads, online changes) kept per PLC for GET /api/admin/plcs/{plcId}/program-changes',
        ),
        MaxSymbolsPerChange: PositiveInt(
          1000,
          'affected symbols listed per program change; beyond it they are only counted (affectedCount)',
        ),
      },
      { additionalProperties: false, default: {} },
    ),
    Audit: Type.Object(
      {
        Length: PositiveInt(10000, 'audit records of changes kept; older ones are dropped'),
        RefusalLength: PositiveInt(
          10000,
          'audit records of refused requests (4xx, 501) kept apart from the changes; older ones are dropped',
        ),
      },
      { additionalProperties: false, default: {} },
    ),
    Console: Type.Object(
      {
        Enabled: Type.Boolean({ default: true, description: 'Serve the web console at /console/' }),
        ClientId: Type.Optional(
          Type.String({ minLength: 1, description: 'OIDC client id of the console (with Auth.Authority)' }),
        ),
        Scope: Type.String({
          minLength: 1,
          default: 'openid profile',
          description: 'Scopes the console asks the OIDC issuer for',
        }),
      },
      { additionalProperties: false, default: {} },
    ),
    Health: Type.Object(
      {
        Detailed: Type.Boolean({
          default: false,
          description:
            "Anonymous /health/ready carries every check's data (PLC ids and states, replicas, lease holders); " +
            'off: check names, statuses and fixed descriptions only (an admin token for every PLC still gets them)',
        }),
      },
      { additionalProperties: false, default: {} },
    ),
    History: HistorySettings,
    Http: Type.Object(
      {
        HeadersTimeoutMs: PositiveInt(10_000, 'time to receive the request line and headers'),
        RequestTimeoutMs: PositiveInt(30_000, 'time to receive the whole request, body included'),
        KeepAliveTimeoutMs: PositiveInt(5_000, 'idle time allowed between requests on one connection'),
        SendTimeoutSeconds: PositiveInt(
          30,
          'a response or stream whose send buffer stays full this long (the client does not read) is cut off',
        ),
      },
      { additionalProperties: false, default: {} },
    ),
  },
  { additionalProperties: false },
);

export type Settings = Static<typeof SettingsSchema>;
export type PlcTargetConfig = Static<typeof PlcTargetSettings>;
export type AlarmTargetConfig = Static<typeof AlarmTargetSettings>;
export type SuppressionRuleConfig = Static<typeof SuppressionRule>;
export type AuthConfig = Static<typeof AuthSettings>;
export type MqttConfig = Static<typeof MqttSettings>;
export type HistoryConfig = Static<typeof HistorySettings>;
/** A symbol entry of History.Targets.<plcId>.Symbols and Mqtt.Targets.<plcId>.Symbols (one definition). */
export type SymbolEntryConfig = Static<typeof SymbolEntrySettings>;
/** History's name for the shared symbol entry. */
export type HistorySymbolConfig = SymbolEntryConfig;

/** A key of the file the loader ignored or mapped, or a valid but unwise setting: logged as a warning at start-up. */
export interface SettingsWarning {
  /** The key as written in the file, dotted. */
  readonly setting: string;
  readonly message: string;
}

/** The validated, frozen configuration the app runs on. Paths are already resolved to absolute. */
export interface Config {
  readonly settings: Readonly<Settings>;
  /** The folder relative paths resolve against: the config file's folder. */
  readonly contentRoot: string;
  /** Effective feature flags, defaults applied. */
  readonly features: Readonly<Record<FeatureName, boolean>>;
  /** Keys of the file that were ignored or mapped and unwise settings, for start-up to log as warnings. */
  readonly warnings: readonly SettingsWarning[];
}

/** Start-up failure that lists every problem, each prefixed by its settings path. */
export class ConfigError extends Error {
  readonly problems: readonly string[];
  constructor(problems: readonly string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}
