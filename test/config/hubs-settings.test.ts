// The Hubs section: its defaults, and values that fail start-up.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../../src/config/load.ts';
import { minimalSettings, problemsOf, writeSettings } from './helpers.ts';

describe('Hubs settings', () => {
  it('defaults', () => {
    const { settings } = loadConfig(writeSettings(minimalSettings), {});
    assert.deepEqual(settings.Hubs, {
      MaxMessageBytes: 65536,
      MaxUnparsedBytes: 131072,
      HandshakeTimeoutSeconds: 15,
      InvocationsPerSecond: 20,
      MaxRefusedInvocations: 100,
      MaxPendingNegotiations: 10000,
      MaxPendingNegotiationsPerUser: 20,
      LongPollSeconds: 90,
      DisconnectTimeoutSeconds: 15,
    });
  });

  it('zero, fractions and unknown keys fail start-up, each by its path', () => {
    const file = writeSettings({
      ...minimalSettings,
      Hubs: {
        MaxUnparsedBytes: 0,
        InvocationsPerSecond: 1.5,
        MaxPendingNegotiationsPerUser: 0,
        LongPollSeconds: 0,
        DisconnectTimeoutSeconds: 2.5,
        Bogus: 1,
      },
    });
    assert.deepEqual(
      new Set(problemsOf(() => loadConfig(file, {}))),
      new Set([
        'Hubs.MaxUnparsedBytes: must be at least 1',
        'Hubs.InvocationsPerSecond: must be an integer',
        'Hubs.MaxPendingNegotiationsPerUser: must be at least 1',
        'Hubs.LongPollSeconds: must be at least 1',
        'Hubs.DisconnectTimeoutSeconds: must be an integer',
        'Hubs.Bogus: unknown setting, not one of plc-gateway (check the spelling)',
      ]),
    );
  });
});
