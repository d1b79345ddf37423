// Logging: pino options with credentials kept out of every line (headers redacted, credentials masked in URLs),
// one access line per request, and the asynchronous buffered destination `serve` writes to, flushed on
// shutdown and, through pino's exit handler, when the process crashes.
import { LogController, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import { destination, pino, type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import type { Settings } from '../config/schema.ts';
import { redacted, urlRedactor } from './redact-url.ts';

interface LoggedRequest {
  method: string;
  url: string;
  host?: string;
  ip?: string;
  socket?: { remotePort?: number };
}

/**
 * The `logger` option for fastify: false when logging is off, else pino options (caller's options merged in, the
 * credential-masking serializers always applied on top).
 */
export function loggerOptions(
  logger: boolean | object | undefined,
  level: Settings['Logging']['Level'],
): FastifyServerOptions['logger'] {
  if (logger === undefined || logger === false) return false;
  const base = typeof logger === 'object' ? (logger as Record<string, unknown>) : {};
  const loggedUrl = urlRedactor();
  // Serializers decide the shape of every request, response and header set that reaches a line, so a credential
  // cannot slip in; unlike pino's `redact`, they cost nothing on lines without those keys.
  return {
    level,
    ...base,
    serializers: {
      req: (req: LoggedRequest) => ({
        method: req.method,
        url: loggedUrl(req.url),
        host: req.host,
        remoteAddress: req.ip,
        remotePort: req.socket?.remotePort,
      }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
      headers: maskHeaders,
    },
  };
}

const credentialHeaders = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie']);

/** A header set as it may be logged: credential headers masked. */
function maskHeaders(headers: Record<string, unknown>): Record<string, unknown> {
  const masked: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(headers)) {
    masked[name] = credentialHeaders.has(name.toLowerCase()) ? redacted : value;
  }
  return masked;
}

/**
 * A logger built before the app, with the app's options, so that start-up (settings warnings) and the targets
 * log through the same one; buildApp takes it as `loggerInstance`.
 */
export function createLogger(
  stream: { write(line: string): void },
  level: Settings['Logging']['Level'],
): Logger {
  return pino(loggerOptions({}, level) as LoggerOptions, stream);
}

/**
 * One access line per request, written when the response is finished, with the request in it; fastify's line on
 * arrival is left out.
 */
export class AccessLog extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    const line = { req: request, res: reply, responseTime: reply.elapsedTime };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.info(line, 'request completed');
  }
}

export interface LogDestination {
  readonly stream: DestinationStream;
  /** Writes out what is still buffered. */
  close(): Promise<void>;
}

/** Bytes gathered before a write, and the longest a line waits for them. */
const batchBytes = 8192;
const flushEveryMs = 200;

/**
 * Where `serve` writes its log. The process's own stdout gets pino's asynchronous buffered writer: lines are
 * written in batches of 8 kB, or every 200 ms when traffic is light, so a busy gateway makes one write call for
 * many requests; pino flushes it synchronously on exit, a crash included. Any other output, such as a test's
 * capture, is written to directly.
 */
export function logDestination(out: { write(text: string): unknown }): LogDestination {
  if (out !== process.stdout) {
    return { stream: { write: (line: string) => void out.write(line) }, close: () => Promise.resolve() };
  }
  // Gathered as bytes: in text mode the writer measures everything gathered so far on every line.
  const boom = destination({ dest: 1, sync: false, minLength: batchBytes, contentMode: 'buffer' });
  // sonic-boom's types know only its text mode; in buffer mode write takes bytes.
  const writeBytes = boom.write.bind(boom) as unknown as (bytes: Buffer) => boolean;
  // Only when something was written since the last flush: an empty flush is still a write call.
  let written = false;
  const timer = setInterval(() => {
    if (!written) return;
    written = false;
    boom.flush();
  }, flushEveryMs).unref();
  return {
    stream: {
      write: (line: string) => {
        written = true;
        writeBytes(Buffer.from(line));
      },
    },
    close: () =>
      new Promise((resolve) => {
        clearInterval(timer);
        boom.once('close', () => resolve());
        boom.end();
      }),
  };
}
