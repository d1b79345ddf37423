// Parses the `Urls` setting (ASP.NET style, `;`-separated; the first is used) into a host and port to listen on.

export interface ListenAddress {
  host: string;
  port: number;
}

export type ListenUrlResult = ({ ok: true } & ListenAddress) | { ok: false; problem: string };

/** `*` and `+` are ASP.NET's "every interface". */
const wildcardHosts = new Set(['*', '+', '0.0.0.0']);

export function parseListenUrl(urls: string): ListenUrlResult {
  const first = urls.split(';')[0]?.trim() ?? '';
  const match = /^http:\/\/(\[[^\]]+\]|[^:/]+)(?::(\d+))?\/?$/i.exec(first);
  if (!match) {
    return {
      ok: false,
      problem: 'must be an http:// URL with a host and port, for example http://127.0.0.1:5000',
    };
  }
  const rawHost = match[1] ?? '';
  const port = match[2] === undefined ? 80 : Number(match[2]);
  if (port > 65535) return { ok: false, problem: 'port must be 0-65535' };
  const host = wildcardHosts.has(rawHost) ? '0.0.0.0' : rawHost.replace(/^\[(.*)\]$/, '$1');
  return { ok: true, host, port };
}

/** The host a local client should use to reach a server bound to `host`. */
export function reachableHost(host: string): string {
  if (host === '0.0.0.0') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}

/** True for a loopback interface (127.0.0.0/8, ::1, localhost): only this machine can connect. */
export function isLoopbackHost(host: string): boolean {
  return /^(127\.\d+\.\d+\.\d+|::1|localhost)$/i.test(host);
}
