// HTTP rules Node either leaves to the application or answers itself without the envelope: server timeouts so a
// client trickling headers or a body cannot hold a socket, exactly one Host header on HTTP/1.1, an Expect other
// than 100-continue (417) and CONNECT (405), each answered in the envelope.
import { STATUS_CODES, type IncomingMessage, type ServerOptions, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import type { Settings } from '../config/schema.ts';
import { AppError } from '../errors.ts';
import { countHeader } from '../guards/raw-headers.ts';
import { failure } from './envelope.ts';

type HttpSettings = Settings['Http'];

/**
 * Timeouts of the HTTP server. They cover receiving a request only, so long responses (event streams) and
 * upgraded WebSocket connections are not cut. The headers timeout never exceeds the request timeout (Node's rule).
 */
export function serverTimeouts(http: HttpSettings): {
  http: ServerOptions;
  requestTimeout: number;
  keepAliveTimeout: number;
} {
  const headersTimeout = Math.min(http.HeadersTimeoutMs, http.RequestTimeoutMs);
  return {
    http: {
      requireHostHeader: false, // answered below, in the envelope
      headersTimeout,
      requestTimeout: http.RequestTimeoutMs,
      // Node looks for expired requests on this period (30 s by default, longer than the timeouts themselves).
      connectionsCheckingInterval: Math.max(10, Math.min(1000, Math.floor(headersTimeout / 4))),
    },
    requestTimeout: http.RequestTimeoutMs,
    keepAliveTimeout: http.KeepAliveTimeoutMs,
  };
}

export function installProtocolRules(app: FastifyInstance): void {
  app.addHook('onRequest', (request, _reply, done) => {
    const raw = request.raw;
    const hosts = countHeader(raw.rawHeaders, 'host');
    // RFC 9112 3.2: an HTTP/1.1 request without a Host header, or with several, is answered 400.
    if (hosts > 1 || (hosts === 0 && raw.httpVersionMajor === 1 && raw.httpVersionMinor >= 1)) {
      done(new AppError('VALIDATION_ERROR', 'Send exactly one Host header.'));
    } else done();
  });
  app.server.on('checkExpectation', (_req: IncomingMessage, res: ServerResponse) => {
    const body = JSON.stringify(failure('VALIDATION_ERROR', 'Only Expect: 100-continue is supported.'));
    res.writeHead(417, {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': Buffer.byteLength(body),
      Connection: 'close',
    });
    res.end(body);
  });
  app.server.on('connect', (_req: IncomingMessage, socket: Duplex) => {
    const body = JSON.stringify(failure('METHOD_NOT_ALLOWED', 'CONNECT is not supported.'));
    socket.end(
      `HTTP/1.1 405 ${STATUS_CODES[405]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
}
