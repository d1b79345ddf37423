// Creates Real targets: the PlcTarget port over an ADS connection (this folder is ads-client's only importer).
import type { Config, PlcTargetConfig } from '../../config/schema.ts';
import type { TargetLog } from '../target.ts';
import { AdsTarget } from './ads-target.ts';
import { linkSettings, type AdsTuning } from './settings.ts';

export { AdsTarget } from './ads-target.ts';
export type { AdsTuning } from './settings.ts';

/**
 * A target for a `Mode: Real` entry. Nothing connects until start(); start() never throws for an
 * unreachable PLC (it keeps retrying with backoff). `tuning` shortens timers in tests.
 */
export function createAdsTarget(
  id: string,
  settings: PlcTargetConfig,
  ctx: { config: Config; log?: TargetLog },
  tuning?: AdsTuning,
): AdsTarget {
  const link = linkSettings(id, settings, ctx.config, tuning);
  return new AdsTarget(id, settings.DisplayName ?? '', link, ctx.log);
}
