// How the replica connects to Redis: the link's settings, credentials, TLS files and fail-fast client options.
import { readFileSync } from 'node:fs';
import type { RedisOptions } from 'ioredis';

export interface RedisLinkSettings {
  readonly url: string;
  /** ACL user and password when not in the URL (the URL's win). */
  readonly username?: string | undefined;
  readonly password?: string | undefined;
  /** PEM files for rediss://: the CA the server's certificate is checked against, a client certificate and key. */
  readonly tlsCaFile?: string | undefined;
  readonly tlsCertFile?: string | undefined;
  readonly tlsKeyFile?: string | undefined;
  /** Longest wait for one command, and for everything one caller asks while Redis does not answer. */
  readonly commandTimeoutMs?: number | undefined;
}

/** `Cluster.CommandTimeoutMs`'s default. */
export const defaultCommandTimeoutMs = 500;

export function redisOptions(settings: RedisLinkSettings): RedisOptions {
  const tls =
    settings.tlsCaFile === undefined && settings.tlsCertFile === undefined
      ? {}
      : {
          tls: {
            ...(settings.tlsCaFile === undefined ? {} : { ca: readFileSync(settings.tlsCaFile) }),
            ...(settings.tlsCertFile === undefined ? {} : { cert: readFileSync(settings.tlsCertFile) }),
            ...(settings.tlsKeyFile === undefined ? {} : { key: readFileSync(settings.tlsKeyFile) }),
          },
        };
  return {
    // TLS comes from the rediss:// scheme (system CAs unless a CA file is given); credentials may be in the URL or
    // given apart (kept out of files).
    ...(settings.username === undefined ? {} : { username: settings.username }),
    ...(settings.password === undefined ? {} : { password: settings.password }),
    ...tls,
    enableOfflineQueue: false,
    commandTimeout: settings.commandTimeoutMs ?? defaultCommandTimeoutMs,
    maxRetriesPerRequest: 0,
    connectTimeout: 2000,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
    lazyConnect: true,
  };
}
