// A target's EtherCat settings with their defaults (PlcTargets.<id>.EtherCat).
import type { Config } from '../../config/schema.ts';

export interface EtherCatSettings {
  readonly pollingIntervalMs: number;
  readonly crcErrorThreshold: number;
  readonly enableNotifications: boolean;
  readonly timeoutMs: number;
}

export function etherCatSettings(config: Config, plcId: string): EtherCatSettings {
  const s = config.settings.PlcTargets[plcId]?.EtherCat;
  return {
    pollingIntervalMs: s?.PollingIntervalMs ?? 1000,
    crcErrorThreshold: s?.CrcErrorThreshold ?? 100,
    enableNotifications: s?.EnableNotifications ?? true,
    timeoutMs: s?.TimeoutMs ?? 5000,
  };
}
