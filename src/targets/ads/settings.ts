// Connection settings of one Real target, from its PlcTargets entry and AmsRouter, with test-only tuning.
import type { Config, PlcTargetConfig } from '../../config/schema.ts';
import type { PlcClock } from '../plc-clock.ts';
import type { BackoffOptions } from './backoff.ts';
import { defaultBatchLimits, type BatchLimits } from './batches.ts';

/** Knobs the settings file does not expose; tests shorten them. */
export interface AdsTuning {
  backoff?: Partial<BackoffOptions>;
  /** How often the connection is checked by reading the TwinCAT system state, ms. */
  connectionCheckIntervalMs?: number;
  /** Silence after which the connection counts as lost even without a TCP drop, ms. */
  connectionDownDelayMs?: number;
  batchLimits?: BatchLimits;
  /** Shortest polling period for subscriptions beyond the notification budget, ms. */
  pollFloorMs?: number;
  /** Delay after a new notification before a connection's notifications are registered again together, ms. */
  alignAfterMs?: number;
  /** Shortest time between two such re-registrations on one connection, ms. */
  alignEveryMs?: number;
  random?: () => number;
  /** The gateway's clock, for the timestamps of reads and device state (ms since the epoch). */
  now?: () => number;
}

export interface AdsLinkSettings {
  plcId: string;
  targetNetId: string;
  targetPort: number;
  host: string;
  tcpPort: number;
  localNetId: string | undefined;
  localAdsPort: number | undefined;
  timeoutMs: number;
  symbolBrowseTimeoutMs: number;
  notificationBudget: number;
  /** First retry after the PLC refused a notification, ms; doubled per refused retry up to the max. */
  notificationRetryMs: number;
  notificationRetryMaxMs: number;
  connectionCheckIntervalMs: number;
  connectionDownDelayMs: number;
  backoff: BackoffOptions;
  batchLimits: BatchLimits;
  pollFloorMs: number;
  alignAfterMs: number;
  alignEveryMs: number;
  maxFileBytes: number;
  /** Affected symbols one program-change report keeps (ProgramChanges.MaxSymbolsPerChange). */
  maxProgramChangeSymbols: number;
  plcClock: PlcClock;
  random: () => number;
  now: () => number;
}

/** The ADS port a client uses when the gateway has its own NetId but no port was configured. */
const defaultLocalAdsPort = 32750;

export function linkSettings(
  id: string,
  settings: PlcTargetConfig,
  config: Config,
  tuning: AdsTuning = {},
): AdsLinkSettings {
  const netId = settings.AmsNetId ?? '127.0.0.1.1.1';
  const router = config.settings.AmsRouter as { NetId?: string; LocalAdsPort?: number } | undefined;
  const localNetId = router?.NetId;
  const timeoutMs = settings.TimeoutMs;
  return {
    plcId: id,
    targetNetId: netId,
    targetPort: settings.Port,
    host: settings.Address ?? netId.split('.').slice(0, 4).join('.'),
    tcpPort: settings.TcpPort,
    localNetId,
    // Without a local router the client must name its own address; a NetId alone implies the default port.
    localAdsPort: router?.LocalAdsPort ?? (localNetId ? defaultLocalAdsPort : undefined),
    timeoutMs,
    symbolBrowseTimeoutMs: Math.max(settings.SymbolBrowseTimeoutMs, timeoutMs),
    notificationBudget: settings.NotificationBudget,
    notificationRetryMs: settings.NotificationRetryMs ?? 10_000,
    notificationRetryMaxMs: settings.NotificationRetryMaxMs ?? 60_000,
    connectionCheckIntervalMs: tuning.connectionCheckIntervalMs ?? Math.min(1000, timeoutMs),
    connectionDownDelayMs: tuning.connectionDownDelayMs ?? timeoutMs,
    backoff: { baseMs: tuning.backoff?.baseMs ?? 500, capMs: tuning.backoff?.capMs ?? 30_000 },
    batchLimits: tuning.batchLimits ?? defaultBatchLimits,
    pollFloorMs: tuning.pollFloorMs ?? 50,
    alignAfterMs: tuning.alignAfterMs ?? 2000,
    alignEveryMs: tuning.alignEveryMs ?? 30_000,
    maxFileBytes: config.settings.Files?.MaxBytes ?? 16 * 1024 * 1024,
    maxProgramChangeSymbols: config.settings.ProgramChanges.MaxSymbolsPerChange,
    plcClock: settings.PlcClock ?? 'Utc',
    random: tuning.random ?? Math.random,
    now: tuning.now ?? Date.now,
  };
}
