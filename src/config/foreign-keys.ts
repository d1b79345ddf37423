// Settings written for the spec's service (an ASP.NET Core app) carry keys of its host and of features this
// gateway does not have yet. They are taken out before validation, each with one warning naming it, so such a
// file starts; `Logging.LogLevel.Default` becomes our `Logging.Level` when that is not set.
import type { Settings, SettingsWarning } from './schema.ts';

const hostNote = 'an ASP.NET Core host setting this gateway does not use';

// Keys the ASP.NET Core host reads from appsettings.json (WebHostDefaults and the usual host sections).
const hostKeys: Readonly<Record<string, string>> = {
  allowedhosts: hostNote,
  kestrel: `${hostNote}; the listen address is Urls`,
  connectionstrings: hostNote,
  detailederrors: hostNote,
  environment: hostNote,
  applicationname: hostNote,
  contentroot: `${hostNote}; the content root is the settings file's folder`,
  webroot: hostNote,
  http_ports: `${hostNote}; the listen address is Urls`,
  https_ports: `${hostNote}; the listen address is Urls`,
  https_port: `${hostNote}; the listen address is Urls`,
  capturestartuperrors: hostNote,
  shutdowntimeoutseconds: hostNote,
  suppressstatusmessages: hostNote,
  hostingstartupassemblies: hostNote,
  hostingstartupexcludeassemblies: hostNote,
  preventhostingstartup: hostNote,
  startupassembly: hostNote,
  staticwebassets: hostNote,
};

// Logging sections of the ASP.NET Core host: its providers (each with its own LogLevel) and IncludeScopes.
const loggingProviders = new Set([
  'console',
  'debug',
  'eventsource',
  'eventlog',
  'applicationinsights',
  'azureappservicesfile',
  'azureappservicesblob',
  'includescopes',
]);

const notYet = "a feature of the spec's service this gateway does not have yet";
const masterNetIdFound = "the gateway finds each EtherCAT master's NetId in the PLC's I/O server device list";

/** .NET log levels -> ours (`Logging.LogLevel.Default` -> `Logging.Level`). */
const dotnetLevels: Readonly<Record<string, Settings['Logging']['Level']>> = {
  trace: 'trace',
  debug: 'debug',
  information: 'info',
  warning: 'warn',
  error: 'error',
  critical: 'fatal',
  none: 'silent',
};

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Keys of `container` matching `name` case-insensitively (.NET configuration keys are). */
function keysNamed(container: Record<string, unknown>, name: string): string[] {
  const lower = name.toLowerCase();
  return Object.keys(container).filter((k) => k.toLowerCase() === lower);
}

export interface ForeignKeysResult {
  warnings: SettingsWarning[];
  problems: string[];
}

/** Takes the foreign keys out of `doc` (mutated), with one warning each; a bad LogLevel.Default is a problem. */
export function takeForeignKeys(doc: Record<string, unknown>): ForeignKeysResult {
  const out: ForeignKeysResult = { warnings: [], problems: [] };
  const drop = (container: Record<string, unknown>, key: string, path: string, why: string): void => {
    delete container[key];
    out.warnings.push({ setting: path, message: `Ignored setting ${path}: ${why}.` });
  };
  for (const key of Object.keys(doc)) {
    const why = hostKeys[key.toLowerCase()];
    if (why !== undefined) drop(doc, key, key, why);
  }
  for (const key of keysNamed(doc, 'Logging')) {
    const logging = doc[key];
    if (!isRecord(logging)) continue;
    for (const inner of Object.keys(logging)) {
      if (inner.toLowerCase() === 'loglevel') takeLogLevel(logging, inner, `${key}.${inner}`, out);
      else if (loggingProviders.has(inner.toLowerCase())) {
        drop(
          logging,
          inner,
          `${key}.${inner}`,
          "logging configuration of the ASP.NET Core host (Logging.Level sets this gateway's level)",
        );
      }
    }
  }
  const sections: Array<[string, string, string]> = [
    ['AmsRouter', 'Routes', `${notYet}; add the route on the PLC's side (see README, Real PLCs)`],
  ];
  for (const [section, name, why] of sections) {
    for (const key of keysNamed(doc, section)) {
      const container = doc[key];
      if (!isRecord(container)) continue;
      for (const inner of keysNamed(container, name)) drop(container, inner, `${key}.${inner}`, why);
    }
  }
  for (const key of keysNamed(doc, 'PlcTargets')) {
    const targets = doc[key];
    if (!isRecord(targets)) continue;
    for (const [id, target] of Object.entries(targets)) {
      if (!isRecord(target)) continue;
      for (const inner of keysNamed(target, 'EtherCat')) {
        const etherCat = target[inner];
        if (!isRecord(etherCat)) continue;
        for (const netId of keysNamed(etherCat, 'MasterNetId')) {
          drop(etherCat, netId, `${key}.${id}.${inner}.${netId}`, masterNetIdFound);
        }
      }
    }
  }
  return out;
}

/**
 * `Logging.LogLevel`: `Default` is mapped onto `Logging.Level` unless that is set; every other entry is a
 * per-category level of .NET loggers, which this gateway does not have.
 */
function takeLogLevel(
  logging: Record<string, unknown>,
  key: string,
  path: string,
  out: ForeignKeysResult,
): void {
  const levels = logging[key];
  delete logging[key];
  if (!isRecord(levels)) {
    out.warnings.push({
      setting: path,
      message: `Ignored setting ${path}: not an object of .NET log levels.`,
    });
    return;
  }
  for (const [category, value] of Object.entries(levels)) {
    const at = `${path}.${category}`;
    if (category.toLowerCase() !== 'default') {
      out.warnings.push({
        setting: at,
        message: `Ignored setting ${at}: per-category log levels are .NET's; Logging.Level applies to all.`,
      });
      continue;
    }
    const level = typeof value === 'string' ? dotnetLevels[value.toLowerCase()] : undefined;
    if (level === undefined) {
      out.problems.push(`${at}: must be Trace, Debug, Information, Warning, Error, Critical or None`);
    } else if (keysNamed(logging, 'Level').length > 0) {
      out.warnings.push({
        setting: at,
        message: `Ignored setting ${at}: Logging.Level is set and wins.`,
      });
    } else {
      logging.Level = level;
      out.warnings.push({
        setting: at,
        message: `Logging.Level is '${level}', taken from ${at} '${String(value)}' (set Logging.Level instead).`,
      });
    }
  }
}
