// Logger options: pino with credentials kept out of every line (headers redacted, credentials masked in URLs).
import type { FastifyServerOptions } from 'fastify';
import type { Settings } from '../config/schema.ts';
import { redacted, redactUrl } from './redact-url.ts';

interface LoggedRequest {
  method: string;
  url: string;
  host?: string;
  ip?: string;
  socket?: { remotePort?: number };
}

/**
 * The `logger` option for fastify: false when logging is off, else pino options (caller's options merged in,
 * redaction and the URL-masking request serializer always applied on top).
 */
export function loggerOptions(
  logger: boolean | object | undefined,
  level: Settings['Logging']['Level'],
): FastifyServerOptions['logger'] {
  if (logger === undefined || logger === false) return false;
  const base = typeof logger === 'object' ? (logger as Record<string, unknown>) : {};
  return {
    level,
    ...base,
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers.cookie',
        'req.query.access_token',
        'headers.authorization',
        'res.headers["set-cookie"]',
      ],
      censor: redacted,
    },
    serializers: {
      req: (req: LoggedRequest) => ({
        method: req.method,
        url: redactUrl(req.url),
        host: req.host,
        remoteAddress: req.ip,
        remotePort: req.socket?.remotePort,
      }),
    },
  };
}
