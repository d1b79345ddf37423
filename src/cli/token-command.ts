// `plc-gateway token`: prints a signed HS256 JWT for development and CI.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { loadConfig } from '../config/load.ts';
import { developmentSigningKey } from '../config/development-key.ts';
import type { AuthConfig, Config } from '../config/schema.ts';
import { parseDuration } from './duration.ts';
import { UsageError, writeLine, type CliIo } from './io.ts';
import { mintToken, signingSetup, type SigningSetup, type TokenClaims } from './mint-token.ts';
import { formatOptions, helpOption, parseCommandLine, stringOption, type OptionTable } from './options.ts';
import type { Command } from './command.ts';

const roles = ['viewer', 'operator', 'admin'];
const plcIdPattern = /^[A-Za-z0-9_-]{1,64}$/;

const options: OptionTable = {
  sub: { value: 'NAME', description: 'Subject (user name); required' },
  role: {
    value: 'ROLE',
    description: 'viewer, operator or admin; comma-separated for several (default viewer)',
  },
  scope: { value: 'SCOPES', description: 'Space-separated scopes (default "ads:read")' },
  'plc-access': { value: 'IDS', description: 'Comma-separated plcIds, or * for every PLC (default *)' },
  ttl: { value: 'DURATION', description: 'Lifetime: 30s, 15m, 1h, 7d (default 1h)' },
  config: {
    value: 'FILE',
    description: 'Settings file whose Auth section gives the key (default appsettings.json if present)',
  },
  issuer: { value: 'ISS', description: 'iss claim (default Auth.Issuer)' },
  audience: { value: 'AUD', description: 'aud claim (default Auth.Audience)' },
  ...helpOption,
};

const help = `Usage: plc-gateway token --sub NAME [options]

Prints a JWT signed HS256 with Auth.SigningKey, or with the built-in development key when the
settings use Auth.UseDevelopmentKey (or no settings file is found).

${formatOptions(options)}

Example:
  plc-gateway token --sub alice --role admin --scope "ads:read ads:write ads:lifecycle" --plc-access line1,line2 --ttl 1h`;

/** The trimmed, non-empty items of a comma-separated value. */
function commaList(text: string): string[] {
  return text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

function parseRole(text: string): string | string[] {
  const list = commaList(text);
  const unknown = list.find((r) => !roles.includes(r));
  if (list.length === 0 || unknown !== undefined) {
    throw new UsageError(`--role must be ${roles.join(', ')} (got '${unknown ?? text}')`);
  }
  return list.length === 1 ? (list[0] ?? text) : list;
}

function parsePlcAccess(text: string): string[] {
  if (text.trim() === '*') return ['*'];
  const ids = commaList(text);
  const bad = ids.find((id) => !plcIdPattern.test(id));
  if (ids.length === 0 || bad !== undefined) {
    throw new UsageError(
      `--plc-access takes * or comma-separated plcIds (letters, digits, _ or -), got '${bad ?? text}'`,
    );
  }
  return ids;
}

/** The settings named by --config, or appsettings.json in the working folder when it exists. */
function findConfig(explicit: string | undefined, io: CliIo): Config | undefined {
  if (explicit !== undefined) return loadConfig(resolve(io.cwd, explicit), io.env);
  const fallback = resolve(io.cwd, 'appsettings.json');
  return existsSync(fallback) ? loadConfig(fallback, io.env) : undefined;
}

function keyFor(config: Config | undefined, io: CliIo): SigningSetup | { problem: string } {
  if (config !== undefined) return signingSetup(config.settings.Auth);
  if (io.env.NODE_ENV === 'production') {
    return { problem: 'no settings file found, and the development key is refused when NODE_ENV=production' };
  }
  return { key: developmentSigningKey, roleClaim: 'role' };
}

async function run(args: readonly string[], io: CliIo): Promise<number> {
  const parsed = parseCommandLine(args, options, help, io);
  if (parsed === undefined) return 0;
  const sub = stringOption(parsed, 'sub');
  if (sub === undefined || sub.trim() === '') throw new UsageError('--sub NAME is required');
  const ttlText = stringOption(parsed, 'ttl') ?? '1h';
  const ttlSeconds = parseDuration(ttlText);
  if (ttlSeconds === undefined)
    throw new UsageError(`--ttl must look like 30s, 15m, 1h or 7d (got '${ttlText}')`);
  const role = parseRole(stringOption(parsed, 'role') ?? 'viewer');
  const plcAccess = parsePlcAccess(stringOption(parsed, 'plc-access') ?? '*');
  const scope = (stringOption(parsed, 'scope') ?? 'ads:read').trim().split(/\s+/).join(' ');

  const config = findConfig(stringOption(parsed, 'config'), io);
  const setup = keyFor(config, io);
  if ('problem' in setup) {
    writeLine(io.stderr, `plc-gateway token: ${setup.problem}`);
    return 1;
  }
  const auth: Partial<AuthConfig> = config?.settings.Auth ?? {};
  if (config !== undefined && !plcAccess.includes('*')) {
    for (const id of plcAccess.filter((id) => !Object.hasOwn(config.settings.PlcTargets, id))) {
      writeLine(io.stderr, `plc-gateway token: warning: '${id}' is not a configured PLC`);
    }
  }
  const issuer = stringOption(parsed, 'issuer') ?? auth.Issuer;
  const audience = stringOption(parsed, 'audience') ?? auth.Audience;
  const claims: TokenClaims = {
    sub,
    role,
    scope,
    plcAccess,
    ttlSeconds,
    ...(issuer === undefined ? {} : { issuer }),
    ...(audience === undefined ? {} : { audience }),
  };
  writeLine(io.stdout, await mintToken(claims, setup));
  return 0;
}

export const tokenCommand: Command = {
  name: 'token',
  summary: 'Print a signed development/CI bearer token',
  help,
  run,
};
