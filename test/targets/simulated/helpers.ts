// Test helpers: complete PlcTargetConfig and Config values for simulated targets.
import type { Config, PlcTargetConfig, Settings } from '../../../src/config/schema.ts';
import { featureDefaults } from '../../../src/config/schema.ts';

export function targetSettings(overrides: Partial<PlcTargetConfig> = {}): PlcTargetConfig {
  return {
    DisplayName: 'Sim',
    Mode: 'Simulated',
    Port: 851,
    TcpPort: 48898,
    TimeoutMs: 5000,
    SymbolBrowseTimeoutMs: 30000,
    NotificationBudget: 500,
    Rpc: { Invokable: [] },
    InitialValues: {},
    ScenarioAutoStart: false,
    ...overrides,
  };
}

export function testConfig(contentRoot = '/'): { config: Config } {
  return { config: { settings: {} as Settings, contentRoot, features: featureDefaults, warnings: [] } };
}
