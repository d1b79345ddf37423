// Builds one PlcTarget per PlcTargets entry: Simulated ones over the in-process simulator, Real ones over ADS.
import { ConfigError, type Config, type PlcTargetConfig } from '../config/schema.ts';
import { createAdsTarget } from './ads/index.ts';
import { createSimulatedTarget } from './simulated/index.ts';
import type { PlcTarget, TargetLog } from './target.ts';

interface BuildContext {
  config: Config;
  log?: TargetLog;
}

function buildOne(id: string, settings: PlcTargetConfig, ctx: BuildContext): Promise<PlcTarget> {
  if (settings.Mode === 'Simulated') {
    return createSimulatedTarget(id, settings, ctx);
  }
  return Promise.resolve(createAdsTarget(id, settings, ctx));
}

/**
 * Creates every configured target (not started); each logs on a child of `log` bound to its plcId. Throws one
 * ConfigError listing the problems of all targets together (scenarios, initial values), each already prefixed by its settings path.
 */
export async function buildTargets(config: Config, log?: TargetLog): Promise<PlcTarget[]> {
  const entries = Object.entries(config.settings.PlcTargets);
  const ctx: BuildContext = log ? { config, log } : { config };
  const results = await Promise.allSettled(entries.map(([id, settings]) => buildOne(id, settings, ctx)));
  const problems: string[] = [];
  const targets: PlcTarget[] = [];
  let unexpected: unknown;
  for (const result of results) {
    if (result.status === 'fulfilled') targets.push(result.value);
    else if (result.reason instanceof ConfigError) problems.push(...result.reason.problems);
    else unexpected ??= result.reason;
  }
  if (problems.length === 0 && unexpected === undefined) return targets;
  // Targets already built may hold resources (simulation timers); release them before failing.
  await Promise.allSettled(targets.map((t) => t.close()));
  if (unexpected !== undefined) {
    throw unexpected instanceof Error
      ? unexpected
      : new Error('target creation failed', { cause: unexpected });
  }
  throw new ConfigError(problems);
}
