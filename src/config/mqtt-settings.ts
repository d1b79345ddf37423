// The Mqtt settings schema: the broker connection, Sparkplug/JSON publishing and the symbols each PLC publishes.
import { Type } from '@sinclair/typebox';
import { PositiveInt } from './schema-primitives.ts';
import { SymbolEntrySettings } from './symbol-entry-settings.ts';

export const MqttTargetSettings = Type.Object(
  {
    Symbols: Type.Array(SymbolEntrySettings, { default: [], maxItems: 1000 }),
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
