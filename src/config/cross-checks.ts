// Rules that span several settings, checked after the schema so every problem is reported in one go.
import type { Settings, SettingsWarning } from './schema.ts';
import { isDevelopmentSigningKey } from './development-key.ts';
import { parseListenUrl } from './listen-url.ts';

const keySources = ['Authority', 'JwksFile', 'PublicKeyFile', 'SigningKey', 'UseDevelopmentKey'] as const;

/** The problem with `auth`'s key sources (there must be exactly one), or undefined when there is none. */
export function keySourceProblem(auth: Readonly<Record<string, unknown>>): string | undefined {
  const present = keySources.filter((k) =>
    k === 'UseDevelopmentKey' ? auth[k] === true : auth[k] !== undefined,
  );
  if (present.length === 0) {
    return 'Auth: needs one key source: Authority, JwksFile, PublicKeyFile, SigningKey or UseDevelopmentKey';
  }
  return present.length > 1 ? `Auth: set exactly one key source, found ${present.join(' and ')}` : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function targetRules(settings: Record<string, unknown>): string[] {
  const problems: string[] = [];
  const targets = isRecord(settings.PlcTargets) ? settings.PlcTargets : {};
  for (const [id, target] of Object.entries(targets)) {
    if (!isRecord(target)) continue;
    const mode = target.Mode ?? 'Real';
    if (mode === 'Real' && target.AmsNetId === undefined) {
      problems.push(`PlcTargets.${id}.AmsNetId: is required when Mode is Real`);
    }
    if (target.Scenario !== undefined && mode !== 'Simulated') {
      problems.push(`PlcTargets.${id}.Scenario: only allowed when Mode is Simulated`);
    }
    const retryMs = typeof target.NotificationRetryMs === 'number' ? target.NotificationRetryMs : 10_000;
    const retryMaxMs =
      typeof target.NotificationRetryMaxMs === 'number' ? target.NotificationRetryMaxMs : 60_000;
    if (retryMaxMs < retryMs) {
      problems.push(
        `PlcTargets.${id}.NotificationRetryMaxMs: must not be below NotificationRetryMs (${retryMs})`,
      );
    }
  }
  problems.push(...caseTwins('PlcTargets', Object.keys(targets)));
  const alarms =
    isRecord(settings.PlcAlarms) && isRecord(settings.PlcAlarms.Targets) ? settings.PlcAlarms.Targets : {};
  for (const id of Object.keys(alarms)) {
    if (configuredPlcId(targets, id) === undefined) {
      problems.push(
        `PlcAlarms.Targets.${id}: names no configured PLC (add PlcTargets.${id} or remove this entry)`,
      );
    }
  }
  problems.push(...caseTwins('PlcAlarms.Targets', Object.keys(alarms)));
  for (const [id, alarm] of Object.entries(alarms)) {
    const rules = isRecord(alarm) && Array.isArray(alarm.Suppression) ? (alarm.Suppression as unknown[]) : [];
    rules.forEach((rule, i) => {
      const when = isRecord(rule) && isRecord(rule.When) ? rule.When : {};
      const tests = ['Equals', 'In', 'NotEquals'].filter((k) => when[k] !== undefined);
      if (tests.length !== 1) {
        problems.push(
          `PlcAlarms.Targets.${id}.Suppression[${i}].When: needs exactly one of Equals, In or NotEquals` +
            (tests.length > 1 ? `, found ${tests.join(' and ')}` : ''),
        );
      }
    });
  }
  return problems;
}

/** plcIds are matched case-insensitively, so two that differ only in case could never both be reached. */
function caseTwins(section: string, ids: readonly string[]): string[] {
  const seen = new Map<string, string>();
  const problems: string[] = [];
  for (const id of ids) {
    const first = seen.get(id.toLowerCase());
    if (first === undefined) seen.set(id.toLowerCase(), id);
    else {
      problems.push(
        `${section}.${id}: plcIds are matched ignoring case, and ${section}.${first} is the same id`,
      );
    }
  }
  return problems;
}

/** The key of `targets` that `id` names, ignoring case (plcIds are matched so everywhere). */
export function configuredPlcId(targets: Record<string, unknown>, id: string): string | undefined {
  if (Object.hasOwn(targets, id)) return id;
  const lower = id.toLowerCase();
  return Object.keys(targets).find((k) => k.toLowerCase() === lower);
}

function authRules(settings: Record<string, unknown>, nodeEnv: string | undefined): string[] {
  const auth = isRecord(settings.Auth) ? settings.Auth : {};
  const problems: string[] = [];
  const keySource = keySourceProblem(auth);
  if (keySource !== undefined) problems.push(keySource);
  if (auth.UseDevelopmentKey === true && nodeEnv === 'production') {
    problems.push('Auth.UseDevelopmentKey: the built-in development key is refused when NODE_ENV=production');
  }
  if (
    typeof auth.SigningKey === 'string' &&
    isDevelopmentSigningKey(auth.SigningKey) &&
    nodeEnv === 'production'
  ) {
    problems.push('Auth.SigningKey: is the publicly known development key, refused when NODE_ENV=production');
  }
  return problems;
}

/** Sign-in through the issuer needs an issuer: a client id alone would show a button that cannot work. */
function consoleRules(settings: Record<string, unknown>): string[] {
  const console = isRecord(settings.Console) ? settings.Console : {};
  const auth = isRecord(settings.Auth) ? settings.Auth : {};
  if (console.ClientId === undefined || auth.Authority !== undefined) return [];
  return ['Console.ClientId: needs Auth.Authority (the OIDC issuer the console signs in with)'];
}

function urlRules(settings: Record<string, unknown>): string[] {
  if (typeof settings.Urls !== 'string') return [];
  const parsed = parseListenUrl(settings.Urls);
  return parsed.ok ? [] : [`Urls: ${parsed.problem}`];
}

/** A simulation must have one clock: replicas each running their own copy would disagree. */
function clusterRules(settings: Record<string, unknown>): string[] {
  const cluster = isRecord(settings.Cluster) ? settings.Cluster : {};
  if (cluster.Redis === undefined) return [];
  const targets = isRecord(settings.PlcTargets) ? settings.PlcTargets : {};
  const tls = ['TlsCaFile', 'TlsCertFile', 'TlsKeyFile'].filter((k) => cluster[k] !== undefined);
  const plain = typeof cluster.Redis === 'string' && !cluster.Redis.startsWith('rediss://');
  const tlsProblems = [
    ...(plain && tls.length > 0
      ? [`Cluster.${tls.join(', Cluster.')}: need a rediss:// (TLS) Cluster.Redis`]
      : []),
    ...((cluster.TlsCertFile === undefined) !== (cluster.TlsKeyFile === undefined)
      ? ['Cluster.TlsCertFile: and Cluster.TlsKeyFile go together (a client certificate and its key)']
      : []),
  ];
  return [
    ...tlsProblems,
    ...Object.entries(targets)
      .filter(([, target]) => isRecord(target) && target.Mode === 'Simulated')
      .map(
        ([id]) =>
          `PlcTargets.${id}.Mode: Simulated targets are refused in cluster mode (Cluster.Redis): run the simulation ` +
          'once with `plc-gateway sim-ads` and point a Real target at it from every replica',
      ),
  ];
}

/** History (flag History): its store must be shared by the replicas, and its targets must be configured PLCs. */
function historyRules(settings: Record<string, unknown>): string[] {
  const history = isRecord(settings.History) ? settings.History : {};
  const features = isRecord(settings.Features) ? settings.Features : {};
  const flag = features.History;
  if (flag !== true && !(isRecord(flag) && flag.Enabled === true)) return [];
  const problems: string[] = [];
  const postgres = isRecord(history.Postgres) ? history.Postgres : {};
  const cluster = isRecord(settings.Cluster) ? settings.Cluster : {};
  if (history.Store === 'postgres' && postgres.ConnectionString === undefined) {
    problems.push('History.Postgres.ConnectionString: is required when History.Store is postgres');
  }
  if (cluster.Redis !== undefined && history.Store !== 'postgres') {
    problems.push(
      'History.Store: must be postgres in cluster mode (Cluster.Redis): replicas share one history',
    );
  }
  const targets = isRecord(settings.PlcTargets) ? settings.PlcTargets : {};
  const recorded = isRecord(history.Targets) ? history.Targets : {};
  for (const id of Object.keys(recorded)) {
    if (configuredPlcId(targets, id) === undefined) {
      problems.push(
        `History.Targets.${id}: names no configured PLC (add PlcTargets.${id} or remove this entry)`,
      );
    }
  }
  return problems;
}

/** Mqtt (when enabled): every published PLC must be configured (matched ignoring case, as plcIds are everywhere). */
function mqttRules(settings: Record<string, unknown>): string[] {
  const mqtt = isRecord(settings.Mqtt) ? settings.Mqtt : {};
  if (mqtt.Enabled !== true) return [];
  const targets = isRecord(settings.PlcTargets) ? settings.PlcTargets : {};
  const published = isRecord(mqtt.Targets) ? mqtt.Targets : {};
  const problems = Object.keys(published)
    .filter((id) => configuredPlcId(targets, id) === undefined)
    .map((id) => `Mqtt.Targets.${id}: names no configured PLC (add PlcTargets.${id} or remove this entry)`);
  return [...problems, ...caseTwins('Mqtt.Targets', Object.keys(published))];
}

/** Notifications: the default cycle lies within the bounds stream clients are held to. */
function notificationRules(settings: Record<string, unknown>): string[] {
  const n = isRecord(settings.Notifications) ? settings.Notifications : {};
  const { MinCycleTimeMs: min, MaxCycleTimeMs: max, DefaultCycleTimeMs: def } = n;
  if (typeof min !== 'number' || typeof max !== 'number' || typeof def !== 'number') return [];
  if (min > max) return ['Notifications.MinCycleTimeMs: must not be above Notifications.MaxCycleTimeMs'];
  if (def < min || def > max) {
    return [
      `Notifications.DefaultCycleTimeMs: must lie within MinCycleTimeMs (${min}) and MaxCycleTimeMs (${max})`,
    ];
  }
  const ladder = n.CycleLadderMs;
  if (!Array.isArray(ladder) || !ladder.every((v): v is number => typeof v === 'number')) return [];
  // Every cycle a client may ask for revises down onto a step: the ladder starts at the smallest one.
  if (
    ladder[0] !== min ||
    ladder.some((v, i) => i > 0 && v <= (ladder[i - 1] ?? 0)) ||
    (ladder.at(-1) ?? 0) > max ||
    !ladder.includes(def)
  ) {
    return [
      `Notifications.CycleLadderMs: must ascend from MinCycleTimeMs (${min}) to at most MaxCycleTimeMs ` +
        `(${max}) and hold DefaultCycleTimeMs (${def})`,
    ];
  }
  return [];
}

/** Every cross-field problem; tolerant of values the schema already rejected. */
export function crossFieldProblems(
  settings: Settings | Record<string, unknown>,
  nodeEnv: string | undefined,
): string[] {
  const s = settings as Record<string, unknown>;
  return [
    ...urlRules(s),
    ...authRules(s, nodeEnv),
    ...targetRules(s),
    ...clusterRules(s),
    ...consoleRules(s),
    ...historyRules(s),
    ...mqttRules(s),
    ...notificationRules(s),
  ];
}

/**
 * Valid but unwise combinations, logged at start-up: a Real PLC whose NotificationBudget is below the per-user
 * subscription cap lets one user's streams use up the budget and push everyone else on that PLC to polling.
 * Not a problem: a site with one consuming user may allow it knowingly.
 */
export function crossFieldWarnings(settings: Settings): SettingsWarning[] {
  const cap = settings.Notifications.MaxSubscriptionsPerUser;
  const warnings: SettingsWarning[] = [];
  for (const [id, target] of Object.entries(settings.PlcTargets)) {
    if (target.Mode !== 'Real' || target.NotificationBudget >= cap) continue;
    const setting = `PlcTargets.${id}.NotificationBudget`;
    warnings.push({
      setting,
      message:
        `${setting} (${target.NotificationBudget}) is below Notifications.MaxSubscriptionsPerUser (${cap}): ` +
        'one user can use up the notifications of this PLC and push the other users to polling.',
    });
  }
  return warnings;
}
