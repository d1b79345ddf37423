// The Mqtt settings schema: the broker connection, Sparkplug/JSON publishing and the symbols each PLC publishes.
import { Type } from '@sinclair/typebox';
import { PositiveInt } from './schema-primitives.ts';

// MQTT publishing (Mqtt). The symbol entry is the MQTT feature's own for now; history recording declares the same
// shape `{ Path, Mode, CycleTimeMs, Deadband, MaxIntervalSeconds }`, so the two can become one later.
export const MqttSymbolEntry = Type.Object(
  {
    Path: Type.String({
      minLength: 1,
      description:
        'A symbol path; `[*]` stands for every index of an array; a struct or array means its leaves',
    }),
    Mode: Type.Union([Type.Literal('OnChange'), Type.Literal('Cyclic')], {
      default: 'OnChange',
      errorMessage: 'must be OnChange or Cyclic',
    }),
    CycleTimeMs: PositiveInt(1000, 'Cyclic: how often the value is published'),
    Deadband: Type.Number({
      minimum: 0,
      default: 0,
      description: 'OnChange: a numeric change smaller than this is not published',
    }),
    MaxIntervalSeconds: Type.Integer({
      minimum: 0,
      default: 0,
      description: 'OnChange: the value is published again after this long without a change (0: never)',
    }),
  },
  { additionalProperties: false },
);

export const MqttTargetSettings = Type.Object(
  {
    Symbols: Type.Array(MqttSymbolEntry, { default: [], maxItems: 1000 }),
    Alarms: Type.Boolean({ default: false, description: 'Publish the alarms of PlcAlarms.Targets.<plcId>' }),
  },
  { additionalProperties: false, default: {} },
);

export const MqttSettings = Type.Object(
  {
    Enabled: Type.Boolean({ default: false }),
    Url: Type.String({
      pattern: '^mqtts?://',
      default: 'mqtt://127.0.0.1:1883',
      errorMessage: 'must be an mqtt:// or mqtts:// (TLS) URL',
    }),
    CaFile: Type.Optional(Type.String({ minLength: 1, description: 'PEM CA of the broker (mqtts://)' })),
    CertFile: Type.Optional(Type.String({ minLength: 1, description: 'PEM client certificate (mqtts://)' })),
    KeyFile: Type.Optional(Type.String({ minLength: 1, description: 'PEM key of the client certificate' })),
    Username: Type.Optional(Type.String({ minLength: 1 })),
    Password: Type.Optional(Type.String({ minLength: 1 })),
    ClientId: Type.String({ minLength: 1, maxLength: 64, default: 'plc-gateway' }),
    Mode: Type.Union([Type.Literal('SparkplugB'), Type.Literal('Json')], {
      default: 'SparkplugB',
      errorMessage: 'must be SparkplugB or Json',
    }),
    GroupId: Type.String({
      pattern: '^[^/#+]+$',
      default: 'plc-gateway',
      errorMessage: 'must not hold / # +',
    }),
    EdgeNodeId: Type.String({
      pattern: '^[^/#+]+$',
      default: 'gateway',
      errorMessage: 'must not hold / # +',
    }),
    TopicPrefix: Type.String({ pattern: '^[^#+]+$', default: 'plants', errorMessage: 'must not hold # +' }),
    StateFile: Type.String({
      minLength: 1,
      default: 'data/mqtt-state.json',
      description: 'Where the Sparkplug bdSeq survives restarts (relative to the settings file)',
    }),
    BufferSize: PositiveInt(100_000, 'changes kept while the broker is unreachable; the oldest are dropped'),
    KeepAliveSeconds: PositiveInt(30),
    ReconnectMs: PositiveInt(2000, 'wait before connecting again after the broker was lost'),
    BirthTimeoutMs: PositiveInt(5000, 'longest wait for the first values of a device before its birth'),
    AllowWrites: Type.Boolean({ default: false, description: 'Sparkplug DCMD writes to WritableSymbols' }),
    WritableSymbols: Type.Array(Type.String({ minLength: 1 }), { default: [], maxItems: 1000 }),
    Targets: Type.Record(Type.String(), MqttTargetSettings, { default: {} }),
  },
  { additionalProperties: false, default: {} },
);
